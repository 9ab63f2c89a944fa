// Sending one batch of webhook requests: concurrent signed POSTs with
// libcurl's multi interface, each bounded by the configured timeout.
//
// The SSRF guard is applied to the address each connection is actually
// opened to (CURLOPT_OPENSOCKETFUNCTION), after curl's own DNS resolution,
// so a name that resolved to a public address when the subscription was
// created but points inside the network now is refused, and no second lookup
// can differ from the checked one. Redirects are never followed and
// environment proxies are ignored (the guard must see the real target).
//
// Not thread-safe per call; call from one thread (curl_global_init first).
#pragma once

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
  bool delivered() const { return error.empty(); }
};

// Sends every request at once and waits for all of them; results are in
// request order. A 2xx status is a delivery; anything else is an error text.
std::vector<WebhookResponse> send_webhook_batch(const std::vector<WebhookRequest>& batch,
                                                int timeout_seconds, bool allow_private_targets);

}  // namespace ca
