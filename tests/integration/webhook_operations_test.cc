// Issue 41 over the real stack: the events feed (paging, filter, the
// webhook body's data), and the webhook operations: update, secret
// rotation (both signatures during the window, the new one alone after),
// redelivery (the same webhook-id), test events (to one subscription), the
// bound on both, and automatic disabling (small thresholds, a worker of
// the test's own).
#include <gtest/gtest.h>
#include <signal.h>
#include <sodium.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "mailbox.h"
#include "receiver.h"
#include "stack.h"
#include "webhook_helpers.h"

namespace ca::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::regex kTimestamp(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$)");

std::string hook_path(int64_t tenant, int64_t hook) {
  return webhooks_path(tenant) + "/" + to_string(hook);
}
std::string events_path(int64_t tenant, const std::string& query = "") {
  return "/api/v2/admin/events/" + to_string(tenant) + query;
}

// Polls until the delivery `id` has `status` (or the deadline).
Json wait_delivery(const std::string& token, int64_t tenant, int64_t hook, int64_t id,
                   const std::string& status, std::chrono::seconds timeout = 40s) {
  auto deadline = Clock::now() + timeout;
  std::string last;
  while (Clock::now() < deadline) {
    HttpResponse r = hook_deliveries(token, tenant, hook);
    for (const cJSON* d = r["data"] ? r["data"]->child : nullptr; d != nullptr; d = d->next) {
      if (json_get_int(d, "id") != id) continue;
      last = json_dump(d);
      if (json_get_str(d, "status") == status) return Json(cJSON_Duplicate(d, true));
    }
    std::this_thread::sleep_for(100ms);
  }
  ADD_FAILURE() << "delivery " << id << " did not become " << status << "; last seen: " << last;
  return nullptr;
}

std::string header(const ReceivedRequest& r, const char* name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

std::vector<int64_t> ids_of(const cJSON* array) {
  std::vector<int64_t> out;
  for (const cJSON* e = array ? array->child : nullptr; e != nullptr; e = e->next) {
    out.push_back(json_get_int(e, "id").value_or(-1));
  }
  return out;
}

std::vector<std::string> types_of(const cJSON* array) {
  std::vector<std::string> out;
  for (const cJSON* e = array ? array->child : nullptr; e != nullptr; e = e->next) {
    out.emplace_back(json_get_str(e, "type").value_or("?"));
  }
  return out;
}

class WebhookOperationsTest : public DeliveryTest {};

// ---------------------------------------------------------------------------------
// Events feed
// ---------------------------------------------------------------------------------

TEST_F(WebhookOperationsTest, EventsFeedPagesOldestFirstWithTheWebhookBodysData) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  TestUser member = add_user(admin, tenant, "MEMBER");  // user.registered
  toggle_role(admin, tenant, member.id, 4);             // 4 x member.role_updated
  // Another tenant's events never show.
  int64_t other = create_tenant(admin);
  add_user(admin, other, "MEMBER");

  HttpResponse all = http("GET", events_path(tenant), {.token = admin});
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(json_keys(all.json.get()),
            (std::vector<std::string>{"data", "has_more", "next_after"}));
  EXPECT_EQ(
      types_of(all["data"]),
      (std::vector<std::string>{"user.registered", "member.role_updated", "member.role_updated",
                                "member.role_updated", "member.role_updated"}));
  std::vector<int64_t> ids = ids_of(all["data"]);
  ASSERT_EQ(ids.size(), 5u);
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_LT(ids[i - 1], ids[i]);
  EXPECT_TRUE(cJSON_IsFalse(all["has_more"]));
  EXPECT_EQ(all.integer("next_after"), ids.back());
  const cJSON* first = cJSON_GetArrayItem(all["data"], 0);
  EXPECT_EQ(json_keys(first), (std::vector<std::string>{"created_at", "data", "id", "type"}));
  EXPECT_TRUE(
      std::regex_match(std::string(json_get_str(first, "created_at").value_or("")), kTimestamp));
  const cJSON* last_data = json_get(cJSON_GetArrayItem(all["data"], 4), "data");
  EXPECT_TRUE(json_eq(last_data, R"({"tenant_id":)" + to_string(tenant) + R"(,"user_id":)" +
                                     to_string(member.id) +
                                     R"(,"role":"MEMBER","name":"Test User",)"
                                     R"("email":")" +
                                     member.email + R"(","previous_role":"ADMIN"})"));

  // The same data, byte for byte, as the webhook body's.
  ASSERT_TRUE(receiver.wait_for(1, 30s));
  Json body = json_parse(receiver.requests()[0].body);
  ASSERT_TRUE(body);
  EXPECT_EQ(json_dump(json_get(first, "data")), json_dump(json_get(body.get(), "data")));
  EXPECT_EQ(json_get_str(first, "created_at"), json_get_str(body.get(), "timestamp"));

  // Pages of 2 along next_after.
  std::vector<int64_t> paged;
  std::string after = "0";
  for (int page = 0; page < 3; ++page) {
    HttpResponse r = http("GET", events_path(tenant, "?limit=2&after=" + after), {.token = admin});
    ASSERT_EQ(r.status, 200) << r.body;
    for (int64_t id : ids_of(r["data"])) paged.push_back(id);
    EXPECT_EQ(cJSON_IsTrue(r["has_more"]), page < 2) << r.body;
    after = to_string(r.integer("next_after"));
  }
  EXPECT_EQ(paged, ids);
  HttpResponse end = http("GET", events_path(tenant, "?after=" + after), {.token = admin});
  ASSERT_EQ(end.status, 200) << end.body;
  EXPECT_EQ(end.body, R"({"data":[],"has_more":false,"next_after":null})");
  // A limit above 100 is clamped, as per_page is.
  HttpResponse big = http("GET", events_path(tenant, "?limit=1000"), {.token = admin});
  ASSERT_EQ(big.status, 200) << big.body;
  EXPECT_EQ(ids_of(big["data"]), ids);
}

