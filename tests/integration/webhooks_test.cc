// Webhooks over the real stack: subscriptions (create, list, delete, roles,
// validation) and deliveries made by commerce-admin-worker to a local
// receiver: signature checked by an independent implementation, retries with
// growing gaps, Retry-After, failure after the last attempt, several workers
// at once, a worker killed mid-delivery, deletion, and the delivery-time
// SSRF check.
//
// Some tests need to decide which worker takes a row. They pause the stack's
// own worker with SIGSTOP (and SIGCONT it when done, also on failure) and
// start their own `commerce-admin-worker --loop` processes with the stack's
// environment ($CA_STATE_DIR/env): StackWorkerPause and WorkerProcess in
// stack.h. Nothing in the product has a test hook.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "own_handler.h"
#include "receiver.h"
#include "stack.h"
#include "webhook_helpers.h"

namespace ca::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::regex kTimestamp(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$)");

std::vector<std::string> keys(const cJSON* obj) {
  std::vector<std::string> out;
  for (const cJSON* c = obj ? obj->child : nullptr; c != nullptr; c = c->next) {
    out.push_back(c->string);
  }
  return out;
}

std::string errors_of(const HttpResponse& r) { return json_dump(r["errors"]); }

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

int max_attempts() { return std::stoi(stack_env("WEBHOOK_MAX_ATTEMPTS").value_or("10")); }

// --- subscriptions and events ---------------------------------------------------

// A fresh tenant of the seeded admin, with a MEMBER whose role changes make
// member.role_updated events (toggle_role).
struct TenantWithMember {
  std::string admin;
  int64_t tenant = 0;
  TestUser member;
};
TenantWithMember tenant_with_member() {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser member = add_user(admin, tenant, "MEMBER");
  return {admin, tenant, member};
}

HttpResponse deliveries(const std::string& token, int64_t tenant, const std::string& query = "") {
  return http("GET", webhooks_path(tenant) + "/deliveries" + query, {.token = token});
}

std::string str_of(const cJSON* obj, const char* key) {
  auto v = json_get_str(obj, key);
  return v ? std::string(*v) : "<missing " + std::string(key) + ">";
}

// --- worker processes -------------------------------------------------------------

// A port on 127.0.0.1 that refuses connections: bound, never listening.
class DeadPort {
 public:
  DeadPort() {
    fd_ = bind_loopback(&port_);
    EXPECT_GE(fd_, 0);
  }
  ~DeadPort() { close(fd_); }
  DeadPort(const DeadPort&) = delete;
  DeadPort& operator=(const DeadPort&) = delete;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A receiver that never answers: it accepts each connection and counts it,
// but never reads or answers, so every attempt runs into the worker's
// timeout. close() resets them all at once (unread data: RST).
class SilentPort {
 public:
  SilentPort() {
    // Close-on-exec (bind_loopback): a worker the test starts must not hold it open.
    fd_ = bind_loopback(&port_);
    EXPECT_EQ(listen(fd_, 128), 0);
    thread_ = std::thread([this] { accept_loop(); });
  }
  ~SilentPort() { close(); }
  SilentPort(const SilentPort&) = delete;
  SilentPort& operator=(const SilentPort&) = delete;

  std::string url(const std::string& path = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // Connections accepted so far.
  int accepted() const { return accepted_.load(); }
  // Waits until `n` connections were accepted or `timeout` passed.
  bool wait_accepted(int n, std::chrono::milliseconds timeout) const {
    auto deadline = Clock::now() + timeout;
    while (accepted() < n && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
    return accepted() >= n;
  }
  void close() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    for (int c : connections_) ::close(c);
    connections_.clear();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  void accept_loop() {
    while (!stop_.load()) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) != 1) continue;
      int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      connections_.push_back(c);
      accepted_.fetch_add(1);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::vector<int> connections_;  // the accept thread's until close() joins it
  std::thread thread_;
};

class WebhooksTest : public DeliveryTest {};

// ---------------------------------------------------------------------------------
// Subscriptions
// ---------------------------------------------------------------------------------

TEST_F(WebhooksTest, CreateReturnsTheSubscriptionWithItsSecretOnce) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  HttpResponse r = http(
      "POST", webhooks_path(tenant),
      {.token = admin,
       .body =
           R"({"url":"https://hooks.example.com/in?src=ca","events":["order.created","user.registered"],)"
           R"("description":"  ERP sync  "})"});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(
      keys(r.json.get()),
      (std::vector<std::string>{"id", "url", "events", "description", "is_active", "disabled_at",
                                "disabled_reason", "created_at", "updated_at", "secret"}));
  EXPECT_GT(r.integer("id"), 0);
  EXPECT_EQ(r.str("url"), "https://hooks.example.com/in?src=ca");
  EXPECT_EQ(json_dump(r["events"]), R"(["order.created","user.registered"])");
  EXPECT_EQ(r.str("description"), "ERP sync");
  EXPECT_TRUE(cJSON_IsTrue(r["is_active"]));
  EXPECT_TRUE(std::regex_match(r.str("created_at"), kTimestamp)) << r.str("created_at");
  std::string secret = r.str("secret");
  ASSERT_EQ(secret.rfind("whsec_", 0), 0u) << secret;
  unsigned char key[64];
  size_t len = 0;
  ASSERT_EQ(sodium_base642bin(key, sizeof key, secret.data() + 6, secret.size() - 6, nullptr, &len,
                              nullptr, sodium_base64_VARIANT_ORIGINAL),
            0);
  EXPECT_EQ(len, 32u);

