#include "webhook_http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <thread>
#include <unordered_map>
#include <utility>

#include "curl_handles.h"
#include "net_guard.h"

namespace ca {
namespace {

constexpr const char* kUserAgent = "commerce-admin-webhooks";

// One request in flight. Heap-allocated so curl's callback pointers stay
// valid; owns the request, whose body curl reads without copying.
struct Transfer {
  uint64_t tag = 0;
  WebhookRequest req;
  CurlSlist headers;
  // Declared after what it points to, so it is cleaned up first.
  CurlEasy easy;
  bool allow_private = false;
  bool allow_any_port = false;
  std::string refused;         // set when the guard refused an address or port
  std::string refused_detail;  // the refused address, for the log only
  std::optional<std::string> retry_after;
  char errbuf[CURL_ERROR_SIZE] = "";
  bool done = false;
  CURLcode result = CURLE_OK;
  // curl enforces the timeout; this only guards against a transfer curl
  // never reports.
  std::chrono::steady_clock::time_point deadline;
};

// Opens the connection's socket only when the address and port curl is
// about to connect to are allowed. The refusal that goes into the delivery
// record names no address (a tenant admin reads it); the log gets that.
curl_socket_t open_socket(void* clientp, curlsocktype purpose, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(clientp);
  if (purpose == CURLSOCKTYPE_IPCXN) {
    const auto* sa = reinterpret_cast<const sockaddr*>(&address->addr);
    uint16_t port = 0;
    if (sa->sa_family == AF_INET) {
      port = ntohs(reinterpret_cast<const sockaddr_in*>(sa)->sin_port);
    } else if (sa->sa_family == AF_INET6) {
      port = ntohs(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port);
    }
    AddressClass c = classify_address(sa);
    if (!address_allowed(c, t->allow_private)) {
      t->refused = std::string("refused to connect: the target ") + kNotPublicTarget +
                   " (webhook targets must be public)";
      std::string kind = address_class_name(c);
      t->refused_detail =
          address_text(sa) + (kind[0] == 'u' ? " is an " : " is a ") + kind + " address";
      return CURL_SOCKET_BAD;
    }
    if (!webhook_port_allowed(port, t->allow_any_port)) {
      t->refused = "refused to connect: port " + std::to_string(port) +
                   " is not allowed (webhook targets must use " + kWebhookPortRule + ")";
      return CURL_SOCKET_BAD;
    }
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

size_t discard_body(char*, size_t size, size_t n, void*) { return size * n; }

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  // A new status line (e.g. after a 100 Continue) starts a new header set.
  if (line.substr(0, 5) == "HTTP/") t->retry_after.reset();
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    bool match = true;
    for (size_t i = 0; i < kName.size() && match; ++i) {
      char c = line[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      match = c == kName[i];
    }
    if (match) t->retry_after = std::string(line.substr(kName.size()));
  }
  return size * n;
}

std::unique_ptr<Transfer> make_transfer(uint64_t tag, WebhookRequest req, int timeout_seconds,
                                        bool allow_private, bool allow_any_port) {
  auto t = std::make_unique<Transfer>();
  t->tag = tag;
  t->req = std::move(req);
  t->allow_private = allow_private;
  t->allow_any_port = allow_any_port;
  t->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds + 5);
  t->easy.reset(curl_easy_init());
  if (!t->easy) return nullptr;
  curl_slist* list = nullptr;
  for (const std::string& h : t->req.headers) list = curl_slist_append(list, h.c_str());
  // No "Expect: 100-continue" round trip for larger bodies.
  list = curl_slist_append(list, "Expect:");
  t->headers.reset(list);
  CURL* e = t->easy.get();
  curl_easy_setopt(e, CURLOPT_URL, t->req.url.c_str());
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->req.body.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->req.body.size()));
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers.get());
  curl_easy_setopt(e, CURLOPT_USERAGENT, kUserAgent);
  curl_easy_setopt(e, CURLOPT_TIMEOUT, static_cast<long>(timeout_seconds));
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_PROXY, "");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_socket);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t.get());
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard_body);
  curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
  return t;
}