TEST_F(WebhookOperationsTest, EventsFeedFiltersByTypes) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser a = add_user(admin, tenant, "MEMBER");
  toggle_role(admin, tenant, a.id, 2);
  add_user(admin, tenant, "MEMBER");
  HttpResponse joined =
      http("GET", events_path(tenant, "?types=user.registered"), {.token = admin});
  ASSERT_EQ(joined.status, 200) << joined.body;
  EXPECT_EQ(types_of(joined["data"]),
            (std::vector<std::string>{"user.registered", "user.registered"}));
  HttpResponse paged =
      http("GET", events_path(tenant, "?types=user.registered&limit=1"), {.token = admin});
  EXPECT_EQ(ids_of(paged["data"]).size(), 1u);
  EXPECT_TRUE(cJSON_IsTrue(paged["has_more"]));
  HttpResponse next = http(
      "GET",
      events_path(tenant, "?types=user.registered&after=" + to_string(paged.integer("next_after"))),
      {.token = admin});
  EXPECT_EQ(types_of(next["data"]), (std::vector<std::string>{"user.registered"}));
  EXPECT_TRUE(cJSON_IsFalse(next["has_more"]));
  // Several types (repeats ignored), merged in id order.
  HttpResponse both =
      http("GET", events_path(tenant, "?types=member.role_updated,user.registered,user.registered"),
           {.token = admin});
  ASSERT_EQ(both.status, 200) << both.body;
  EXPECT_EQ(types_of(both["data"]),
            (std::vector<std::string>{"user.registered", "member.role_updated",
                                      "member.role_updated", "user.registered"}));
  HttpResponse none = http("GET", events_path(tenant, "?types=order.created"), {.token = admin});
  EXPECT_EQ(none.body, R"({"data":[],"has_more":false,"next_after":null})");
}

// 100 of the largest events would be about 20 MB: a page stops before the
// event that would take it past 4 MiB, and says there is more.
TEST_F(WebhookOperationsTest, EventsFeedAnswersStopAt4MiB) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  // 65,536 characters (the field's maximum), 131,072 bytes as JSON: each `"`
  // is written `\"`.
  const std::string content = repeat("\\\"", 65536);
  const int events = 40;  // 40 x 131 KB: 5.2 MB
  for (int i = 0; i < events; ++i) {
    HttpResponse r = http("POST", "/api/v2/admin/announcements",
                          {.token = admin,
                           .tenant = to_string(tenant),
                           .body = R"({"title":"Big","type":"info","status":"published",)"
                                   R"("content":")" +
                                   content + R"("})"});
    ASSERT_EQ(r.status, 201) << r.body.substr(0, 200);
  }
  HttpResponse first = http("GET", events_path(tenant, "?limit=100"), {.token = admin});
  ASSERT_EQ(first.status, 200) << first.body.substr(0, 200);
  EXPECT_LE(first.body.size(), 4u * 1024 * 1024);
  size_t got = ids_of(first["data"]).size();
  EXPECT_GT(got, 20u);
  EXPECT_LT(got, static_cast<size_t>(events));
  EXPECT_TRUE(cJSON_IsTrue(first["has_more"]));
  EXPECT_EQ(first.integer("next_after"), ids_of(first["data"]).back());
  HttpResponse rest =
      http("GET", events_path(tenant, "?limit=100&after=" + to_string(first.integer("next_after"))),
           {.token = admin});
  ASSERT_EQ(rest.status, 200);
  EXPECT_EQ(got + ids_of(rest["data"]).size(), static_cast<size_t>(events));
  EXPECT_TRUE(cJSON_IsFalse(rest["has_more"]));
}

TEST_F(WebhookOperationsTest, EventsFeedValidatesItsParameters) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  const std::string types_error =
      R"("types":["The types field must be a comma-separated list of known event types."])";
  for (const char* bad : {"?types=order.shipped", "?types=", "?types=*", "?types=user.registered,",
                          "?types=webhook.test"}) {
    HttpResponse r = http("GET", events_path(tenant, bad), {.token = admin});
    expect_body(r, 422,
                R"({"message":"The given data was invalid.","errors":{)" + types_error + "}}");
  }
  HttpResponse all =
      http("GET", events_path(tenant, "?after=-1&limit=0&types=x"), {.token = admin});
  expect_body(all, 422,
              R"({"message":"The given data was invalid.","errors":{)"
              R"("after":["The after field must be an integer of at least 0."],)"
              R"("limit":["The limit field must be an integer of at least 1."],)" +
                  types_error + "}}");
  HttpResponse text = http("GET", events_path(tenant, "?after=abc"), {.token = admin});
  expect_body(text, 422,
              R"({"message":"The given data was invalid.","errors":{)"
              R"("after":["The after field must be an integer of at least 0."]}})");
}

TEST_F(WebhookOperationsTest, EventsFeedNeedsAnAdminOfAnExistingTenant) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  std::string stranger = add_user(admin, create_tenant(admin), "ADMIN").token;
  EXPECT_TRUE(is_unauthenticated(http("GET", events_path(tenant))));
  expect_body(http("GET", events_path(tenant), {.token = member.token}), 403,
              R"({"error":"This action requires the ADMIN role"})");
  expect_body(http("GET", events_path(tenant), {.token = stranger}), 403,
              R"({"error":"You are not a member of this tenant"})");
  expect_body(http("GET", "/api/v2/admin/events/999999999", {.token = admin}), 404,
              R"({"error":"Tenant not found"})");
}