  // The list shows it without the secret.
  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  ASSERT_EQ(list.status, 200) << list.body;
  expect_single_page(list, 1);
  const cJSON* item = cJSON_GetArrayItem(list["data"], 0);
  EXPECT_EQ(keys(item), (std::vector<std::string>{"id", "url", "events", "description", "is_active",
                                                  "disabled_at", "disabled_reason", "created_at",
                                                  "updated_at"}));
  EXPECT_EQ(json_get_int(item, "id"), r.integer("id"));
  EXPECT_EQ(str_of(item, "created_at"), r.str("created_at"));
  EXPECT_EQ(list.body.find("whsec_"), std::string::npos);
}

TEST_F(WebhooksTest, CreateWithoutDescriptionAndWithTheWildcard) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  HttpResponse r = http("POST", webhooks_path(tenant),
                        {.token = admin, .body = R"({"url":"http://example.com","events":["*"]})"});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(cJSON_IsNull(r["description"]));
  EXPECT_EQ(json_dump(r["events"]), R"(["*"])");
}

TEST_F(WebhooksTest, CreateReportsEveryInvalidField) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  auto post = [&](const std::string& body) {
    return http("POST", webhooks_path(tenant), {.token = admin, .body = body});
  };
  HttpResponse empty = post("{}");
  ASSERT_EQ(empty.status, 422) << empty.body;
  EXPECT_EQ(empty.str("message"), "The given data was invalid.");
  EXPECT_EQ(errors_of(empty), R"({"url":["The url field is required."],)"
                              R"("events":["The events field is required."]})");

  HttpResponse types = post(R"({"url":5,"events":"order.created","description":7})");
  ASSERT_EQ(types.status, 422) << types.body;
  EXPECT_EQ(errors_of(types), R"({"url":["The url field must be a string."],)"
                              R"("events":["The events field must be an array."],)"
                              R"("description":["The description field must be a string."]})");

  HttpResponse items = post(
      R"({"url":"http://example.com/","events":["order.created","order.shipped",3,"order.created"]})");
  ASSERT_EQ(items.status, 422) << items.body;
  EXPECT_EQ(errors_of(items), R"({"events.1":["The selected events.1 is invalid."],)"
                              R"("events.2":["The events.2 field must be a string."],)"
                              R"("events.3":["The events.3 field has a duplicate value."]})");

  HttpResponse none = post(R"({"url":"http://example.com/","events":[]})");
  ASSERT_EQ(none.status, 422) << none.body;
  EXPECT_EQ(errors_of(none), R"({"events":["The events field must contain at least 1 item."]})");

  HttpResponse long_desc = post(R"({"url":"http://example.com/","events":["*"],"description":")" +
                                std::string(501, 'd') + "\"}");
  ASSERT_EQ(long_desc.status, 422) << long_desc.body;
  EXPECT_EQ(
      errors_of(long_desc),
      R"({"description":["The description field must not be greater than 500 characters."]})");

  HttpResponse not_json = post("[1]");
  EXPECT_EQ(not_json.status, 400) << not_json.body;
  EXPECT_EQ(not_json.str("error"), "Request body must be a JSON object");

  // Nothing was created.
  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  EXPECT_EQ(list.integer("total"), 0) << list.body;
}

TEST_F(WebhooksTest, CreateRefusesUrlsThatAreNotAbsoluteHttp) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  const std::pair<std::string, std::string> cases[] = {
      {"ftp://example.com/in", "The url field must use http or https."},
      {"file:///etc/passwd", "The url field must use http or https."},
      {"javascript:alert(1)",
       "The url field must be an absolute URL starting with http:// or https://."},
      {"example.com/hook",
       "The url field must be an absolute URL starting with http:// or https://."},
      {"http://", "The url field must name a host."},
      {"http://exa_mple..com/", "The url field must have a valid host name."},
      {"http://example.com:99999/", "The url field must have a port from 1 to 65535."},
      {"http://user:secret@example.com/",
       "The url field must not contain a user name or password."},
      {"http://example.com/#part", "The url field must not contain a fragment (#...)."},
      {"http://exa mple.com/",
       "The url field must not contain spaces, control characters or non-ASCII characters."},
      {"http://[::1/", "The url field must have a valid IPv6 address in brackets."},
      // Ports other than 80, 443 and 1024-65535 (WEBHOOK_ALLOW_ANY_PORT is off).
      {"http://example.com:22/", "The url field must use port 80, 443 or 1024 to 65535."},
      {"https://example.com:1023/in", "The url field must use port 80, 443 or 1024 to 65535."},
      {"http://127.0.0.1:25/", "The url field must use port 80, 443 or 1024 to 65535."},
      {"http://[::1]:81/", "The url field must use port 80, 443 or 1024 to 65535."},
      {"", "The url field is required."},
  };
  for (const auto& [url, message] : cases) {
    Json body = json_object();
    json_add_str(body.get(), "url", url);
    json_add(body.get(), "events", Json(cJSON_Parse(R"(["*"])")));
    HttpResponse r =
        http("POST", webhooks_path(tenant), {.token = admin, .body = json_dump(body.get())});
    ASSERT_EQ(r.status, 422) << url << ": " << r.body;
    EXPECT_EQ(errors_of(r), R"({"url":[")" + message + R"("]})") << url;
  }
  for (const char* url : {"http://example.com:80/", "https://example.com:443/",
                          "https://example.com:1024/", "http://example.com:65535/"}) {
    HttpResponse r =
        http("POST", webhooks_path(tenant),
             {.token = admin, .body = R"({"url":")" + std::string(url) + R"(","events":["*"]})"});
    EXPECT_EQ(r.status, 201) << url << ": " << r.body;
  }
  std::string too_long = "https://example.com/" + std::string(2029, 'a');
  HttpResponse r =
      http("POST", webhooks_path(tenant),
           {.token = admin, .body = R"({"url":")" + too_long + R"(","events":["*"]})"});
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(errors_of(r), R"({"url":["The url field must not be greater than 2048 characters."]})");
  std::string longest = "https://example.com/" + std::string(2028, 'a');
  r = http("POST", webhooks_path(tenant),
           {.token = admin, .body = R"({"url":")" + longest + R"(","events":["*"]})"});
  EXPECT_EQ(r.status, 201) << r.body.substr(0, 200);
}

// Without WEBHOOK_ALLOW_PRIVATE_TARGETS (the stack runs with it, so a
// handler of the test's own answers): a target inside the network is
// refused with one sentence that names neither the address nor its kind,
// for a host name (whose address would map internal DNS) as for a literal.
TEST_F(WebhooksTest, CreateRefusesNonPublicTargetsWithoutNamingTheAddress) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  OwnHandler strict("commerce-admin-webhooks", "wh-test", {{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "0"}});
  for (const char* url :
       {"http://localhost:8080/hook", "http://127.0.0.1:8080/hook",
        "http://169.254.169.254/latest/meta-data/", "https://[::1]:8443/", "http://10.1.2.3/"}) {
    auto [status, body] =
        strict.call({.method = "POST",
                     .uri = webhooks_path(tenant),
                     .token = admin,
                     .body = R"({"url":")" + std::string(url) + R"(","events":["*"]})"});
    EXPECT_EQ(status, "Status: 422 Unprocessable Content") << url;
    Json json = json_parse(body);
    EXPECT_EQ(json_dump(json_get(json.get(), "errors")),
              R"({"url":["The url field does not point to a public address; webhook targets )"
              R"(must be public."]})")
        << url << ": " << body;
  }
  // Nobody but an ADMIN of the tenant gets a host name resolved: the
  // caller is refused before the URL is looked at.
  TestUser member = add_user(admin, tenant, "MEMBER");
  const std::string unknown_host = unique("never-resolved") + ".invalid";
  const std::string probe = R"({"url":"http://)" + unknown_host + R"(/","events":["*"]})";
  EXPECT_EQ(strict.call({.method = "POST", .uri = webhooks_path(tenant), .body = probe}).status,
            "Status: 401 Unauthorized");
  EXPECT_EQ(strict
                .call({.method = "POST",
                       .uri = webhooks_path(tenant),
                       .token = member.token,
                       .body = probe})
                .status,
            "Status: 403 Forbidden");
  auto [unknown_status, unknown_body] =
      strict.call({.method = "POST", .uri = webhooks_path(tenant), .token = admin, .body = probe});
  EXPECT_EQ(unknown_status, "Status: 422 Unprocessable Content");
  EXPECT_EQ(json_dump(json_get(json_parse(unknown_body).get(), "errors")),
            R"({"url":["The url field has a host that could not be resolved."]})");
  // Ports are checked before the address.
  auto [status, body] = strict.call({.method = "POST",
                                     .uri = webhooks_path(tenant),
                                     .token = admin,
                                     .body = R"({"url":"http://localhost:22/","events":["*"]})"});
  EXPECT_EQ(status, "Status: 422 Unprocessable Content");
  EXPECT_EQ(json_dump(json_get(json_parse(body).get(), "errors")),
            R"({"url":["The url field must use port 80, 443 or 1024 to 65535."]})");
  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  EXPECT_EQ(list.integer("total"), 0) << list.body;
}

// --- the cap on subscriptions per tenant (WEBHOOKS_MAX_PER_TENANT) ----------------

int64_t webhooks_max() { return std::stoll(stack_env("WEBHOOKS_MAX_PER_TENANT").value_or("20")); }

std::string limit_body() {
  return R"({"message":"The given data was invalid.","errors":{"limit":["The limit of )" +
         std::to_string(webhooks_max()) +
         R"( webhook subscriptions per tenant is reached (WEBHOOKS_MAX_PER_TENANT)."]}})";
}

