#include "webhook_http.h"

#include <curl/curl.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>

#include "net_guard.h"

namespace ca {
namespace {

constexpr const char* kUserAgent = "commerce-admin-webhooks";

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct MultiDeleter {
  void operator()(CURLM* m) const { curl_multi_cleanup(m); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// One request in flight. Heap-allocated so curl's callback pointers stay valid.
struct Transfer {
  std::unique_ptr<CURL, EasyDeleter> easy;
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  bool allow_private = false;
  std::string refused;  // set when the guard refused an address
  std::optional<std::string> retry_after;
  char errbuf[CURL_ERROR_SIZE] = "";
  bool done = false;
  CURLcode result = CURLE_OK;
};

// Opens the connection's socket only when the address curl is about to
// connect to is allowed.
curl_socket_t open_socket(void* clientp, curlsocktype purpose, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(clientp);
  if (purpose == CURLSOCKTYPE_IPCXN) {
    const auto* sa = reinterpret_cast<const sockaddr*>(&address->addr);
    AddressClass c = classify_address(sa);
    if (!address_allowed(c, t->allow_private)) {
      t->refused =
          std::string("refused to connect to ") + address_text(sa) + ": a " +
          address_class_name(c) +
          " address (webhook targets must be public; WEBHOOK_ALLOW_PRIVATE_TARGETS is off)";
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

std::unique_ptr<Transfer> make_transfer(const WebhookRequest& req, int timeout_seconds,
                                        bool allow_private) {
  auto t = std::make_unique<Transfer>();
  t->allow_private = allow_private;
  t->easy.reset(curl_easy_init());
  if (!t->easy) return nullptr;
  curl_slist* list = nullptr;
  for (const std::string& h : req.headers) list = curl_slist_append(list, h.c_str());
  // No "Expect: 100-continue" round trip for larger bodies.
  list = curl_slist_append(list, "Expect:");
  t->headers.reset(list);
  CURL* e = t->easy.get();
  curl_easy_setopt(e, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, req.body.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
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

std::vector<WebhookResponse> send_webhook_batch(const std::vector<WebhookRequest>& batch,
                                                int timeout_seconds, bool allow_private_targets) {
  std::vector<WebhookResponse> out(batch.size());
  std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());
  std::vector<std::unique_ptr<Transfer>> transfers(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    transfers[i] = make_transfer(batch[i], timeout_seconds, allow_private_targets);
    if (!multi || !transfers[i] || curl_multi_add_handle(multi.get(), transfers[i]->easy.get())) {
      transfers[i].reset();
      out[i].error = "could not start the request (out of memory)";
    }
  }
  if (multi) {
    // curl enforces each transfer's timeout; the deadline only guards
    // against a stuck loop.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds + 5);
    int running = 0;
    curl_multi_perform(multi.get(), &running);
    while (running > 0 && std::chrono::steady_clock::now() < deadline) {
      curl_multi_poll(multi.get(), nullptr, 0, 200, nullptr);
      curl_multi_perform(multi.get(), &running);
    }
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi.get(), &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      char* priv = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
      auto* t = reinterpret_cast<Transfer*>(priv);
      if (t == nullptr) continue;
      t->done = true;
      t->result = msg->data.result;
    }
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!transfers[i]) continue;
    out[i] = outcome(*transfers[i]);
    curl_multi_remove_handle(multi.get(), transfers[i]->easy.get());
  }
  return out;
}

}  // namespace ca