// ---------------------------------------------------------------------------------
// Update and rotation
// ---------------------------------------------------------------------------------

TEST_F(WebhookOperationsTest, UpdateChangesTheSentFieldsAndDisablingStopsNewDeliveries) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, "http://example.com/old", R"(["order.created"])");

  HttpResponse r = http("POST", hook_path(tenant, hook.id),
                        {.token = admin,
                         .body = R"({"url":")" + receiver.url() +
                                 R"(","events":["member.role_updated"],"description":" ERP "})"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_keys(r.json.get()),
            (std::vector<std::string>{"created_at", "description", "disabled_at", "disabled_reason",
                                      "events", "id", "is_active", "updated_at", "url"}));
  EXPECT_EQ(r.integer("id"), hook.id);
  EXPECT_EQ(r.str("url"), receiver.url());
  EXPECT_EQ(json_dump(r["events"]), R"(["member.role_updated"])");
  EXPECT_EQ(r.str("description"), "ERP");
  EXPECT_TRUE(cJSON_IsTrue(r["is_active"]));
  EXPECT_TRUE(cJSON_IsNull(r["disabled_at"]));
  EXPECT_TRUE(cJSON_IsNull(r["disabled_reason"]));

  // Fields not sent stay; description null clears it.
  HttpResponse keep =
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"description":null})"});
  ASSERT_EQ(keep.status, 200) << keep.body;
  EXPECT_EQ(keep.str("url"), receiver.url());
  EXPECT_TRUE(cJSON_IsNull(keep["description"]));

  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(receiver.wait_for(1, 30s));

  HttpResponse off =
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"is_active":false})"});
  ASSERT_EQ(off.status, 200) << off.body;
  EXPECT_TRUE(cJSON_IsFalse(off["is_active"]));
  EXPECT_TRUE(std::regex_match(off.str("disabled_at"), kTimestamp)) << off.body;
  EXPECT_EQ(off.str("disabled_reason"), "Disabled by an ADMIN");
  set_role(admin, tenant, member.id, "MEMBER");
  EXPECT_EQ(hook_deliveries(admin, tenant, hook.id).integer("total"), 1);
  // It is listed as it is.
  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  EXPECT_EQ(json_dump(cJSON_GetArrayItem(list["data"], 0)), off.body);

  HttpResponse on =
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"is_active":true})"});
  ASSERT_EQ(on.status, 200) << on.body;
  EXPECT_TRUE(cJSON_IsTrue(on["is_active"]));
  EXPECT_TRUE(cJSON_IsNull(on["disabled_at"]));
  EXPECT_TRUE(cJSON_IsNull(on["disabled_reason"]));
  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(receiver.wait_for(2, 30s));
  EXPECT_EQ(hook_deliveries(admin, tenant, hook.id).integer("total"), 2);
}

TEST_F(WebhookOperationsTest, DisablingFailsThePendingDeliveriesAndANewUrlTakesThemOver) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  Hook moved =
      create_hook(admin, tenant, "http://127.0.0.1:1024/old", R"(["member.role_updated"])");
  Hook stopped = create_hook(admin, tenant, receiver.url("/stopped"), R"(["member.role_updated"])");
  StackWorkerPause pause;
  set_role(admin, tenant, member.id, "ADMIN");  // one pending row for each
  ASSERT_EQ(http("POST", hook_path(tenant, moved.id),
                 {.token = admin, .body = R"({"url":")" + receiver.url("/new") + R"("})"})
                .status,
            200);
  ASSERT_EQ(http("POST", hook_path(tenant, stopped.id),
                 {.token = admin, .body = R"({"is_active":false})"})
                .status,
            200);
  pause.resume();
  Json failed = wait_newest_delivery(admin, tenant, stopped.id, "failed");
  ASSERT_TRUE(failed);
  EXPECT_EQ(json_get_str(failed.get(), "error"), "webhook disabled");
  EXPECT_EQ(json_get_int(failed.get(), "attempts"), 0);
  Json delivered = wait_newest_delivery(admin, tenant, moved.id, "delivered");
  ASSERT_TRUE(delivered);
  EXPECT_EQ(json_get_str(delivered.get(), "url"), receiver.url("/new"));
  ASSERT_EQ(receiver.requests().size(), 1u);
  EXPECT_EQ(receiver.requests()[0].path, "/new");
}

TEST_F(WebhookOperationsTest, UpdateValidatesLikeCreateAndFindsOnlyTheTenantsWebhooks) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Hook hook = create_hook(admin, tenant, "http://example.com/hook");
  Hook foreign = create_hook(admin, create_tenant(admin), "http://example.com/foreign");

  HttpResponse bad =
      http("POST", hook_path(tenant, hook.id),
           {.token = admin,
            .body = R"({"url":"ftp://example.com","events":["nope"],"description":)" +
                    json_text(repeat("d", 501)) + R"(,"is_active":"yes"})"});
  expect_body(bad, 422,
              R"({"message":"The given data was invalid.","errors":{)"
              R"("events.0":["The selected events.0 is invalid."],)"
              R"("description":["The description field must not be greater than 500 characters."],)"
              R"("is_active":["The is_active field must be true or false."],)"
              R"("url":["The url field must use http or https."]}})");
  HttpResponse empty_events =
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"events":[]})"});
  expect_body(empty_events, 422,
              R"({"message":"The given data was invalid.","errors":{)"
              R"("events":["The events field must contain at least 1 item."]}})");
  HttpResponse not_json = http("POST", hook_path(tenant, hook.id), {.token = admin, .body = "[1]"});
  EXPECT_EQ(not_json.status, 400) << not_json.body;

  expect_body(http("POST", hook_path(tenant, foreign.id), {.token = admin, .body = "{}"}), 404,
              R"({"error":"Webhook not found"})");
  ASSERT_EQ(
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(hook.id), {.token = admin}).status,
      200);
  expect_body(http("POST", hook_path(tenant, hook.id), {.token = admin, .body = "{}"}), 404,
              R"({"error":"Webhook not found"})");
  expect_body(http("POST", hook_path(tenant, hook.id) + "/rotate-secret", {.token = admin}), 404,
              R"({"error":"Webhook not found"})");
  // Nothing of the other tenant's changed.
  EXPECT_EQ(sql("SELECT url FROM webhooks WHERE id = " + to_string(foreign.id)),
            (std::vector<std::string>{"http://example.com/foreign"}));
}