HttpResponse post_hook(const std::string& token, int64_t tenant, const std::string& url) {
  return http("POST", webhooks_path(tenant),
              {.token = token, .body = R"({"url":")" + url + R"(","events":["*"]})"});
}

std::string live_hooks(int64_t tenant) {
  return sql("SELECT count(*) FROM webhooks WHERE tenant_id = " + to_string(tenant) +
             " AND deleted_at IS NULL")[0];
}

TEST_F(WebhooksTest, ATenantsSubscriptionsStopAtTheCapAndADeletedOneFreesItsSlot) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  const int64_t max = webhooks_max();
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < max; ++i) {
    ids.push_back(create_hook(admin, tenant, "http://example.com/h" + std::to_string(i)).id);
  }
  HttpResponse over = post_hook(admin, tenant, "http://example.com/over");
  expect_body(over, 422, limit_body());
  EXPECT_EQ(live_hooks(tenant), std::to_string(max));
  EXPECT_EQ(sql("SELECT count(*) FROM webhooks WHERE tenant_id = " + to_string(tenant) +
                " AND url = 'http://example.com/over'")[0],
            "0");
  // The cap is the tenant's: another tenant of the same admin is not at it.
  int64_t other = create_tenant(admin);
  EXPECT_EQ(post_hook(admin, other, "http://example.com/other").status, 201);

  // A deleted subscription no longer counts: one more fits, and no second.
  ASSERT_EQ(
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(ids[0]), {.token = admin}).status,
      200);
  HttpResponse again = post_hook(admin, tenant, "http://example.com/again");
  EXPECT_EQ(again.status, 201) << again.body;
  expect_body(post_hook(admin, tenant, "http://example.com/over"), 422, limit_body());
  EXPECT_EQ(live_hooks(tenant), std::to_string(max));
}

// Two creates at once cannot both take the last slot: a create waits for
// the tenant's other create (its turn, the tenant's row of cap_locks,
// sql/063's ca_webhook_create()) and then counts that one's row. The test's
// transaction plays the other create: it takes the same turn and writes
// the last subscription, which the waiting create cannot see until it
// commits. On Citus the whole create runs on the tenant's worker, where the
// turn is released with its one commit.
TEST_F(WebhooksTest, ACreateWaitsForTheTenantsOtherCreateAndCountsItsRow) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  const int64_t max = webhooks_max();
  for (int64_t i = 0; i + 1 < max; ++i) {
    create_hook(admin, tenant, "http://example.com/h" + std::to_string(i));
  }
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  const std::string t = to_string(tenant);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(
      exec_ok(conn.get(), "INSERT INTO cap_locks AS l (tenant_id, collection) VALUES (" + t +
                              ", 'webhook subscriptions') ON CONFLICT (tenant_id, collection) "
                              "DO UPDATE SET collection = l.collection"));
  ASSERT_TRUE(exec_ok(conn.get(), "INSERT INTO webhooks (tenant_id, url, events, secret) VALUES (" +
                                      t + ", 'http://example.com/last', '[\"*\"]', 'whsec_test')"));
  std::future<HttpResponse> create = std::async(
      std::launch::async, [&] { return post_hook(admin, tenant, "http://example.com/racing"); });
  bool waiting = wait_for_lock_wait("SELECT json FROM ca_webhook_create(%");
  // EXPECT, not ASSERT: the create must be waited for before `conn` goes.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the create did not wait for the tenant's other create";
  expect_body(create.get(), 422, limit_body());
  EXPECT_EQ(live_hooks(tenant), std::to_string(max));
}

TEST_F(WebhooksTest, ConcurrentCreatesNeverPassTheCap) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  const int64_t max = webhooks_max();
  for (int64_t i = 0; i + 2 < max; ++i) {
    create_hook(admin, tenant, "http://example.com/h" + std::to_string(i));
  }
  std::vector<HttpResponse> answers = http_concurrent(8, 8, [&](int i) {
    return post_hook(admin, tenant, "http://example.com/c" + std::to_string(i));
  });
  int created = 0;
  for (const HttpResponse& r : answers) {
    if (r.status == 201) {
      ++created;
    } else {
      expect_body(r, 422, limit_body());
    }
  }
  EXPECT_EQ(created, 2);
  EXPECT_EQ(live_hooks(tenant), std::to_string(max));
}

TEST_F(WebhooksTest, EveryOperationNeedsAnAdminOfAnExistingTenant) {
  auto [admin, tenant, member] = tenant_with_member();
  std::string stranger = add_user(admin, create_tenant(admin), "ADMIN").token;
  Hook hook = create_hook(admin, tenant, "http://example.com/hook");
  const std::string body = R"({"url":"http://example.com/x","events":["*"]})";
  struct Op {
    const char* method;
    std::string path;
    std::optional<std::string> body;
  };
  const Op ops[] = {
      {"GET", webhooks_path(tenant), std::nullopt},
      {"POST", webhooks_path(tenant), body},
      {"DELETE", webhooks_path(tenant) + "?id=" + to_string(hook.id), std::nullopt},
      {"GET", webhooks_path(tenant) + "/deliveries", std::nullopt},
  };
  for (const Op& op : ops) {
    SCOPED_TRACE(std::string(op.method) + " " + op.path);
    HttpResponse anon = http(op.method, op.path, {.body = op.body});
    EXPECT_EQ(anon.status, 401);
    EXPECT_EQ(anon.str("error"), "Unauthenticated");
    HttpResponse as_member = http(op.method, op.path, {.token = member.token, .body = op.body});
    EXPECT_EQ(as_member.status, 403) << as_member.body;
    EXPECT_EQ(as_member.str("error"), "This action requires the ADMIN role");
    HttpResponse as_stranger = http(op.method, op.path, {.token = stranger, .body = op.body});
    EXPECT_EQ(as_stranger.status, 403) << as_stranger.body;
    EXPECT_EQ(as_stranger.str("error"), "You are not a member of this tenant");
  }
  HttpResponse missing = http("GET", "/api/v2/admin/webhooks/999999999", {.token = admin});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.str("error"), "Tenant not found");
  // The member's attempts changed nothing.
  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  EXPECT_EQ(list.integer("total"), 1) << list.body;
}

TEST_F(WebhooksTest, DeleteNeedsTheIdOfOneOfTheTenantsWebhooks) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  int64_t other_tenant = create_tenant(admin);
  Hook keep = create_hook(admin, tenant, "http://example.com/keep");
  Hook gone = create_hook(admin, tenant, "http://example.com/gone");
  Hook foreign = create_hook(admin, other_tenant, "http://example.com/foreign");

  HttpResponse no_id = http("DELETE", webhooks_path(tenant), {.token = admin});
  ASSERT_EQ(no_id.status, 422) << no_id.body;
  EXPECT_EQ(no_id.str("message"), "The given data was invalid.");
  EXPECT_EQ(errors_of(no_id), R"({"id":["The id field is required."]})");
  HttpResponse bad_id = http("DELETE", webhooks_path(tenant) + "?id=abc", {.token = admin});
  ASSERT_EQ(bad_id.status, 422) << bad_id.body;
  EXPECT_EQ(errors_of(bad_id), R"({"id":["The id field must be a positive integer."]})");

  HttpResponse cross =
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(foreign.id), {.token = admin});
  EXPECT_EQ(cross.status, 404) << cross.body;
  EXPECT_EQ(cross.str("error"), "Webhook not found");

  HttpResponse ok =
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(gone.id), {.token = admin});
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.body, R"({"message":"Webhook deleted"})");
  HttpResponse again =
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(gone.id), {.token = admin});
  EXPECT_EQ(again.status, 404) << again.body;
  EXPECT_EQ(again.str("error"), "Webhook not found");

  HttpResponse list = http("GET", webhooks_path(tenant), {.token = admin});
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.integer("total"), 1);
  EXPECT_EQ(json_get_int(cJSON_GetArrayItem(list["data"], 0), "id"), keep.id);
  // The other tenant's webhook is untouched.
  HttpResponse other = http("GET", webhooks_path(other_tenant), {.token = admin});
  EXPECT_EQ(other.integer("total"), 1);
  EXPECT_EQ(sql("SELECT is_active::text || ' ' || (deleted_at IS NOT NULL)::text FROM webhooks "
                "WHERE tenant_id = " +
                to_string(tenant) + " AND id = " + to_string(gone.id)),
            (std::vector<std::string>{"false true"}));
}

