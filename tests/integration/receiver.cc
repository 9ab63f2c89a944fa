#include "receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <stdexcept>

namespace ca::test {

Receiver::Receiver(int port) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 64) != 0) {
    throw std::runtime_error("receiver: cannot listen");
  }
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

Receiver::~Receiver() {
  stop_.store(true);
  thread_.join();
  close(listen_fd_);
}

std::string Receiver::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void Receiver::script(std::vector<Reply> replies) {
  std::lock_guard<std::mutex> lock(mu_);
  script_.assign(replies.begin(), replies.end());
}

void Receiver::set_fallback(Reply reply) {
  std::lock_guard<std::mutex> lock(mu_);
  fallback_ = std::move(reply);
}

bool Receiver::wait_for(size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
}

std::vector<ReceivedRequest> Receiver::requests() {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void Receiver::serve() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    handle(fd);
    close(fd);
  }
}

void Receiver::handle(int fd) {
  std::string data;
  char buf[8192];
  size_t header_end = std::string::npos;
  size_t content_length = 0;
  ReceivedRequest req;
  // Read until the headers and the announced body are complete (5 s cap).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (header_end == std::string::npos) {
      header_end = data.find("\r\n\r\n");
      if (header_end == std::string::npos) continue;
      size_t line_end = data.find("\r\n");
      std::string line = data.substr(0, line_end);
      size_t sp1 = line.find(' ');
      size_t sp2 = line.find(' ', sp1 + 1);
      req.method = line.substr(0, sp1);
      req.path = line.substr(sp1 + 1, sp2 - sp1 - 1);
      size_t pos = line_end + 2;
      while (pos < header_end) {
        size_t eol = data.find("\r\n", pos);
        std::string h = data.substr(pos, eol - pos);
        size_t colon = h.find(':');
        if (colon != std::string::npos) {
          std::string name = h.substr(0, colon);
          for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          std::string value = h.substr(colon + 1);
          while (!value.empty() && value.front() == ' ') value.erase(0, 1);
          req.headers[name] = value;
        }
        pos = eol + 2;
      }
      if (req.headers.count("content-length")) {
        content_length = std::strtoul(req.headers["content-length"].c_str(), nullptr, 10);
      }
    }
    if (header_end != std::string::npos && data.size() >= header_end + 4 + content_length) break;
  }
  if (header_end == std::string::npos) return;
  req.body = data.substr(header_end + 4, content_length);
  req.at = std::chrono::steady_clock::now();

  Reply reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!script_.empty()) {
      reply = script_.front();
      script_.pop_front();
    } else {
      reply = fallback_;
    }
    requests_.push_back(req);
  }
  cv_.notify_all();
  if (reply.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
  std::string out =
      "HTTP/1.1 " + std::to_string(reply.status) + " X\r\nContent-Type: application/json\r\n";
  for (const std::string& h : reply.headers) out += h + "\r\n";
  out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\nConnection: close\r\n\r\n";
  out += reply.body;
  ssize_t ignored = write(fd, out.data(), out.size());
  (void)ignored;
}

// Checks `webhook-signature` the way a receiver would: key = base64-decoded
// secret after "whsec_", MAC = HMAC-SHA256 over "{id}.{timestamp}.{body}",
// any of the space-separated "v1,<base64>" entries may match, and the
// timestamp must be within 5 minutes.
::testing::AssertionResult signature_valid(const ReceivedRequest& req, const std::string& secret) {
  auto header = [&](const char* name) {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? std::string() : it->second;
  };
  std::string id = header("webhook-id"), ts = header("webhook-timestamp");
  std::string sigs = header("webhook-signature");
  if (id.empty() || ts.empty() || sigs.empty()) {
    return ::testing::AssertionFailure() << "missing webhook-* headers";
  }
  if (secret.rfind("whsec_", 0) != 0) return ::testing::AssertionFailure() << "secret " << secret;
  std::string b64 = secret.substr(6);
  unsigned char key[64];
  size_t key_len = 0;
  if (sodium_base642bin(key, sizeof key, b64.data(), b64.size(), nullptr, &key_len, nullptr,
                        sodium_base64_VARIANT_ORIGINAL) != 0 ||
      key_len != crypto_auth_hmacsha256_KEYBYTES) {
    return ::testing::AssertionFailure() << "secret is not base64 of 32 bytes: " << secret;
  }
  std::string signed_content = id + "." + ts + "." + req.body;
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256(mac, reinterpret_cast<const unsigned char*>(signed_content.data()),
                         signed_content.size(), key);
  char expected[sodium_base64_ENCODED_LEN(crypto_auth_hmacsha256_BYTES,
                                          sodium_base64_VARIANT_ORIGINAL)];
  sodium_bin2base64(expected, sizeof expected, mac, sizeof mac, sodium_base64_VARIANT_ORIGINAL);
  long long sent = std::atoll(ts.c_str());
  long long now = static_cast<long long>(std::time(nullptr));
  if (sent < now - 300 || sent > now + 300) {
    return ::testing::AssertionFailure() << "webhook-timestamp " << ts << " is not near " << now;
  }
  std::istringstream entries(sigs);
  std::string entry;
  while (entries >> entry) {
    if (entry == std::string("v1,") + expected) return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "signature " << sigs << " != v1," << expected;
}

}  // namespace ca::test