TEST_F(WebhookOperationsTest, EveryNewOperationNeedsAnAdminOfTheTenant) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Hook hook = create_hook(admin, tenant, "http://example.com/hook");
  TestUser member = add_user(admin, tenant, "MEMBER");  // a delivery
  std::string stranger = add_user(admin, create_tenant(admin), "ADMIN").token;
  std::string delivery =
      sql("SELECT id FROM webhook_deliveries WHERE tenant_id = " + to_string(tenant) +
          " ORDER BY id LIMIT 1")[0];
  struct Op {
    std::string path;
    std::optional<std::string> body;
  };
  const Op ops[] = {
      {hook_path(tenant, hook.id), R"({"description":"x"})"},
      {hook_path(tenant, hook.id) + "/rotate-secret", std::nullopt},
      {hook_path(tenant, hook.id) + "/test", std::nullopt},
      {webhooks_path(tenant) + "/deliveries/" + delivery + "/redeliver", std::nullopt},
  };
  for (const Op& op : ops) {
    SCOPED_TRACE(op.path);
    EXPECT_TRUE(is_unauthenticated(http("POST", op.path, {.body = op.body})));
    expect_body(http("POST", op.path, {.token = member.token, .body = op.body}), 403,
                R"({"error":"This action requires the ADMIN role"})");
    expect_body(http("POST", op.path, {.token = stranger, .body = op.body}), 403,
                R"({"error":"You are not a member of this tenant"})");
  }
  EXPECT_EQ(sql("SELECT count(*) FROM webhook_deliveries WHERE tenant_id = " + to_string(tenant)),
            (std::vector<std::string>{"1"}));
  EXPECT_EQ(sql("SELECT description IS NULL AND previous_secret IS NULL FROM webhooks "
                "WHERE id = " +
                to_string(hook.id)),
            (std::vector<std::string>{"t"}));
}

TEST_F(WebhookOperationsTest, RotatedSecretSignsBesideTheOldOneFor24Hours) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["member.role_updated"])");

  HttpResponse rotated =
      http("POST", hook_path(tenant, hook.id) + "/rotate-secret", {.token = admin});
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  EXPECT_EQ(json_keys(rotated.json.get()), (std::vector<std::string>{"id", "secret"}));
  EXPECT_EQ(rotated.integer("id"), hook.id);
  std::string fresh = rotated.str("secret");
  ASSERT_EQ(fresh.rfind("whsec_", 0), 0u);
  EXPECT_NE(fresh, hook.secret);
  // Never shown again.
  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  EXPECT_EQ(list.body.find("whsec_"), std::string::npos);

  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(receiver.wait_for(1, 30s));
  ReceivedRequest during = receiver.requests()[0];
  std::string sigs = header(during, "webhook-signature");
  EXPECT_EQ(std::count(sigs.begin(), sigs.end(), ' '), 1) << sigs;
  EXPECT_TRUE(signature_valid(during, fresh));
  EXPECT_TRUE(signature_valid(during, hook.secret));

  // 24 h later (moved back in SQL): the new secret alone.
  sql("UPDATE webhooks SET previous_secret_until = now() - interval '1 second' WHERE id = " +
      to_string(hook.id));
  set_role(admin, tenant, member.id, "MEMBER");
  ASSERT_TRUE(receiver.wait_for(2, 30s));
  ReceivedRequest after = receiver.requests()[1];
  EXPECT_EQ(header(after, "webhook-signature").find(' '), std::string::npos);
  EXPECT_TRUE(signature_valid(after, fresh));
  EXPECT_FALSE(signature_valid(after, hook.secret));
}

// The stock Standard Webhooks verifier (the `standardwebhooks` npm package,
// 1.1.1, installed once into the stack's state directory): runs
// `new Webhook(secret).verify(body, headers)` for every case; a case with
// `must_fail` must throw. The output of node, or "" when everything held.
struct StockCase {
  ReceivedRequest request;
  std::string secret;
  bool must_fail = false;
};
std::string stock_verifier_errors(const std::vector<StockCase>& cases) {
  const std::string dir = state_dir() + "/standardwebhooks";
  if (file_text(dir + "/node_modules/standardwebhooks/package.json").empty()) {
    std::string install = "npm install --silent --no-audit --no-fund --prefix " + shell_quote(dir) +
                          " standardwebhooks@1.1.1 >" + shell_quote(dir + ".log") + " 2>&1";
    if (std::system(("/bin/bash -c " + shell_quote(install)).c_str()) != 0) {
      return "npm install failed: " + file_text(dir + ".log");
    }
  }
  Json all = json_array();
  for (const StockCase& c : cases) {
    Json one = json_object();
    Json headers = json_object();
    json_add_str(headers.get(), "webhook-id", header(c.request, "webhook-id"));
    json_add_str(headers.get(), "webhook-timestamp", header(c.request, "webhook-timestamp"));
    json_add_str(headers.get(), "webhook-signature", header(c.request, "webhook-signature"));
    json_add(one.get(), "headers", std::move(headers));
    json_add_str(one.get(), "body", c.request.body);
    json_add_str(one.get(), "secret", c.secret);
    json_add(one.get(), "must_fail", Json(cJSON_CreateBool(c.must_fail)));
    json_append(all.get(), std::move(one));
  }
  const std::string cases_file = dir + "-cases-" + unique("c") + ".json";
  FILE* f = std::fopen(cases_file.c_str(), "w");
  if (f == nullptr) return "cannot write " + cases_file;
  std::string text = json_dump(all.get());
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  const std::string script = R"(
const {Webhook} = require(process.argv[1] + '/node_modules/standardwebhooks');
const cases = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
cases.forEach((c, i) => {
  let ok = true;
  try { new Webhook(c.secret).verify(c.body, c.headers); } catch (e) { ok = false; }
  if (ok === c.must_fail) { console.log('case ' + i + (ok ? ' verified' : ' refused')); process.exitCode = 1; }
});)";
  std::string out_file = cases_file + ".out";
  std::string command = "node -e " + shell_quote(script) + " " + shell_quote(dir) + " " +
                        shell_quote(cases_file) + " >" + shell_quote(out_file) + " 2>&1";
  int status = std::system(("/bin/bash -c " + shell_quote(command)).c_str());
  return status == 0 ? "" : "node: " + file_text(out_file);
}