TEST_F(WebhooksTest, DeliveriesListValidatesItsFilters) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  HttpResponse bad_status = deliveries(admin, tenant, "?status=sent");
  ASSERT_EQ(bad_status.status, 422) << bad_status.body;
  EXPECT_EQ(errors_of(bad_status), R"({"status":["The selected status is invalid."]})");
  HttpResponse bad_both = deliveries(admin, tenant, "?status=x&webhook_id=0");
  ASSERT_EQ(bad_both.status, 422) << bad_both.body;
  EXPECT_EQ(errors_of(bad_both),
            R"({"webhook_id":["The webhook_id field must be a positive integer."],)"
            R"("status":["The selected status is invalid."]})");
  HttpResponse bad_page = deliveries(admin, tenant, "?page=0&status=sent");
  ASSERT_EQ(bad_page.status, 422) << bad_page.body;
  EXPECT_EQ(errors_of(bad_page), R"({"page":["The page field must be an integer of at least 1."],)"
                                 R"("status":["The selected status is invalid."]})");
  HttpResponse empty = deliveries(admin, tenant);
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.body, R"({"data":[],"current_page":1,"last_page":1,"per_page":15,"total":0})");
}

// ---------------------------------------------------------------------------------
// Deliveries
// ---------------------------------------------------------------------------------

TEST_F(WebhooksTest, DeliveryCarriesTheEventAndAStandardWebhooksSignature) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  Hook other = create_hook(admin, tenant, receiver.url("/other"), R"(["order.created"])");
  int64_t admin_id =
      std::stoll(sql("SELECT id FROM users WHERE email = '" + admin_email() + "'")[0]);

  TestUser user = add_user(admin, tenant, "MEMBER");
  ASSERT_TRUE(receiver.wait_for(1, 30s)) << "no delivery arrived";
  Json record = wait_newest_delivery(admin, tenant, hook.id, "delivered");
  ASSERT_TRUE(record);
  ReceivedRequest req = receiver.requests()[0];

  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/hook");
  EXPECT_EQ(req.headers["content-type"], "application/json");
  EXPECT_EQ(req.headers["user-agent"], "commerce-admin-webhooks");
  int64_t delivery_id = json_get_int(record.get(), "id").value_or(-1);
  EXPECT_EQ(req.headers["webhook-id"], "msg_" + to_string(tenant) + "_" + to_string(delivery_id));
  EXPECT_TRUE(signature_valid(req, hook.secret));
  EXPECT_FALSE(signature_valid(req, other.secret));

  Json body = json_parse(req.body);
  ASSERT_TRUE(body) << req.body;
  EXPECT_EQ(keys(body.get()),
            (std::vector<std::string>{"event", "tenant_id", "timestamp", "data"}));
  EXPECT_EQ(str_of(body.get(), "event"), "user.registered");
  int64_t tenant_in_body = 0;
  EXPECT_TRUE(json_is_integer(json_get(body.get(), "tenant_id"), &tenant_in_body));
  EXPECT_EQ(tenant_in_body, tenant);
  int64_t event_id = json_get_int(record.get(), "event_id").value_or(-1);
  EXPECT_EQ(str_of(body.get(), "timestamp"),
            sql("SELECT ca_ts(created_at) FROM events WHERE tenant_id = " + to_string(tenant) +
                " AND id = " + to_string(event_id))[0]);
  const cJSON* data = json_get(body.get(), "data");
  // The payload is stored as jsonb, which keeps its own key order.
  std::vector<std::string> data_keys = keys(data);
  std::sort(data_keys.begin(), data_keys.end());
  EXPECT_EQ(data_keys,
            (std::vector<std::string>{"email", "invited_by", "name", "role", "user_id"}));
  EXPECT_EQ(json_get_int(data, "user_id"), user.id);
  EXPECT_EQ(str_of(data, "name"), "Test User");
  EXPECT_EQ(str_of(data, "email"), user.email);
  EXPECT_EQ(str_of(data, "role"), "MEMBER");
  EXPECT_EQ(json_get_int(data, "invited_by"), admin_id);

  // The delivery record.
  EXPECT_EQ(keys(record.get()),
            (std::vector<std::string>{"id", "webhook_id", "event_id", "message_id", "redelivery_of",
                                      "event", "url", "status", "attempts", "next_attempt_at",
                                      "last_attempt_at", "response_status", "error", "created_at",
                                      "delivered_at"}));
  EXPECT_EQ(json_get_int(record.get(), "webhook_id"), hook.id);
  EXPECT_EQ(str_of(record.get(), "message_id"), req.headers["webhook-id"]);
  EXPECT_EQ(str_of(record.get(), "event"), "user.registered");
  EXPECT_EQ(str_of(record.get(), "url"), receiver.url());
  EXPECT_EQ(json_get_int(record.get(), "attempts"), 1);
  EXPECT_TRUE(cJSON_IsNull(json_get(record.get(), "next_attempt_at")));
  EXPECT_TRUE(std::regex_match(str_of(record.get(), "last_attempt_at"), kTimestamp));
  EXPECT_EQ(json_get_int(record.get(), "response_status"), 200);
  EXPECT_TRUE(cJSON_IsNull(json_get(record.get(), "error")));
  EXPECT_TRUE(std::regex_match(str_of(record.get(), "created_at"), kTimestamp));
  EXPECT_TRUE(std::regex_match(str_of(record.get(), "delivered_at"), kTimestamp));

  // The order.created subscription got no row for this event: one row per
  // matching subscription, in the event's own transaction.
  EXPECT_EQ(hook_deliveries(admin, tenant, other.id).integer("total"), 0);
  EXPECT_EQ(hook_deliveries(admin, tenant, hook.id).integer("total"), 1);
  EXPECT_EQ(receiver.requests().size(), 1u);
}

