// Webhook subscriptions and their deliveries over the stack's API, shared by
// the webhook test files: create a subscription, make events, read and wait
// for its deliveries. Each helper asserts what it needs with gtest.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "stack.h"

namespace ca::test {

// /api/v2/admin/webhooks/{tenant}
std::string webhooks_path(int64_t tenant);

// A subscription as its create answered it (the secret is shown only there).
struct Hook {
  int64_t id = 0;
  std::string secret;
};
// POST /webhooks/{tenant} for `url` and the `events` JSON array (asserts 201).
Hook create_hook(const std::string& token, int64_t tenant, const std::string& url,
                 const std::string& events = R"(["*"])");

// Sets `user`'s role in `tenant`: emits member.role_updated (the cheapest
// event to produce).
void set_role(const std::string& token, int64_t tenant, int64_t user, const std::string& role);
// Emits `n` member.role_updated events: the role goes to ADMIN and back.
void toggle_role(const std::string& token, int64_t tenant, int64_t user, int n);

// The delivery rows of one subscription, newest first (at most 100; asserts 200).
HttpResponse hook_deliveries(const std::string& token, int64_t tenant, int64_t hook);
// Polls (every 100 ms) until the subscription's newest delivery has
// `status`; that delivery, or null (the test failed) at the deadline.
Json wait_newest_delivery(const std::string& token, int64_t tenant, int64_t hook,
                          const std::string& status,
                          std::chrono::seconds timeout = std::chrono::seconds(40));

// The fixture of tests that receive deliveries: libsodium ready (signatures),
// SIGPIPE ignored (a receiver may answer a worker that was killed meanwhile).
class DeliveryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
};

}  // namespace ca::test