TEST_F(WebhookOperationsTest, TheStockStandardWebhooksVerifierAcceptsEveryDeliveryAndRotation) {
  if (std::system("command -v node >/dev/null && command -v npm >/dev/null") != 0) {
    GTEST_SKIP() << "node and npm are needed for the stock verifier (apt-get install npm)";
  }
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["member.role_updated"])");
  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(receiver.wait_for(1, 30s));
  HttpResponse rotated =
      http("POST", hook_path(tenant, hook.id) + "/rotate-secret", {.token = admin});
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  const std::string fresh = rotated.str("secret");
  set_role(admin, tenant, member.id, "MEMBER");  // during the rotation
  ASSERT_TRUE(receiver.wait_for(2, 30s));
  HttpResponse test = http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin});
  ASSERT_EQ(test.status, 202) << test.body;
  ASSERT_TRUE(receiver.wait_for(3, 30s));
  std::string first =
      sql("SELECT min(id) FROM webhook_deliveries WHERE webhook_id = " + to_string(hook.id))[0];
  ASSERT_EQ(
      http("POST", webhooks_path(tenant) + "/deliveries/" + first + "/redeliver", {.token = admin})
          .status,
      202);
  ASSERT_TRUE(receiver.wait_for(4, 30s));
  auto reqs = receiver.requests();
  EXPECT_EQ(stock_verifier_errors({
                {reqs[0], hook.secret},
                {reqs[0], fresh, true},
                {reqs[1], fresh},        // two signatures: the new one verifies,
                {reqs[1], hook.secret},  // and so does the old one
                {reqs[2], fresh},
                {reqs[2], hook.secret},
                {reqs[3], fresh},  // a redelivery, with the first one's webhook-id
            }),
            "");
  EXPECT_EQ(header(reqs[3], "webhook-id"), header(reqs[0], "webhook-id"));
}

// ---------------------------------------------------------------------------------
// Redelivery and test events
// ---------------------------------------------------------------------------------

TEST_F(WebhookOperationsTest, RedeliverySendsTheSameMessageAgainWithAFreshBudget) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["member.role_updated"])");
  set_role(admin, tenant, member.id, "ADMIN");
  Json first = wait_newest_delivery(admin, tenant, hook.id, "delivered");
  ASSERT_TRUE(first);
  int64_t first_id = json_get_int(first.get(), "id").value_or(0);

  HttpResponse r =
      http("POST", webhooks_path(tenant) + "/deliveries/" + to_string(first_id) + "/redeliver",
           {.token = admin});
  ASSERT_EQ(r.status, 202) << r.body;
  EXPECT_EQ(json_keys(r.json.get()), (std::vector<std::string>{"data"}));
  const cJSON* d = r["data"];
  int64_t again_id = json_get_int(d, "id").value_or(0);
  EXPECT_GT(again_id, first_id);
  EXPECT_EQ(json_get_int(d, "webhook_id"), hook.id);
  EXPECT_EQ(json_get_int(d, "event_id"), json_get_int(first.get(), "event_id"));
  EXPECT_EQ(json_get_int(d, "redelivery_of"), first_id);
  EXPECT_EQ(json_get_str(d, "message_id"), json_get_str(first.get(), "message_id"));
  EXPECT_EQ(json_get_str(d, "status"), "pending");
  EXPECT_EQ(json_get_int(d, "attempts"), 0);

  ASSERT_TRUE(receiver.wait_for(2, 30s));
  auto reqs = receiver.requests();
  EXPECT_EQ(header(reqs[1], "webhook-id"), header(reqs[0], "webhook-id"));
  EXPECT_EQ(header(reqs[1], "webhook-id"), "msg_" + to_string(tenant) + "_" + to_string(first_id));
  EXPECT_EQ(reqs[1].body, reqs[0].body);
  EXPECT_TRUE(signature_valid(reqs[1], hook.secret));
  Json again = wait_delivery(admin, tenant, hook.id, again_id, "delivered");
  ASSERT_TRUE(again);
  EXPECT_EQ(json_get_int(again.get(), "attempts"), 1);

  // A redelivery of the redelivery keeps the first message id.
  HttpResponse third =
      http("POST", webhooks_path(tenant) + "/deliveries/" + to_string(again_id) + "/redeliver",
           {.token = admin});
  ASSERT_EQ(third.status, 202) << third.body;
  EXPECT_EQ(json_get_int(third["data"], "redelivery_of"), first_id);
  // Listed with the others, newest first.
  HttpResponse list = hook_deliveries(admin, tenant, hook.id);
  EXPECT_EQ(list.integer("total"), 3);
}