WebhookResponse outcome(Transfer& t) {
  WebhookResponse r;
  long status = 0;
  curl_easy_getinfo(t.easy.get(), CURLINFO_RESPONSE_CODE, &status);
  r.status = status;
  r.retry_after = t.retry_after;
  if (!t.done) {
    r.error = "the attempt did not finish in time";
  } else if (t.result != CURLE_OK) {
    if (!t.refused.empty()) {
      r.error = t.refused;
      r.log_detail = t.refused_detail;
    } else if (t.errbuf[0] != '\0') {
      r.error = t.errbuf;
    } else {
      r.error = curl_easy_strerror(t.result);
    }
    // A transfer cut off after the status line still tells the status.
    if (status != 0) r.error += " (after HTTP " + std::to_string(status) + ")";
  } else if (status < 200 || status > 299) {
    r.error = "HTTP " + std::to_string(status);
    if (status >= 300 && status <= 399) r.error += " (redirects are not followed)";
  }
  return r;
}

}  // namespace

struct WebhookSender::State {
  int timeout_seconds = 0;
  bool allow_private = false;
  bool allow_any_port = false;
  CurlMulti multi;
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> transfers;
};

WebhookSender::WebhookSender(int timeout_seconds, bool allow_private_targets, bool allow_any_port)
    : state_(std::make_unique<State>()) {
  state_->timeout_seconds = timeout_seconds;
  state_->allow_private = allow_private_targets;
  state_->allow_any_port = allow_any_port;
  state_->multi.reset(curl_multi_init());
}

WebhookSender::~WebhookSender() {
  for (auto& [easy, t] : state_->transfers) curl_multi_remove_handle(state_->multi.get(), easy);
}

std::optional<WebhookOutcome> WebhookSender::start(uint64_t tag, WebhookRequest req) {
  std::unique_ptr<Transfer> t = make_transfer(tag, std::move(req), state_->timeout_seconds,
                                              state_->allow_private, state_->allow_any_port);
  if (!state_->multi || !t ||
      curl_multi_add_handle(state_->multi.get(), t->easy.get()) != CURLM_OK) {
    WebhookOutcome failed{tag, {}};
    failed.response.error = "could not start the request (out of memory)";
    return failed;
  }
  CURL* easy = t->easy.get();
  state_->transfers.emplace(easy, std::move(t));
  return std::nullopt;
}

size_t WebhookSender::in_flight() const { return state_->transfers.size(); }

// Outcomes of the transfers curl reported done, and of those past their
// deadline; both leave the sender.
std::vector<WebhookOutcome> WebhookSender::collect() {
  std::vector<WebhookOutcome> finished;
  CURLM* multi = state_->multi.get();
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    auto it = state_->transfers.find(msg->easy_handle);
    if (it == state_->transfers.end()) continue;
    it->second->done = true;
    it->second->result = msg->data.result;
  }
  auto now = std::chrono::steady_clock::now();
  for (auto it = state_->transfers.begin(); it != state_->transfers.end();) {
    Transfer& t = *it->second;
    if (!t.done && now < t.deadline) {
      ++it;
      continue;
    }
    finished.push_back(WebhookOutcome{t.tag, outcome(t)});
    curl_multi_remove_handle(multi, it->first);
    it = state_->transfers.erase(it);
  }
  return finished;
}

std::vector<WebhookOutcome> WebhookSender::wait(int wait_ms) {
  if (state_->transfers.empty()) return {};
  CURLM* multi = state_->multi.get();
  int running = 0;
  curl_multi_perform(multi, &running);
  std::vector<WebhookOutcome> finished = collect();
  if (!finished.empty()) return finished;
  // Nothing done yet: sleep until there is socket activity or curl's next
  // timeout. Should curl fail, sleep anyway rather than spin.
  if (curl_multi_poll(multi, nullptr, 0, wait_ms, nullptr) != CURLM_OK) {
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  }
  curl_multi_perform(multi, &running);
  return collect();
}

}  // namespace ca