TEST_F(WebhooksTest, FailingReceiverIsRetriedWithGrowingGapsUntilItAnswers2xx) {
  ASSERT_GE(max_attempts(), 3) << "needs WEBHOOK_MAX_ATTEMPTS >= 3";
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  receiver.script({{.status = 500}, {.status = 500}, {.status = 204, .body = ""}});
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  add_user(admin, tenant, "MEMBER");

  // After each failure the record says so, stays pending, and is due again
  // after the backoff the worker chose: read from the row between attempts
  // (the arrival times alone also carry the worker's polling, up to a second).
  auto recorded_failure = [&](int attempt) -> std::pair<std::string, double> {
    const std::string query =
        "SELECT status || '|' || response_status || '|' || error || '|' || attempts, "
        "extract(epoch FROM next_attempt_at - last_attempt_at) FROM webhook_deliveries "
        "WHERE tenant_id = " +
        to_string(tenant) + " AND attempts = " + std::to_string(attempt) +
        " AND lease_until IS NULL AND error IS NOT NULL";
    PgConn conn = connect_database();
    auto deadline = Clock::now() + 30s;
    while (conn && Clock::now() < deadline) {
      PgResult r(PQexec(conn.get(), query.c_str()));
      if (PQresultStatus(r.get()) == PGRES_TUPLES_OK && PQntuples(r.get()) == 1) {
        return {PQgetvalue(r.get(), 0, 0), std::stod(PQgetvalue(r.get(), 0, 1))};
      }
      std::this_thread::sleep_for(20ms);
    }
    return {"<attempt " + std::to_string(attempt) + " never recorded>", 0};
  };
  auto [first, delay1] = recorded_failure(1);
  EXPECT_EQ(first, "pending|500|HTTP 500|1");
  const std::string failing =
      "SELECT (failing_since IS NOT NULL)::text FROM webhooks WHERE id = " + to_string(hook.id) +
      " AND tenant_id = " + to_string(tenant);
  EXPECT_EQ(sql(failing), (std::vector<std::string>{"true"}));
  auto [second, delay2] = recorded_failure(2);
  EXPECT_EQ(second, "pending|500|HTTP 500|2");
  // Backoff with base 1 s: 1 s, then 2 s, each at most 20% shorter (plus the
  // time the attempt itself took).
  EXPECT_GE(delay1, 0.8) << delay1;
  EXPECT_LT(delay1, 1.5) << delay1;
  EXPECT_GE(delay2, 1.6) << delay2;
  EXPECT_LT(delay2, 2.5) << delay2;

  ASSERT_TRUE(receiver.wait_for(3, 40s)) << receiver.requests().size() << " attempts arrived";
  Json record = wait_newest_delivery(admin, tenant, hook.id, "delivered");
  ASSERT_TRUE(record);
  std::vector<ReceivedRequest> reqs = receiver.requests();
  ASSERT_EQ(reqs.size(), 3u);
  for (const ReceivedRequest& r : reqs) {
    EXPECT_EQ(r.headers.at("webhook-id"), str_of(record.get(), "message_id"));
    EXPECT_EQ(r.body, reqs[0].body);
    EXPECT_TRUE(signature_valid(r, hook.secret));
  }
  // No retry went out before it was due.
  double gap1 = seconds(reqs[1].at - reqs[0].at), gap2 = seconds(reqs[2].at - reqs[1].at);
  EXPECT_GE(gap1, delay1 - 0.2) << gap1;
  EXPECT_GE(gap2, delay2 - 0.2) << gap2;
  std::printf("backoff %.2f s, %.2f s; retries arrived after %.2f s, %.2f s\n", delay1, delay2,
              gap1, gap2);

  // Delivered: no longer failing.
  EXPECT_EQ(sql(failing), (std::vector<std::string>{"false"}));
  EXPECT_EQ(json_get_int(record.get(), "attempts"), 3);
  EXPECT_EQ(json_get_int(record.get(), "response_status"), 204);
  EXPECT_TRUE(cJSON_IsNull(json_get(record.get(), "error")));
  EXPECT_TRUE(std::regex_match(str_of(record.get(), "delivered_at"), kTimestamp));
}

TEST_F(WebhooksTest, DeadReceiverEndsFailedAfterTheLastAttempt) {
  int max = max_attempts();
  ASSERT_LE(max, 4) << "the stack must run with a small WEBHOOK_MAX_ATTEMPTS (scripts/test: 3)";
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  DeadPort dead;
  Hook hook = create_hook(admin, tenant, dead.url(), R"(["user.registered"])");
  add_user(admin, tenant, "MEMBER");

  Json record = wait_newest_delivery(admin, tenant, hook.id, "failed", 60s);
  ASSERT_TRUE(record);
  EXPECT_EQ(json_get_int(record.get(), "attempts"), max);
  EXPECT_TRUE(cJSON_IsNull(json_get(record.get(), "response_status")));
  std::string error = str_of(record.get(), "error");
  EXPECT_NE(error.find("onnect"), std::string::npos) << error;  // "Couldn't connect", "refused"
  EXPECT_TRUE(cJSON_IsNull(json_get(record.get(), "next_attempt_at")));
  EXPECT_TRUE(cJSON_IsNull(json_get(record.get(), "delivered_at")));
  EXPECT_TRUE(std::regex_match(str_of(record.get(), "last_attempt_at"), kTimestamp));
  HttpResponse failed = deliveries(admin, tenant, "?status=failed");
  EXPECT_EQ(failed.integer("total"), 1) << failed.body;
  HttpResponse pending = deliveries(admin, tenant, "?status=pending");
  EXPECT_EQ(pending.integer("total"), 0) << pending.body;
}

TEST_F(WebhooksTest, RetryAfterOf429And503IsHonoured) {
  ASSERT_GE(max_attempts(), 3) << "needs WEBHOOK_MAX_ATTEMPTS >= 3";
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  receiver.script({{.status = 429, .headers = {"Retry-After: 2"}},
                   {.status = 503, .headers = {"Retry-After: 3"}},
                   {.status = 200}});
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  add_user(admin, tenant, "MEMBER");
  ASSERT_TRUE(receiver.wait_for(3, 40s)) << receiver.requests().size() << " attempts arrived";
  Json record = wait_newest_delivery(admin, tenant, hook.id, "delivered");
  ASSERT_TRUE(record);
  std::vector<ReceivedRequest> reqs = receiver.requests();
  double gap1 = seconds(reqs[1].at - reqs[0].at), gap2 = seconds(reqs[2].at - reqs[1].at);
  // Without Retry-After these would be about 1 s and 2 s.
  EXPECT_GE(gap1, 1.95) << gap1;
  EXPECT_GE(gap2, 2.95) << gap2;
  std::printf("Retry-After gaps: %.2f s, %.2f s\n", gap1, gap2);
  EXPECT_EQ(json_get_int(record.get(), "attempts"), 3);
}