TEST_F(WebhookOperationsTest, RedeliveryRefusesPendingUnknownAndOtherTenantsDeliveries) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  int64_t other = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["member.role_updated"])");
  Hook foreign = create_hook(admin, other, receiver.url("/other"));
  add_user(admin, other, "MEMBER");
  Json theirs = wait_newest_delivery(admin, other, foreign.id, "delivered");
  ASSERT_TRUE(theirs);
  std::string redeliver = webhooks_path(tenant) + "/deliveries/";
  expect_body(
      http("POST",
           redeliver + to_string(json_get_int(theirs.get(), "id").value_or(0)) + "/redeliver",
           {.token = admin}),
      404, R"({"error":"Delivery not found"})");
  expect_body(http("POST", redeliver + "999999999/redeliver", {.token = admin}), 404,
              R"({"error":"Delivery not found"})");

  StackWorkerPause pause;
  set_role(admin, tenant, member.id, "ADMIN");
  std::string pending =
      sql("SELECT id FROM webhook_deliveries WHERE webhook_id = " + to_string(hook.id) +
          " ORDER BY id DESC LIMIT 1")[0];
  expect_body(http("POST", redeliver + pending + "/redeliver", {.token = admin}), 400,
              R"({"error":"The delivery is still pending"})");
  ASSERT_EQ(
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"is_active":false})"})
          .status,
      200);
  sql("UPDATE webhook_deliveries SET status = 'failed' WHERE id = " + pending);
  expect_body(http("POST", redeliver + pending + "/redeliver", {.token = admin}), 400,
              R"({"error":"The webhook of this delivery is disabled; enable it first"})");
  ASSERT_EQ(
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(hook.id), {.token = admin}).status,
      200);
  expect_body(http("POST", redeliver + pending + "/redeliver", {.token = admin}), 400,
              R"({"error":"The webhook of this delivery is deleted"})");
}

// Newest first by when a delivery was made, whatever made it (sql/065): on
// Citus a product write's delivery is written on the tenant's worker with an
// id from that worker's range, a test event's by the coordinator with a
// small one; by id alone the test event made after would list below it.
TEST_F(WebhookOperationsTest, DeliveriesListNewestFirstWhateverWroteThem) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Hook hook = create_hook(admin, tenant, "http://127.0.0.1:1024/in", R"(["*"])");
  StackWorkerPause pause;  // nothing delivered or retried meanwhile
  HttpResponse made =
      http("POST", "/api/v2/admin/products",
           {.token = admin, .tenant = to_string(tenant), .body = R"({"name":"Lamp","price":3})"});
  ASSERT_EQ(made.status, 201) << made.body;
  HttpResponse test = http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin});
  ASSERT_EQ(test.status, 202) << test.body;

  for (const std::string& query :
       {std::string("?per_page=10"), "?per_page=10&webhook_id=" + to_string(hook.id)}) {
    SCOPED_TRACE(query);
    HttpResponse list =
        http("GET", webhooks_path(tenant) + "/deliveries" + query, {.token = admin});
    ASSERT_EQ(list.status, 200) << list.body;
    std::vector<std::string> events;
    for (const cJSON* d = list["data"] ? list["data"]->child : nullptr; d != nullptr; d = d->next) {
      events.emplace_back(json_get_str(d, "event").value_or("?"));
    }
    EXPECT_EQ(events, (std::vector<std::string>{"webhook.test", "product.created"})) << list.body;
  }
}

TEST_F(WebhookOperationsTest, TestEventGoesToThatSubscriptionOnlySigned) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["order.created"])");
  Hook other = create_hook(admin, tenant, receiver.url("/other"), R"(["*"])");

  HttpResponse r = http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin});
  ASSERT_EQ(r.status, 202) << r.body;
  const cJSON* d = r["data"];
  EXPECT_EQ(json_get_str(d, "event"), "webhook.test");
  EXPECT_EQ(json_get_int(d, "webhook_id"), hook.id);
  EXPECT_EQ(json_get_str(d, "status"), "pending");
  EXPECT_TRUE(cJSON_IsNull(json_get(d, "redelivery_of")));
  int64_t id = json_get_int(d, "id").value_or(0);
  Json done = wait_delivery(admin, tenant, hook.id, id, "delivered");
  ASSERT_TRUE(done);

  ASSERT_EQ(receiver.requests().size(), 1u);
  ReceivedRequest req = receiver.requests()[0];
  EXPECT_EQ(req.path, "/hook");
  EXPECT_TRUE(signature_valid(req, hook.secret));
  EXPECT_FALSE(signature_valid(req, other.secret));
  Json body = json_parse(req.body);
  ASSERT_TRUE(body);
  EXPECT_EQ(json_get_str(body.get(), "event"), "webhook.test");
  EXPECT_EQ(json_dump(json_get(body.get(), "data")),
            R"({"webhook_id":)" + to_string(hook.id) + "}");
  EXPECT_EQ(hook_deliveries(admin, tenant, other.id).integer("total"), 0);
  // Not an event of the tenant's feed.
  EXPECT_EQ(http("GET", events_path(tenant), {.token = admin}).body,
            R"({"data":[],"has_more":false,"next_after":null})");

  // Another tenant's subscription, a disabled one.
  Hook foreign = create_hook(admin, create_tenant(admin), receiver.url("/foreign"));
  expect_body(http("POST", hook_path(tenant, foreign.id) + "/test", {.token = admin}), 404,
              R"({"error":"Webhook not found"})");
  ASSERT_EQ(
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"is_active":false})"})
          .status,
      200);
  expect_body(http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin}), 400,
              R"({"error":"The webhook is disabled; enable it before sending a test event"})");
}

