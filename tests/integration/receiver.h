// A local HTTP receiver for tests of outgoing calls (webhooks, push).
//
// Listens on 127.0.0.1 on a free port, answers every request with the next
// programmed status (default 200), and records what it received. One
// connection at a time, `Connection: close` on every answer. Thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ca::test {

struct ReceivedRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::chrono::steady_clock::time_point at;
};

struct Reply {
  int status = 200;
  std::string body = "{}";
  std::vector<std::string> headers{};  // extra "Name: value" lines
  int delay_ms = 0;                    // wait before answering (timeouts)
};

class Receiver {
 public:
  // `port` 0 picks a free port; a fixed one serves a gateway whose address
  // the stack was started with (push: CA_PUSH_GATEWAY_PORT).
  explicit Receiver(int port = 0);
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "/hook") const;

  // Replies used in order for the next requests; afterwards `fallback`.
  void script(std::vector<Reply> replies);
  void set_fallback(Reply reply);

  // Waits until at least `n` requests arrived or `timeout` passed.
  bool wait_for(size_t n, std::chrono::milliseconds timeout);
  std::vector<ReceivedRequest> requests();

 private:
  void serve();
  void handle(int fd);

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Reply> script_;
  Reply fallback_;
  std::vector<ReceivedRequest> requests_;
};

// An independent Standard Webhooks verifier (libsodium directly, not the
// product's code; sodium_init() first): `webhook-signature` checked the way
// a receiver would, for `secret` ("whsec_<base64>").
::testing::AssertionResult signature_valid(const ReceivedRequest& req, const std::string& secret);

}  // namespace ca::test
