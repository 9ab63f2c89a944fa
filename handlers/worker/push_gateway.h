// The push gateway client: one JSON POST per announcement push.
//
// Stateless; each call uses its own libcurl handle, so it is safe from any
// thread once tasks_init() ran curl_global_init().
#pragma once

#include <string>

#include "config.h"

namespace ca {

struct PushOutcome {
  bool delivered = false;  // the gateway answered 2xx
  std::string error;       // why not, for push_error
};

// POSTs `body` (JSON) to PUSH_GATEWAY_URL with `Authorization: Bearer
// PUSH_GATEWAY_TOKEN` when a token is set, within WEBHOOK_TIMEOUT_SECONDS.
PushOutcome push_gateway_send(const Config& config, const std::string& body);

}  // namespace ca