TEST_F(WebhookOperationsTest, ATestEventWithAnIdempotencyKeyIsSentOnce) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Hook hook = create_hook(admin, tenant, "http://127.0.0.1:1024/hook");
  const std::vector<std::string> key = {"Idempotency-Key: " + unique("test-event")};
  HttpResponse first =
      http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin, .headers = key});
  ASSERT_EQ(first.status, 202) << first.body;
  HttpResponse again =
      http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin, .headers = key});
  EXPECT_EQ(again.status, 202);
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(again.headers["idempotent-replayed"], "true");
  EXPECT_EQ(hook_deliveries(admin, tenant, hook.id).integer("total"), 1);
}

TEST_F(WebhookOperationsTest, RedeliveriesAndTestsStopAtThePendingBound) {
  const int max = std::stoi(stack_env("WEBHOOK_RESEND_MAX_PENDING").value_or("100"));
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url());
  StackWorkerPause pause;  // every delivery stays pending
  for (int i = 0; i < max; ++i) {
    HttpResponse r = http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin});
    ASSERT_EQ(r.status, 202) << i << ": " << r.body;
  }
  const std::string refusal =
      R"({"message":"The given data was invalid.","errors":{"limit":["The limit of )" +
      std::to_string(max) +
      R"( pending deliveries per webhook subscription is reached (WEBHOOK_RESEND_MAX_PENDING)."]}})";
  expect_body(http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin}), 422, refusal);
  std::string finished =
      sql("SELECT id FROM webhook_deliveries WHERE webhook_id = " + to_string(hook.id) +
          " ORDER BY id LIMIT 1")[0];
  sql("UPDATE webhook_deliveries SET status = 'delivered' WHERE id = " + finished);
  // One slot free again: the redelivery takes it, the next one is refused.
  std::string redeliver = webhooks_path(tenant) + "/deliveries/" + finished + "/redeliver";
  ASSERT_EQ(http("POST", redeliver, {.token = admin}).status, 202);
  expect_body(http("POST", redeliver, {.token = admin}), 422, refusal);
  EXPECT_EQ(
      sql("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND webhook_id = " +
          to_string(hook.id)),
      (std::vector<std::string>{std::to_string(max)}));
  // Its pending rows end with the subscription, not in the next tests' time.
  ASSERT_EQ(
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(hook.id), {.token = admin}).status,
      200);
}

// ---------------------------------------------------------------------------------
// Automatic disabling
// ---------------------------------------------------------------------------------

// Polls (up to 60 s) until the subscription is disabled; its row's
// is_active, disabled_reason.
bool wait_disabled(int64_t hook) {
  auto deadline = Clock::now() + 60s;
  while (Clock::now() < deadline) {
    if (sql("SELECT is_active FROM webhooks WHERE id = " + to_string(hook))[0] == "f") return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

TEST_F(WebhookOperationsTest, ASubscriptionFailingLongEnoughIsDisabledAndGetsNothingNew) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  receiver.set_fallback({.status = 500});
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["member.role_updated"])");
  Receiver healthy;
  Hook fine = create_hook(admin, tenant, healthy.url(), R"(["member.role_updated"])");
  StackWorkerPause pause;
  // Thresholds small: 2 failed deliveries, failing for at least 1 hour. A
  // delivery fails at its first attempt (no retry gaps to wait through).
  const std::map<std::string, std::string> settings = {{"WEBHOOK_DISABLE_AFTER_FAILURES", "2"},
                                                       {"WEBHOOK_DISABLE_AFTER_HOURS", "1"},
                                                       {"WEBHOOK_MAX_ATTEMPTS", "1"}};
  WorkerProcess worker(settings);
  toggle_role(admin, tenant, member.id, 2);
  const std::string failed_both =
      "SELECT count(*) FROM webhook_deliveries WHERE webhook_id = " + to_string(hook.id) +
      " AND status = 'failed'";
  auto deadline = Clock::now() + 60s;
  while (sql(failed_both)[0] != "2" && Clock::now() < deadline) std::this_thread::sleep_for(50ms);
  ASSERT_EQ(sql(failed_both)[0], "2");
  // Failing for less than an hour: still active after a whole pass that
  // began after both failures.
  ASSERT_TRUE(run_worker_once(settings));
  EXPECT_EQ(sql("SELECT is_active FROM webhooks WHERE id = " + to_string(hook.id))[0], "t");
  // An hour later (moved back in SQL).
  sql("UPDATE webhooks SET failing_since = now() - interval '61 minutes' WHERE id = " +
      to_string(hook.id));
  ASSERT_TRUE(wait_disabled(hook.id));
  // The tenant's ADMINs are told by mail, by the disabling statement (the
  // MEMBER is not).
  EXPECT_EQ(sql("SELECT count(*) || ' ' || min(recipient) FROM mails WHERE kind = "
                "'webhook_disabled' AND tenant_id = " +
                to_string(tenant)),
            (std::vector<std::string>{"1 " + admin_email()}));
  const std::string subject =
      "Webhook subscription " + to_string(hook.id) + " of Test tenant disabled";
  std::optional<CapturedMail> told = wait_for_mail(admin_email(), [&](const CapturedMail& m) {
    return m.headers.count("subject") && m.headers.at("subject") == subject;
  });
  ASSERT_TRUE(told) << subject;
  EXPECT_NE(told->text.find("Disabled automatically: the last 2 deliveries failed and none "
                            "succeeded for 1 hours."),
            std::string::npos)
      << told->text;
  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  const cJSON* disabled = cJSON_GetArrayItem(list["data"], 0);
  ASSERT_EQ(json_get_int(disabled, "id"), hook.id) << list.body;
  EXPECT_TRUE(cJSON_IsFalse(json_get(disabled, "is_active")));
  EXPECT_TRUE(is_timestamp(json_get(disabled, "disabled_at")));
  EXPECT_EQ(json_get_str(disabled, "disabled_reason"),
            "Disabled automatically: the last 2 deliveries failed and none succeeded for 1 hours");
  // The healthy one is untouched.
  EXPECT_TRUE(cJSON_IsTrue(json_get(cJSON_GetArrayItem(list["data"], 1), "is_active")));

  // No new deliveries for it; the other still gets them.
  set_role(admin, tenant, member.id, "ADMIN");
  EXPECT_EQ(hook_deliveries(admin, tenant, hook.id).integer("total"), 2);
  EXPECT_EQ(hook_deliveries(admin, tenant, fine.id).integer("total"), 3);

  // Re-enabled by an update: clean, and not disabled again at once.
  HttpResponse on =
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"is_active":true})"});
  ASSERT_EQ(on.status, 200) << on.body;
  EXPECT_TRUE(cJSON_IsNull(on["disabled_at"]));
  EXPECT_TRUE(cJSON_IsNull(on["disabled_reason"]));
  receiver.set_fallback({.status = 200});
  set_role(admin, tenant, member.id, "MEMBER");
  ASSERT_TRUE(wait_newest_delivery(admin, tenant, hook.id, "delivered"));
  EXPECT_EQ(sql("SELECT is_active FROM webhooks WHERE id = " + to_string(hook.id))[0], "t");
  EXPECT_TRUE(worker.stop());
}