TEST_F(WebhooksTest, SeveralWorkersDeliverEachRowExactlyOnce) {
  auto [admin, tenant, member] = tenant_with_member();
  Receiver receiver;
  StackWorkerPause pause;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["member.role_updated"])");
  // 30 due rows at once, then three workers race for them.
  constexpr int kRows = 30;
  toggle_role(admin, tenant, member.id, kRows);
  ASSERT_EQ(hook_deliveries(admin, tenant, hook.id).integer("total"), kRows);
  std::set<std::string> expected;
  for (const std::string& id :
       sql("SELECT id FROM webhook_deliveries WHERE tenant_id = " + to_string(tenant))) {
    expected.insert("msg_" + to_string(tenant) + "_" + id);
  }
  ASSERT_EQ(expected.size(), static_cast<size_t>(kRows));

  auto a = std::make_unique<WorkerProcess>();
  auto b = std::make_unique<WorkerProcess>();
  pause.resume();
  ASSERT_TRUE(receiver.wait_for(kRows, 40s)) << receiver.requests().size() << " arrived";
  auto deadline = Clock::now() + 30s;
  while (Clock::now() < deadline) {
    HttpResponse done =
        deliveries(admin, tenant, "?status=delivered&webhook_id=" + to_string(hook.id));
    if (done.integer("total") == kRows) break;
    std::this_thread::sleep_for(100ms);
  }
  // Our workers finish their passes; then one more event delivered by the
  // stack's worker proves its earlier batches are complete too.
  a->stop();
  b->stop();
  std::printf("rows processed by the test's workers: %d and %d (the stack's worker: the rest)\n",
              a->processed("webhook deliveries"), b->processed("webhook deliveries"));
  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(receiver.wait_for(kRows + 1, 30s));

  std::map<std::string, int> seen;
  for (const ReceivedRequest& r : receiver.requests()) {
    EXPECT_TRUE(signature_valid(r, hook.secret));
    ++seen[r.headers.at("webhook-id")];
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kRows + 1));
  for (const auto& [id, n] : seen) EXPECT_EQ(n, 1) << id << " arrived " << n << " times";
  for (const std::string& id : expected) EXPECT_EQ(seen.count(id), 1u) << id;
  // Every row delivered at its first attempt (the sentinel's record may lag
  // its arrival by a moment).
  const std::string undelivered =
      "SELECT count(*) FROM webhook_deliveries WHERE tenant_id = " + to_string(tenant) +
      " AND (status <> 'delivered' OR attempts <> 1)";
  deadline = Clock::now() + 10s;
  while (sql(undelivered)[0] != "0" && Clock::now() < deadline) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(sql(undelivered)[0], "0");

  // Newest first, paginated.
  HttpResponse page = deliveries(admin, tenant, "?per_page=10&page=2");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.integer("total"), kRows + 1);
  EXPECT_EQ(page.integer("last_page"), 4);
  EXPECT_EQ(cJSON_GetArraySize(page["data"]), 10);
  int64_t previous = INT64_MAX;
  for (const cJSON* d = page["data"]->child; d != nullptr; d = d->next) {
    int64_t id = json_get_int(d, "id").value_or(0);
    EXPECT_LT(id, previous);
    previous = id;
  }
}

TEST_F(WebhooksTest, WorkerKilledMidDeliveryLeavesTheRowToBeRetried) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  // The first attempt hangs long enough to kill its worker; the retry succeeds.
  receiver.script({{.status = 200, .delay_ms = 3000}, {.status = 200}});
  StackWorkerPause pause;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  add_user(admin, tenant, "MEMBER");

  WorkerProcess doomed;
  ASSERT_TRUE(receiver.wait_for(1, 30s)) << "the test's worker did not deliver";
  doomed.kill_now();
  std::string where = " FROM webhook_deliveries WHERE tenant_id = " + to_string(tenant);
  EXPECT_EQ(sql("SELECT status || '|' || attempts || '|' || (lease_until > now())::text || '|' || "
                "(delivered_at IS NULL)::text" +
                where),
            (std::vector<std::string>{"pending|1|true|true"}));
  // The dead worker's lease is WEBHOOK_TIMEOUT_SECONDS + 10 s; it is moved
  // to end 2 s from now (as if the attempt had begun that much earlier), so
  // that the test waits 2 s for it instead of 12.
  double full_lease =
      std::stod(sql("SELECT extract(epoch FROM lease_until - last_attempt_at)" + where)[0]);
  EXPECT_GT(full_lease, 10) << "the lease is WEBHOOK_TIMEOUT_SECONDS + 10 s";
  sql("UPDATE webhook_deliveries SET lease_until = now() + interval '2 seconds' WHERE tenant_id "
      "= " +
      to_string(tenant));
  double lease =
      std::stod(sql("SELECT extract(epoch FROM lease_until - last_attempt_at)" + where)[0]);

  // Nobody holds the row but the dead worker's lease; once it runs out the
  // stack's worker retries it, with the same webhook-id.
  pause.resume();
  ASSERT_TRUE(receiver.wait_for(2, 60s)) << "the row was not retried";
  Json record = wait_newest_delivery(admin, tenant, hook.id, "delivered");
  ASSERT_TRUE(record);
  std::vector<ReceivedRequest> reqs = receiver.requests();
  EXPECT_EQ(reqs[1].headers.at("webhook-id"), reqs[0].headers.at("webhook-id"));
  EXPECT_EQ(reqs[1].body, reqs[0].body);
  EXPECT_TRUE(signature_valid(reqs[1], hook.secret));
  double gap = seconds(reqs[1].at - reqs[0].at);
  EXPECT_GE(gap, lease - 0.5) << "retried before the lease ran out";
  std::printf("lease %.1f s (of %.1f s), retried after %.2f s\n", lease, full_lease, gap);
  // The interrupted attempt counts: a payload that kills workers cannot loop forever.
  EXPECT_EQ(json_get_int(record.get(), "attempts"), 2);
  EXPECT_EQ(reqs.size(), 2u);
}

// A worker that stops mid-attempt leaves its attempt counted, its lease
// and no outcome. Once the lease has run out, the next pass records the
// attempt as interrupted, for the tenant to see, and retries it after the
// usual backoff (here an hour, so the record can be read); when it was the
// last attempt, the delivery fails.
TEST_F(WebhooksTest, AnAttemptCutOffByAStoppedWorkerIsShownInTheDeliveryRecord) {
  ASSERT_LE(max_attempts(), 4) << "the stack must run with a small WEBHOOK_MAX_ATTEMPTS";
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  StackWorkerPause pause;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  add_user(admin, tenant, "MEMBER");
  add_user(admin, tenant, "MEMBER");
  std::string where = " FROM webhook_deliveries WHERE tenant_id = " + to_string(tenant);
  std::vector<std::string> ids = sql("SELECT id" + where + " ORDER BY id");
  ASSERT_EQ(ids.size(), 2u);
  sql("UPDATE webhook_deliveries SET attempts = CASE WHEN id = " + ids[0] + " THEN 1 ELSE " +
      std::to_string(max_attempts()) +
      " END, last_attempt_at = now() - interval '20 seconds', "
      "lease_until = now() - interval '1 second'" +
      where.substr(std::string(" FROM webhook_deliveries").size()));
  ASSERT_TRUE(run_worker_once({{"WEBHOOK_RETRY_BASE_SECONDS", "3600"}}));

  EXPECT_EQ(sql("SELECT status || '|' || attempts || '|' || coalesce(error, '<null>') || '|' || "
                "(lease_until IS NULL) || '|' || (response_status IS NULL) || '|' || "
                "(next_attempt_at > now() + interval '30 minutes')" +
                where + " ORDER BY id"),
            (std::vector<std::string>{
                "pending|1|attempt interrupted (worker stopped)|true|true|true",
                "failed|" + std::to_string(max_attempts()) +
                    "|attempt interrupted (worker stopped); no attempts left|true|true|true"}));
  HttpResponse records = hook_deliveries(admin, tenant, hook.id);
  const cJSON* newest = cJSON_GetArrayItem(records["data"], 0);
  const cJSON* oldest = cJSON_GetArrayItem(records["data"], 1);
  EXPECT_EQ(str_of(oldest, "status"), "pending");
  EXPECT_EQ(str_of(oldest, "error"), "attempt interrupted (worker stopped)");
  EXPECT_EQ(str_of(newest, "status"), "failed");
  EXPECT_EQ(str_of(newest, "error"), "attempt interrupted (worker stopped); no attempts left");
  EXPECT_EQ(receiver.requests().size(), 0u);
}

// --- retention ---------------------------------------------------------------------

