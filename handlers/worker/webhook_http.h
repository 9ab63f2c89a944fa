// Sending webhook requests: concurrent signed POSTs with libcurl's multi
// interface, each bounded by the configured timeout. Requests are started
// one at a time and come back as they finish, so a slow receiver holds one
// slot, not a whole batch.
//
// The SSRF guard is applied to the address and port each connection is
// actually opened to (CURLOPT_OPENSOCKETFUNCTION), after curl's own DNS resolution,
// so a name that resolved to a public address when the subscription was
// created but points inside the network now is refused, and no second lookup
// can differ from the checked one. Redirects are never followed and
// environment proxies are ignored (the guard must see the real target).
//
// Not thread-safe; use a sender from one thread (curl_global_init first).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ca {

struct WebhookRequest {
  std::string url;
  std::string body;
  std::vector<std::string> headers;  // "Name: value"
};

struct WebhookResponse {
  long status = 0;                         // HTTP status; 0 when there was no response
  std::string error;                       // why it failed; empty when delivered
  std::optional<std::string> retry_after;  // the Retry-After header, when sent
  std::string log_detail;                  // for the worker's log only, never recorded
  bool delivered() const { return error.empty(); }
};

// A finished request: the tag it was started with, and its outcome.
struct WebhookOutcome {
  uint64_t tag = 0;
  WebhookResponse response;
};

class WebhookSender {
 public:
  WebhookSender(int timeout_seconds, bool allow_private_targets, bool allow_any_port);
  ~WebhookSender();
  WebhookSender(const WebhookSender&) = delete;
  WebhookSender& operator=(const WebhookSender&) = delete;

  // Starts sending `req`. Its outcome comes back from wait() with `tag`, or
  // at once, with an error, when the transfer cannot be started.
  std::optional<WebhookOutcome> start(uint64_t tag, WebhookRequest req);
  // Requests started whose outcome wait() has not returned yet.
  size_t in_flight() const;
  // Lets the transfers run for up to `wait_ms` (less when one finishes) and
  // returns those that finished: a 2xx status is a delivery, anything else an
  // error text.
  std::vector<WebhookOutcome> wait(int wait_ms);

 private:
  std::vector<WebhookOutcome> collect();

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ca