TEST_F(WebhookOperationsTest, FewerFailuresThanTheThresholdDoNotDisable) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  Receiver receiver;
  receiver.script({{.status = 200}});
  receiver.set_fallback({.status = 500});
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["member.role_updated"])");
  StackWorkerPause pause;
  // A delivery fails at its first attempt (no retry gaps to wait through).
  const std::map<std::string, std::string> settings = {{"WEBHOOK_DISABLE_AFTER_FAILURES", "2"},
                                                       {"WEBHOOK_DISABLE_AFTER_HOURS", "0"},
                                                       {"WEBHOOK_MAX_ATTEMPTS", "1"}};
  WorkerProcess worker(settings);
  // Delivered, then one failed: the last 2 finished are not all failed.
  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(wait_newest_delivery(admin, tenant, hook.id, "delivered"));
  set_role(admin, tenant, member.id, "MEMBER");
  ASSERT_TRUE(wait_newest_delivery(admin, tenant, hook.id, "failed"));
  // Still active after a whole pass that began after the failure.
  ASSERT_TRUE(run_worker_once(settings));
  EXPECT_EQ(sql("SELECT is_active FROM webhooks WHERE id = " + to_string(hook.id))[0], "t");
  // A second failure completes the run.
  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(wait_disabled(hook.id));
  EXPECT_TRUE(worker.stop());
}

// The settings of issue 41 are checked when a process starts: the worker
// and the webhooks handler stop with one line naming the setting and its
// range (exit 2).
TEST_F(WebhookOperationsTest, ASettingOutOfRangeStopsTheProcessWithOneLine) {
  const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> settings = {
      {"WEBHOOK_DISABLE_AFTER_FAILURES", "0 to 1000", {"-1", "1001", "ten"}},
      {"WEBHOOK_DISABLE_AFTER_HOURS", "0 to 8760", {"-1", "8761", "1.5"}},
      {"WEBHOOK_RESEND_MAX_PENDING", "1 to 100000", {"0", "100001", "x"}},
  };
  for (const char* program : {"commerce-admin-worker", "commerce-admin-webhooks"}) {
    for (const auto& [setting, range, bad_values] : settings) {
      for (const std::string& bad : bad_values) {
        Outcome r = run_with_stack_env(program, {{setting, bad}});
        EXPECT_EQ(r.status, 2) << program << " " << setting << "=" << bad;
        EXPECT_EQ(r.err, std::string(program) + ": " + setting + " must be an integer from " +
                             range + ", got '" + bad + "'\n");
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------

TEST_F(WebhookOperationsTest, MetricsCountDisabledSubscriptionsAndDeliveriesByOutcome) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url());
  HttpResponse before = http("GET", "/metrics");
  ASSERT_EQ(before.status, 200) << before.body;
  const std::string delivered =
      R"(commerce_admin_webhook_deliveries_last_hour{outcome="delivered"})";
  const std::string failed = R"(commerce_admin_webhook_deliveries_last_hour{outcome="failed"})";
  EXPECT_GE(metrics_sample(before.body, failed), 0) << before.body;
  double delivered_before = metrics_sample(before.body, delivered);
  double disabled_before = metrics_sample(before.body, "commerce_admin_webhooks_disabled");
  ASSERT_GE(delivered_before, 0) << before.body;
  ASSERT_GE(disabled_before, 0) << before.body;

  HttpResponse r = http("POST", hook_path(tenant, hook.id) + "/test", {.token = admin});
  ASSERT_EQ(r.status, 202) << r.body;
  ASSERT_TRUE(wait_delivery(admin, tenant, hook.id, json_get_int(r["data"], "id").value_or(0),
                            "delivered"));
  ASSERT_EQ(
      http("POST", hook_path(tenant, hook.id), {.token = admin, .body = R"({"is_active":false})"})
          .status,
      200);
  HttpResponse after = http("GET", "/metrics");
  EXPECT_GE(metrics_sample(after.body, delivered), delivered_before + 1);
  EXPECT_EQ(metrics_sample(after.body, "commerce_admin_webhooks_disabled"), disabled_before + 1);
  EXPECT_NE(after.body.find("# TYPE commerce_admin_webhooks_disabled gauge\n"), std::string::npos);
}

}  // namespace
}  // namespace ca::test