// Rows of one tenant written directly, with the ages a retention test needs.
struct OldRows {
  int64_t tenant = 0;
  int64_t hook = 0;
  std::string event(int age_days) const {
    return sql("INSERT INTO events (tenant_id, type, payload, created_at) VALUES (" +
               to_string(tenant) + ", 'member.removed', '{}', now() - interval '" +
               std::to_string(age_days) + " days') RETURNING id")
        .at(0);
  }
  // Pending rows are due only tomorrow, so no worker sends them meanwhile.
  std::string delivery(const std::string& event, const std::string& status, int age_days) const {
    return sql("INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url, "
               "status, attempts, next_attempt_at, created_at) VALUES (" +
               to_string(tenant) + ", " + to_string(hook) + ", " + event +
               ", 'member.removed', 'http://127.0.0.1:1024/none', '" + status +
               "', 1, now() + interval '1 day', now() - interval '" + std::to_string(age_days) +
               " days') RETURNING id")
        .at(0);
  }
  std::vector<std::string> events() const {
    return sql("SELECT id FROM events WHERE tenant_id = " + to_string(tenant) + " ORDER BY id");
  }
  std::vector<std::string> deliveries() const {
    return sql("SELECT id FROM webhook_deliveries WHERE tenant_id = " + to_string(tenant) +
               " ORDER BY id");
  }
};

// RETENTION_DAYS (default 30): delivered and failed deliveries older than
// that go, and then the events of that age no delivery refers to; pending
// deliveries, younger rows, and events a remaining delivery refers to stay.
TEST_F(WebhooksTest, RetentionPurgesOldFinishedDeliveriesAndTheEventsNoDeliveryNeeds) {
  std::string admin = admin_token();
  OldRows rows{create_tenant(admin), 0};
  StackWorkerPause pause;
  rows.hook =
      create_hook(admin, rows.tenant, "http://127.0.0.1:1024/none", R"(["member.removed"])").id;
  std::string delivered_event = rows.event(40);
  std::string delivered = rows.delivery(delivered_event, "delivered", 40);
  std::string failed_event = rows.event(40);
  std::string failed = rows.delivery(failed_event, "failed", 31);
  std::string pending_event = rows.event(40);
  std::string pending = rows.delivery(pending_event, "pending", 40);
  std::string lonely_event = rows.event(31);  // no subscription wanted it
  std::string shared_event = rows.event(40);  // one delivery goes, one is young enough to stay
  std::string shared_old = rows.delivery(shared_event, "delivered", 40);
  std::string shared_young = rows.delivery(shared_event, "failed", 29);
  std::string young_event = rows.event(29);
  std::string young = rows.delivery(young_event, "delivered", 29);
  std::string new_event = rows.event(0);
  std::string new_delivery = rows.delivery(new_event, "delivered", 0);
  std::string new_lonely_event = rows.event(0);

  // RETENTION_DAYS=0 keeps everything.
  ASSERT_TRUE(run_worker_once({{"RETENTION_DAYS", "0"}}));
  EXPECT_EQ(rows.events().size(), 8u);
  EXPECT_EQ(rows.deliveries().size(), 7u);

  ASSERT_TRUE(run_worker_once());
  EXPECT_EQ(rows.deliveries(),
            (std::vector<std::string>{pending, shared_young, young, new_delivery}));
  EXPECT_EQ(rows.events(), (std::vector<std::string>{pending_event, shared_event, young_event,
                                                     new_event, new_lonely_event}));
  // What stays is untouched.
  EXPECT_EQ(sql("SELECT status || '|' || attempts FROM webhook_deliveries WHERE tenant_id = " +
                to_string(rows.tenant) + " AND id = " + pending),
            (std::vector<std::string>{"pending|1"}));
}

TEST_F(WebhooksTest, DeletedWebhookGetsNothingNewAndKeepsItsRecords) {
  auto [admin, tenant, member] = tenant_with_member();
  Receiver gone_rx, kept_rx;
  Hook gone = create_hook(admin, tenant, gone_rx.url());
  Hook kept = create_hook(admin, tenant, kept_rx.url());

  set_role(admin, tenant, member.id, "ADMIN");
  ASSERT_TRUE(wait_newest_delivery(admin, tenant, gone.id, "delivered"));
  ASSERT_TRUE(kept_rx.wait_for(1, 30s));
  HttpResponse del =
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(gone.id), {.token = admin});
  ASSERT_EQ(del.status, 200) << del.body;

  set_role(admin, tenant, member.id, "MEMBER");
  // Fan-out happens in the event's transaction: no row for the deleted webhook.
  HttpResponse records = hook_deliveries(admin, tenant, gone.id);
  EXPECT_EQ(records.integer("total"), 1) << records.body;
  EXPECT_EQ(str_of(cJSON_GetArrayItem(records["data"], 0), "status"), "delivered");
  // The live subscription gets the second event; the deleted one does not.
  ASSERT_TRUE(kept_rx.wait_for(2, 30s));
  EXPECT_EQ(gone_rx.requests().size(), 1u);
}

TEST_F(WebhooksTest, DeletingAWebhookEndsItsPendingDeliveries) {
  auto [admin, tenant, member] = tenant_with_member();
  Receiver gone_rx, kept_rx;
  StackWorkerPause pause;
  Hook gone = create_hook(admin, tenant, gone_rx.url());
  Hook kept = create_hook(admin, tenant, kept_rx.url());
  set_role(admin, tenant, member.id, "ADMIN");
  HttpResponse before = hook_deliveries(admin, tenant, gone.id);
  ASSERT_EQ(before.integer("total"), 1);
  EXPECT_EQ(str_of(cJSON_GetArrayItem(before["data"], 0), "status"), "pending");

  HttpResponse del =
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(gone.id), {.token = admin});
  ASSERT_EQ(del.status, 200) << del.body;
  HttpResponse after = hook_deliveries(admin, tenant, gone.id);
  const cJSON* row = cJSON_GetArrayItem(after["data"], 0);
  EXPECT_EQ(str_of(row, "status"), "failed");
  EXPECT_EQ(str_of(row, "error"), "webhook deleted");
  EXPECT_EQ(json_get_int(row, "attempts"), 0);
  EXPECT_TRUE(cJSON_IsNull(json_get(row, "last_attempt_at")));

  pause.resume();
  ASSERT_TRUE(kept_rx.wait_for(1, 30s));
  ASSERT_TRUE(wait_newest_delivery(admin, tenant, kept.id, "delivered"));
  EXPECT_EQ(gone_rx.requests().size(), 0u);
}

TEST_F(WebhooksTest, DeliveryTimeCheckRefusesPrivateTargets) {
  // The stack allows private targets (the receiver is on 127.0.0.1), so the
  // subscription is accepted; a worker that does not allow them must refuse
  // the address it would connect to.
  ASSERT_LE(max_attempts(), 4) << "the stack must run with a small WEBHOOK_MAX_ATTEMPTS";
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  StackWorkerPause pause;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  add_user(admin, tenant, "MEMBER");
  WorkerProcess strict(std::map<std::string, std::string>{{"WEBHOOK_ALLOW_PRIVATE_TARGETS", "0"}});
  Json record = wait_newest_delivery(admin, tenant, hook.id, "failed", 60s);
  ASSERT_TRUE(record);
  // The record a tenant admin reads names no address (a host name's
  // address would map internal DNS); the worker's log has it.
  EXPECT_EQ(str_of(record.get(), "error"),
            "refused to connect: the target does not point to a public address (webhook targets "
            "must be public)");
  EXPECT_EQ(json_get_int(record.get(), "attempts"), max_attempts());
  EXPECT_EQ(receiver.requests().size(), 0u);
}

