#include "webhook_helpers.h"

#include <signal.h>
#include <sodium.h>

#include <cstdlib>
#include <thread>

namespace ca::test {

std::string webhooks_path(int64_t tenant) { return "/api/v2/admin/webhooks/" + to_string(tenant); }

Hook create_hook(const std::string& token, int64_t tenant, const std::string& url,
                 const std::string& events) {
  HttpResponse r =
      http("POST", webhooks_path(tenant),
           {.token = token, .body = R"({"url":")" + url + R"(","events":)" + events + "}"});
  EXPECT_EQ(r.status, 201) << r.body;
  return Hook{r.integer("id"), r.str("secret")};
}

void set_role(const std::string& token, int64_t tenant, int64_t user, const std::string& role) {
  HttpResponse r =
      http("POST", "/api/v2/admin/team-members/" + to_string(tenant) + "/" + to_string(user),
           {.token = token, .body = R"({"role":")" + role + R"("})"});
  ASSERT_EQ(r.status, 200) << r.body;
}

void toggle_role(const std::string& token, int64_t tenant, int64_t user, int n) {
  for (int i = 0; i < n; ++i) set_role(token, tenant, user, i % 2 ? "MEMBER" : "ADMIN");
}

HttpResponse hook_deliveries(const std::string& token, int64_t tenant, int64_t hook) {
  HttpResponse r =
      http("GET", webhooks_path(tenant) + "/deliveries?per_page=100&webhook_id=" + to_string(hook),
           {.token = token});
  EXPECT_EQ(r.status, 200) << r.body;
  return r;
}

Json wait_newest_delivery(const std::string& token, int64_t tenant, int64_t hook,
                          const std::string& status, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    HttpResponse r = hook_deliveries(token, tenant, hook);
    const cJSON* first = cJSON_GetArrayItem(r["data"], 0);
    if (first != nullptr) {
      last = json_dump(first);
      if (json_get_str(first, "status") == status) return Json(cJSON_Duplicate(first, true));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "no delivery of webhook " << hook << " became " << status
                << "; last seen: " << last;
  return nullptr;
}

void DeliveryTest::SetUpTestSuite() {
  if (sodium_init() < 0) std::abort();
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace ca::test