// A delivery whose URL names a port outside 80, 443 and 1024-65535 (one
// written before the rule, here set directly) is refused when the worker
// connects, every attempt, and the receiver never hears of it.
TEST_F(WebhooksTest, DeliveryTimeCheckRefusesDisallowedPorts) {
  ASSERT_LE(max_attempts(), 4) << "the stack must run with a small WEBHOOK_MAX_ATTEMPTS";
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  Receiver receiver;
  StackWorkerPause pause;
  Hook hook = create_hook(admin, tenant, receiver.url(), R"(["user.registered"])");
  add_user(admin, tenant, "MEMBER");
  sql("UPDATE webhook_deliveries SET url = 'http://127.0.0.1:1023/hook' WHERE tenant_id = " +
      to_string(tenant));
  pause.resume();
  Json record = wait_newest_delivery(admin, tenant, hook.id, "failed", 60s);
  ASSERT_TRUE(record);
  EXPECT_EQ(str_of(record.get(), "error"),
            "refused to connect: port 1023 is not allowed (webhook targets must use port 80, 443 "
            "or 1024 to 65535)");
  EXPECT_EQ(json_get_int(record.get(), "attempts"), max_attempts());
  EXPECT_EQ(receiver.requests().size(), 0u);
}

// Fairness between subscriptions and tenants (handlers/worker/webhook_tasks.cc):
// a receiver that hangs holds a few of a worker's slots, and everything else
// keeps being delivered meanwhile. The tests' worker waits 30 s for an
// answer, so "meanwhile" is unmistakable; closing the silent port ends the
// hanging attempts at once.
const std::map<std::string, std::string> kLongTimeout{{"WEBHOOK_TIMEOUT_SECONDS", "30"}};

// "attempted|ended" of the rows matching `where`: attempts started, and
// attempts whose outcome was recorded (an error; nothing here is delivered).
std::string attempts_of(const std::string& where) {
  return sql(
      "SELECT count(*) FILTER (WHERE attempts > 0) || '|' || "
      "count(*) FILTER (WHERE error IS NOT NULL) FROM webhook_deliveries WHERE " +
      where)[0];
}

TEST_F(WebhooksTest, HangingReceiverHoldsFourSlotsAndTheNextSubscriptionIsNotKeptWaiting) {
  auto [admin, tenant, member] = tenant_with_member();
  SilentPort silent;
  Receiver fast;
  StackWorkerPause pause;
  Hook slow = create_hook(admin, tenant, silent.url(), R"(["member.role_updated"])");
  // Twenty rows, all older than the other subscription's: oldest-first
  // batches of 16 would send only these.
  toggle_role(admin, tenant, member.id, 20);
  Hook quick = create_hook(admin, tenant, fast.url(), R"(["member.role_updated"])");
  set_role(admin, tenant, member.id, "ADMIN");
  std::string slow_rows =
      "tenant_id = " + to_string(tenant) + " AND webhook_id = " + to_string(slow.id);
  ASSERT_EQ(attempts_of(slow_rows), "0|0");

  WorkerProcess worker(kLongTimeout);
  ASSERT_TRUE(fast.wait_for(1, 30s));
  // Four of the hanging subscription's rows are in flight, none has ended.
  EXPECT_EQ(attempts_of(slow_rows), "4|0");
  EXPECT_TRUE(silent.wait_accepted(4, 10s)) << silent.accepted();
  EXPECT_TRUE(wait_newest_delivery(admin, tenant, quick.id, "delivered"));
  // The slots stay held while they hang: no fifth row is started.
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(attempts_of(slow_rows), "4|0");
  EXPECT_EQ(silent.accepted(), 4);

  // Deleting ends the rest; closing the port ends the four at once.
  ASSERT_EQ(
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(slow.id), {.token = admin}).status,
      200);
  silent.close();
  EXPECT_TRUE(worker.stop());
  EXPECT_EQ(
      sql("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND " + slow_rows)[0],
      "0");
}

TEST_F(WebhooksTest, TenantWithManyHangingReceiversHoldsEightSlotsAndOtherTenantsAreServed) {
  std::string admin = admin_token();
  int64_t busy = create_tenant(admin);
  TestUser member = add_user(admin, busy, "MEMBER");
  SilentPort silent;
  StackWorkerPause pause;
  // Five subscriptions of four rows each: 20 rows the per-subscription limit
  // would let a worker send at once.
  std::vector<Hook> hooks;
  for (int i = 0; i < 5; ++i) {
    hooks.push_back(create_hook(admin, busy, silent.url("/hook" + std::to_string(i)),
                                R"(["member.role_updated"])"));
  }
  toggle_role(admin, busy, member.id, 4);
  std::string busy_rows = "tenant_id = " + to_string(busy);
  ASSERT_EQ(attempts_of(busy_rows), "0|0");

  WorkerProcess worker(kLongTimeout);
  EXPECT_TRUE(silent.wait_accepted(8, 30s)) << silent.accepted();
  // Past the worker's next claims (one a second while nothing finishes):
  // still eight.
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(attempts_of(busy_rows), "8|0");
  EXPECT_EQ(silent.accepted(), 8);

  // Another tenant's event, made while the eight hang, is delivered.
  int64_t other = create_tenant(admin);
  Receiver fast;
  Hook hook = create_hook(admin, other, fast.url(), R"(["user.registered"])");
  add_user(admin, other, "MEMBER");
  ASSERT_TRUE(fast.wait_for(1, 30s));
  EXPECT_EQ(attempts_of(busy_rows), "8|0");
  EXPECT_TRUE(wait_newest_delivery(admin, other, hook.id, "delivered"));

  for (const Hook& h : hooks) {
    ASSERT_EQ(
        http("DELETE", webhooks_path(busy) + "?id=" + to_string(h.id), {.token = admin}).status,
        200);
  }
  silent.close();
  EXPECT_TRUE(worker.stop());
}

TEST_F(WebhooksTest, AFailingSubscriptionIsSentOneRowAtATime) {
  auto [admin, tenant, member] = tenant_with_member();
  SilentPort silent;
  StackWorkerPause pause;
  Hook hook = create_hook(admin, tenant, silent.url(), R"(["member.role_updated"])");
  toggle_role(admin, tenant, member.id, 10);
  std::string rows = "tenant_id = " + to_string(tenant) + " AND webhook_id = " + to_string(hook.id);
  const std::string failing = "SELECT (failing_since IS NOT NULL)::text FROM webhooks WHERE " +
                              std::string("tenant_id = ") + to_string(tenant) +
                              " AND id = " + to_string(hook.id);
  ASSERT_EQ(sql(failing), (std::vector<std::string>{"false"}));
  {
    // Its first four attempts time out after 1 s: the subscription is failing.
    WorkerProcess impatient(std::map<std::string, std::string>{{"WEBHOOK_TIMEOUT_SECONDS", "1"}});
    auto deadline = Clock::now() + 30s;
    while (sql("SELECT count(*) FROM webhook_deliveries WHERE error IS NOT NULL AND " + rows)[0] ==
               "0" &&
           Clock::now() < deadline) {
      std::this_thread::sleep_for(50ms);
    }
    EXPECT_TRUE(impatient.stop());
  }
  ASSERT_EQ(sql(failing), (std::vector<std::string>{"true"}));

  // Now one row at a time, however many are due (fresh ones and retries).
  int before = silent.accepted();
  WorkerProcess patient(kLongTimeout);
  EXPECT_TRUE(silent.wait_accepted(before + 1, 10s)) << silent.accepted() - before;
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(silent.accepted(), before + 1);
  EXPECT_EQ(sql("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' "
                "AND lease_until > now() AND " +
                rows),
            (std::vector<std::string>{"1"}));

  ASSERT_EQ(
      http("DELETE", webhooks_path(tenant) + "?id=" + to_string(hook.id), {.token = admin}).status,
      200);
  silent.close();
  EXPECT_TRUE(patient.stop());
}

}  // namespace
}  // namespace ca::test
