// Request ids and structured logs over the real stack (issue 30, items 3 and
// 4): X-Request-Id chosen by nginx (the client's own when sane) on every
// response, in nginx's access log, in the handler's log lines and in 500
// bodies; LOG_FORMAT=json lines of a handler and a worker of this test; and
// no password, token, webhook secret or webhook URL in any log of the stack.
//
// The stack runs in text mode (other tests read its text lines); the JSON
// lines come from a webhooks handler and a worker pass this test starts with
// LOG_FORMAT=json, as webhooks_test.cc starts its own handler.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mailbox.h"
#include "own_handler.h"
#include "receiver.h"
#include "stack.h"

namespace ca::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::regex kNginxId("^[0-9a-f]{32}$");

// The lines of `path` that contain `needle`, polled until one does or
// `timeout` passes (nginx flushes its buffered access log every second).
std::vector<std::string> lines_with(const std::string& path, const std::string& needle,
                                    std::chrono::seconds timeout = 10s) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    std::vector<std::string> out = text_lines_with(file_text(path), needle);
    if (!out.empty() || Clock::now() > deadline) return out;
    std::this_thread::sleep_for(100ms);
  }
}

HttpResponse get_with_id(const std::string& path, const std::string& id) {
  return http("GET", path, {.headers = {"X-Request-Id: " + id}});
}

TEST(RequestIds, NginxGivesEveryResponseAFreshIdWhenTheClientSendsNone) {
  HttpResponse a = http("GET", "/api/v2/admin/ping");
  HttpResponse b = http("GET", "/api/v2/admin/ping");
  EXPECT_EQ(a.status, 200);
  EXPECT_TRUE(std::regex_match(a.headers["x-request-id"], kNginxId)) << a.headers["x-request-id"];
  EXPECT_TRUE(std::regex_match(b.headers["x-request-id"], kNginxId)) << b.headers["x-request-id"];
  EXPECT_NE(a.headers["x-request-id"], b.headers["x-request-id"]);
  // Answers nginx makes itself carry one too: no route, and a handler's 401.
  HttpResponse none = http("GET", "/no/such/route");
  EXPECT_EQ(none.status, 404);
  EXPECT_TRUE(std::regex_match(none.headers["x-request-id"], kNginxId));
  HttpResponse unauthenticated = http("GET", "/api/v2/admin/tenants");
  EXPECT_EQ(unauthenticated.status, 401);
  EXPECT_TRUE(std::regex_match(unauthenticated.headers["x-request-id"], kNginxId));
}

TEST(RequestIds, ASaneClientIdIsKeptAndAnythingElseReplaced) {
  std::string mine = unique("trace.A_b") + "-" + repeat("x", 10);
  EXPECT_EQ(get_with_id("/api/v2/admin/ping", mine).headers["x-request-id"], mine);
  EXPECT_EQ(get_with_id("/no/such/route", mine).headers["x-request-id"], mine);
  std::string longest = repeat("a", 64);
  EXPECT_EQ(get_with_id("/api/v2/admin/ping", longest).headers["x-request-id"], longest);
  for (const std::string& bad : {repeat("a", 65), std::string("two words"), std::string("a\"b"),
                                 std::string("a/b"), std::string("line=forged")}) {
    HttpResponse r = get_with_id("/api/v2/admin/ping", bad);
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(std::regex_match(r.headers["x-request-id"], kNginxId))
        << bad << " -> " << r.headers["x-request-id"];
  }
}

TEST(RequestIds, TheAccessLogCarriesTheId) {
  std::string mine = unique("access");
  ASSERT_EQ(get_with_id("/api/v2/admin/ping", mine).status, 200);
  std::vector<std::string> lines =
      lines_with(state_dir() + "/nginx/access.log", "request_id=" + mine + " ");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"GET /api/v2/admin/ping HTTP/1.1\" 200 "), std::string::npos)
      << lines[0];
}

TEST(RequestIds, AFiveHundredBodyAndTheHandlersLogLineCarryTheId) {
  Scope s = fresh_scope(admin_token());
  CategoryInsertFailure failure;
  const std::string& name = failure.name();

  std::string mine = unique("five-hundred");
  Call call = s.call("{\"name\":\"" + name + "\"}");
  call.headers.push_back("X-Request-Id: " + mine);
  HttpResponse r = http("POST", "/api/v2/admin/category/create", call);
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.headers["x-request-id"], mine);
  // One of the two documented 500 shapes (which one is the endpoint's
  // ErrorStyle), plus the id.
  EXPECT_EQ(r.str("request_id"), mine) << r.body;
  cJSON_DeleteItemFromObject(r.json.get(), "request_id");
  EXPECT_TRUE(json_eq(r.json.get(), R"({"error":"Internal server error"})") ||
              json_eq(r.json.get(), R"({"success":false,"message":"Internal server error",)"
                                    R"("error":"The request could not be completed; nothing )"
                                    R"(was saved."})"))
      << r.body;

  // Without a client id, the body names the one nginx made.
  call.headers.clear();
  HttpResponse generated = http("POST", "/api/v2/admin/category/create", call);
  EXPECT_EQ(generated.status, 500);
  std::string id = generated.headers["x-request-id"];
  EXPECT_TRUE(std::regex_match(id, kNginxId));
  EXPECT_EQ(generated.str("request_id"), id);

  std::vector<std::string> lines =
      lines_with(state_dir() + "/log/categories.log", "request_id=" + mine);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("error: internal error: "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("injected failure " + name), std::string::npos) << lines[0];
}

// --- JSON lines -------------------------------------------------------------------

// A `commerce-admin-webhooks` of this test with LOG_FORMAT=json, spoken to
// as nginx would (REQUEST_ID included).
OwnHandler json_webhooks_handler() {
  return OwnHandler("commerce-admin-webhooks", "obs-test", {{"LOG_FORMAT", "json"}});
}

// The one JSON line of `path` holding `needle`, parsed (null when not exactly one).
Json json_line_with(const std::string& path, const std::string& needle) {
  std::vector<std::string> lines = lines_with(path, needle);
  EXPECT_EQ(lines.size(), 1u) << file_text(path);
  if (lines.size() != 1) return nullptr;
  Json line = json_parse(lines[0]);
  EXPECT_TRUE(line) << "not JSON: " << lines[0];
  return line;
}

bool is_utc_millis(const cJSON* v) {
  static const std::regex kTime(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
  return cJSON_IsString(v) && std::regex_match(v->valuestring, kTime);
}

TEST(StructuredLogs, AJsonHandlerWritesOneLinePerRequestWithItsRouteAndWho) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  int64_t user = token_user_id(admin);
  OwnHandler handler = json_webhooks_handler();
  std::string id = unique("json-line");
  ASSERT_EQ(handler
                .call({.method = "GET",
                       .uri = "/api/v2/admin/webhooks/" + to_string(tenant),
                       .token = admin,
                       .request_id = id})
                .status,
            "Status: 200 OK");

  Json line = json_line_with(handler.log(), "\"request_id\":\"" + id + "\"");
  ASSERT_TRUE(line);
  EXPECT_EQ(json_keys(line.get()),
            (std::vector<std::string>{"db_ms", "db_round_trips", "duration_ms", "level", "message",
                                      "method", "program", "request_id", "route", "status",
                                      "tenant_id", "time", "user_id"}))
      << json_dump(line.get());
  EXPECT_TRUE(is_utc_millis(json_get(line.get(), "time"))) << json_dump(line.get());
  EXPECT_EQ(json_get_str(line.get(), "level").value_or(""), "info");
  EXPECT_EQ(json_get_str(line.get(), "program").value_or(""), "commerce-admin-webhooks");
  EXPECT_EQ(json_get_str(line.get(), "message").value_or(""), "request");
  EXPECT_EQ(json_get_str(line.get(), "method").value_or(""), "GET");
  // The route's pattern, not the path.
  EXPECT_EQ(json_get_str(line.get(), "route").value_or(""), "/api/v2/admin/webhooks/{tenantId}");
  EXPECT_EQ(json_get_int(line.get(), "status").value_or(0), 200);
  EXPECT_EQ(json_get_int(line.get(), "tenant_id").value_or(0), tenant);
  EXPECT_EQ(json_get_int(line.get(), "user_id").value_or(0), user);
  const cJSON* duration = json_get(line.get(), "duration_ms");
  const cJSON* db = json_get(line.get(), "db_ms");
  ASSERT_TRUE(cJSON_IsNumber(duration) && cJSON_IsNumber(db)) << json_dump(line.get());
  // The session check took a round trip, within the request's time.
  EXPECT_GT(db->valuedouble, 0);
  EXPECT_LE(db->valuedouble, duration->valuedouble);

  // An unknown route: no pattern, no one authenticated.
  std::string other = unique("json-404");
  ASSERT_EQ(handler
                .call({.method = "GET",
                       .uri = "/api/v2/admin/webhooks/x/y",
                       .token = admin,
                       .request_id = other})
                .status,
            "Status: 404 Not Found");
  Json missing = json_line_with(handler.log(), "\"request_id\":\"" + other + "\"");
  ASSERT_TRUE(missing);
  EXPECT_EQ(json_get_str(missing.get(), "route").value_or(""), "(none)");
  EXPECT_EQ(json_get_int(missing.get(), "status").value_or(0), 404);
  EXPECT_EQ(json_get(missing.get(), "user_id"), nullptr);
}

// One pass of `commerce-admin-worker` with LOG_FORMAT=json; true when it exited 0.
bool json_worker_pass(const std::string& log) {
  pid_t pid = start_with_stack_env("commerce-admin-worker", log, {{"LOG_FORMAT", "json"}});
  if (pid <= 0) return false;
  auto deadline = Clock::now() + 60s;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(20ms);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A login, a webhook whose URL path is a secret, its signing secret, a
// delivery (logged as JSON by a worker of this test) and a request of the
// JSON handler: none of the secrets appear in any log of the stack.
TEST(StructuredLogs, NoPasswordTokenSecretOrWebhookUrlInAnyLog) {
  signal(SIGPIPE, SIG_IGN);
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  TestUser user = add_user(admin, tenant, "ADMIN");
  std::string wrong_password = unique("Wrong-password");
  EXPECT_EQ(login_response(user.email, wrong_password).status, 401);
  std::string token = login(user.email, user.password);

  Receiver receiver;
  std::string path_secret = unique("pathsecret");
  std::string url = receiver.url("/hook/" + path_secret);
  std::string whsec;
  int64_t hook = 0;
  {
    StackWorkerPause pause;
    HttpResponse created = http("POST", "/api/v2/admin/webhooks/" + to_string(tenant),
                                {.token = token,
                                 .body = R"({"url":")" + url + R"(","events":["*"]})",
                                 .headers = {"X-Request-Id: " + unique("create-hook")}});
    ASSERT_EQ(created.status, 201) << created.body;
    whsec = created.str("secret");
    hook = created.integer("id");
    ASSERT_EQ(whsec.rfind("whsec_", 0), 0u) << whsec;
    // An event for it: member.role_updated.
    HttpResponse role =
        http("POST", "/api/v2/admin/team-members/" + to_string(tenant) + "/" + to_string(user.id),
             {.token = admin, .body = R"({"role":"MEMBER"})"});
    ASSERT_EQ(role.status, 200) << role.body;

    OwnHandler handler = json_webhooks_handler();
    EXPECT_EQ(handler
                  .call({.method = "GET",
                         .uri = "/api/v2/admin/webhooks/" + to_string(tenant),
                         .token = admin,
                         .request_id = unique("json-list")})
                  .status,
              "Status: 200 OK");
    std::string log = state_dir() + "/log/obs-worker-" + std::to_string(getpid()) + ".log";
    ASSERT_TRUE(json_worker_pass(log));
    ASSERT_TRUE(receiver.wait_for(1, 30s)) << "no delivery arrived";
    EXPECT_EQ(receiver.requests()[0].path, "/hook/" + path_secret);

    Json attempt = json_line_with(log, "\"webhook_id\":" + to_string(hook) + ",");
    ASSERT_TRUE(attempt);
    EXPECT_EQ(json_get_str(attempt.get(), "message").value_or(""), "webhook delivery attempt");
    EXPECT_EQ(json_get_str(attempt.get(), "program").value_or(""), "commerce-admin-worker");
    EXPECT_EQ(json_get_int(attempt.get(), "tenant_id").value_or(0), tenant);
    EXPECT_GT(json_get_int(attempt.get(), "delivery_id").value_or(0), 0);
    EXPECT_EQ(json_get_int(attempt.get(), "attempt").value_or(0), 1);
    EXPECT_EQ(json_get_str(attempt.get(), "outcome").value_or(""), "delivered");
    EXPECT_EQ(json_get_int(attempt.get(), "status").value_or(0), 200);
    EXPECT_TRUE(cJSON_IsNumber(json_get(attempt.get(), "duration_ms")));
    Json pass = json_line_with(log, "\"task\":\"webhook deliveries\"");
    ASSERT_TRUE(pass);
    EXPECT_EQ(json_get_str(pass.get(), "message").value_or(""), "worker pass");
    EXPECT_GE(json_get_int(pass.get(), "processed").value_or(0), 1);
  }

  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(state_dir() + "/log")) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  files.push_back(state_dir() + "/nginx/access.log");
  ASSERT_GT(files.size(), 5u);
  std::string jwt_signature = token.substr(token.rfind('.') + 1);
  for (const std::string& file : files) {
    std::string text = file_text(file);
    for (const std::string& secret : {user.password, wrong_password, token, jwt_signature, whsec,
                                      whsec.substr(6), path_secret, url}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << file << " holds " << secret;
    }
  }
}

// --- Round trips to PostgreSQL (issue 28) ------------------------------------------

// The db_round_trips of the request line with that request id (-1: none).
int64_t round_trips(const OwnHandler& handler, const std::string& request_id) {
  Json line = json_line_with(handler.log(), "\"request_id\":\"" + request_id + "\"");
  if (!line) return -1;
  return json_get_int(line.get(), "db_round_trips").value_or(-1);
}

// POSTs `body` as nginx would; the answer's status line.
std::string post(const OwnHandler& handler, const std::string& uri, const std::string& token,
                 const std::string& request_id, const std::string& body,
                 const std::map<std::string, std::string>& params = {}) {
  return handler
      .call({.method = "POST",
             .uri = uri,
             .token = token,
             .body = body,
             .request_id = request_id,
             .params = params})
      .status;
}

// A tenant with a MEMBER who has an address, and a product.
struct OrderShop {
  int64_t tenant = 0;
  TestUser buyer;
  std::string body;  // an order of two items
};

OrderShop order_shop() {
  OrderShop s;
  std::string admin = admin_token();
  s.tenant = create_tenant(admin, unique("trips"));
  s.buyer = add_user(admin, s.tenant, "MEMBER");
  HttpResponse address =
      http("POST", "/api/v2/admin/addresses",
           {.token = s.buyer.token,
            .body = R"({"street":"Main 1","city":"Berlin","country":"DE","postal_code":"10115"})"});
  EXPECT_EQ(address.status, 201) << address.body;
  HttpResponse product = http(
      "POST", "/api/v2/admin/products",
      {.token = admin, .tenant = to_string(s.tenant), .body = R"({"name":"Shirt","price":4.5})"});
  EXPECT_EQ(product.status, 201) << product.body;
  std::string item =
      R"({"product_id":)" + to_string(product.integer("id")) + R"(,"qty":1,"amount":4.5})";
  s.body = R"({"address_id":)" + to_string(address.integer("id")) +
           R"(,"payment_type":1,"total_amount":9,"order_items":[)" + item + "," + item + "]}";
  return s;
}

// POST /orders in at most three round trips, the session check included
// (common/request_tx.h): two without an Idempotency-Key (the check with the
// ids from the sequences; the one call that checks and writes the order, its
// items and its event, sql/060); with a key three (BEGIN, check, claim and
// ids; the call; the answer and COMMIT), and two for a replay. Counted by the
// handler (Db) for its request line.
TEST(RoundTrips, PostOrdersTakesTwoRoundTripsAndThreeWithAnIdempotencyKey) {
  OrderShop s = order_shop();
  OwnHandler handler("commerce-admin-orders", "trips-test", {{"LOG_FORMAT", "json"}});
  const std::string kUri = "/api/v2/admin/orders";
  std::map<std::string, std::string> tenant{{"HTTP_X_TENANT_ID", to_string(s.tenant)}};
  // The handler's first request opens its connection.
  ASSERT_EQ(post(handler, kUri, s.buyer.token, unique("warm"), s.body, tenant),
            "Status: 201 Created");

  std::string plain = unique("order");
  ASSERT_EQ(post(handler, kUri, s.buyer.token, plain, s.body, tenant), "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, plain), 2);

  std::map<std::string, std::string> keyed = tenant;
  keyed["HTTP_IDEMPOTENCY_KEY"] = unique("key");
  std::string first = unique("keyed");
  ASSERT_EQ(post(handler, kUri, s.buyer.token, first, s.body, keyed), "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, first), 3);
  std::string replay = unique("replay");
  ASSERT_EQ(post(handler, kUri, s.buyer.token, replay, s.body, keyed), "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, replay), 2);
  EXPECT_EQ(sql("SELECT count(*) FROM orders WHERE tenant_id = " + to_string(s.tenant)),
            std::vector<std::string>{"3"});

  // A status change: the check with the events' ids; the call (the lock,
  // the change, its events, sql/063) and the order read back.
  std::string order = sql("SELECT max(id) FROM orders WHERE tenant_id = " + to_string(s.tenant))[0];
  std::string status = unique("status");
  ASSERT_EQ(post(handler, kUri + "/" + order + "/status", s.buyer.token, status,
                 R"({"status":"processing"})", tenant),
            "Status: 200 OK");
  EXPECT_EQ(round_trips(handler, status), 2);
  // An address: the check and the insert.
  std::string address = unique("address");
  ASSERT_EQ(post(handler, "/api/v2/admin/addresses", s.buyer.token, address,
                 R"({"street":"Side 2","city":"Bonn","country":"DE","postal_code":"53111"})"),
            "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, address), 1);
}

// A product's create: the session check with the product's and event's ids,
// then one call that checks the category and writes the product, its audit
// entry and its event (product_write.cc, sql/061).
TEST(RoundTrips, PostProductsTakesTwoRoundTrips) {
  OrderShop s = order_shop();
  OwnHandler handler("commerce-admin-products", "trips-products", {{"LOG_FORMAT", "json"}});
  const std::string kUri = "/api/v2/admin/products";
  std::map<std::string, std::string> tenant{{"HTTP_X_TENANT_ID", to_string(s.tenant)}};
  // The handler's first request opens its connection.
  ASSERT_EQ(
      post(handler, kUri, s.buyer.token, unique("warm"), R"({"name":"Warm","price":1})", tenant),
      "Status: 201 Created");
  std::string created = unique("product");
  ASSERT_EQ(post(handler, kUri, s.buyer.token, created, R"({"name":"Trip","price":2})", tenant),
            "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, created), 2);
}

// A category's create: the session check with the category's and event's
// ids, then one call that writes it, its audit entry and its event.
TEST(RoundTrips, PostCategoryCreateTakesTwoRoundTrips) {
  OrderShop s = order_shop();
  OwnHandler handler("commerce-admin-categories", "trips-categories", {{"LOG_FORMAT", "json"}});
  const std::string kUri = "/api/v2/admin/category/create";
  std::map<std::string, std::string> tenant{{"HTTP_X_TENANT_ID", to_string(s.tenant)}};
  // The handler's first request opens its connection.
  ASSERT_EQ(post(handler, kUri, s.buyer.token, unique("warm"), R"({"name":"Warm"})", tenant),
            "Status: 201 Created");
  std::string created = unique("category");
  ASSERT_EQ(post(handler, kUri, s.buyer.token, created, R"({"name":"Trip"})", tenant),
            "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, created), 2);
}

// A category's delete: the session check with its events' ids (one per
// product it detaches), then one call that locks, detaches, deletes and
// writes the audit entry and the events (sql/063).
TEST(RoundTrips, CategoryDeleteTakesTwoRoundTrips) {
  OrderShop s = order_shop();
  std::string admin = admin_token();
  OwnHandler handler("commerce-admin-categories", "trips-category-delete",
                     {{"LOG_FORMAT", "json"}});
  std::map<std::string, std::string> tenant{{"HTTP_X_TENANT_ID", to_string(s.tenant)}};
  auto remove = [&](const std::string& name, const std::string& id) {
    HttpResponse made = http(
        "POST", "/api/v2/admin/category/create",
        {.token = admin, .tenant = to_string(s.tenant), .body = R"({"name":")" + name + R"("})"});
    EXPECT_EQ(made.status, 201) << made.body;
    std::string category =
        sql_one("SELECT max(id) FROM categories WHERE tenant_id = " + to_string(s.tenant));
    HttpResponse product =
        http("POST", "/api/v2/admin/products",
             {.token = admin,
              .tenant = to_string(s.tenant),
              .body = R"({"name":"In","price":1,"category_id":)" + category + "}"});
    EXPECT_EQ(product.status, 201) << product.body;
    return handler
        .call({.method = "DELETE",
               .uri = "/api/v2/admin/category/" + category,
               .token = admin,
               .request_id = id,
               .params = tenant})
        .status;
  };
  // The handler's first request opens its connection.
  ASSERT_EQ(remove("Warm", unique("warm")), "Status: 200 OK");
  std::string deleted = unique("deleted");
  ASSERT_EQ(remove("Trip", deleted), "Status: 200 OK");
  EXPECT_EQ(round_trips(handler, deleted), 2);
}

// A webhook's create: the caller's check before its URL's host is resolved,
// then the session check with the subscription's id, then one call that
// takes the tenant's turn, counts and writes it with its audit entry
// (sql/063). Its update: the caller's check, then the check and the call.
// A test event: the check with the event's and delivery's ids, the call.
TEST(RoundTrips, WebhookWritesTakeTwoOrThreeRoundTrips) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("trips-hooks"));
  OwnHandler handler("commerce-admin-webhooks", "trips-webhooks", {{"LOG_FORMAT", "json"}});
  const std::string base = "/api/v2/admin/webhooks/" + to_string(tenant);
  const std::string body = R"({"url":"http://127.0.0.1:1024/trips","events":["order.created"]})";
  // The handler's first request opens its connection.
  ASSERT_EQ(post(handler, base, admin, unique("warm"), body), "Status: 201 Created");
  std::string created = unique("created");
  ASSERT_EQ(post(handler, base, admin, created, body), "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, created), 3);
  std::string hook = sql_one("SELECT max(id) FROM webhooks WHERE tenant_id = " + to_string(tenant));
  std::string updated = unique("updated");
  ASSERT_EQ(post(handler, base + "/" + hook, admin, updated, R"({"description":"Trips"})"),
            "Status: 200 OK");
  EXPECT_EQ(round_trips(handler, updated), 2);
  std::string tested = unique("tested");
  // (The handler's status line names no reason for 202: common/http.cc.)
  ASSERT_EQ(post(handler, base + "/" + hook + "/test", admin, tested, "").substr(0, 11),
            "Status: 202");
  EXPECT_EQ(round_trips(handler, tested), 2);
  // The receiver does not exist: stop the worker retrying for the rest of the run.
  for (const std::string& id :
       sql("SELECT id FROM webhooks WHERE tenant_id = " + to_string(tenant))) {
    EXPECT_EQ(http("DELETE", base + "?id=" + id, {.token = admin}).status, 200);
  }
}

// A tenant's update: the session check and the call; a new time zone is
// asked with the session check, the call sent after it (decision 0143).
TEST(RoundTrips, TenantUpdateTakesOneRoundTripAndTwoWithATimeZone) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("trips-tenant"));
  OwnHandler handler("commerce-admin-tenants", "trips-tenants", {{"LOG_FORMAT", "json"}});
  const std::string uri = "/api/v2/admin/tenants/" + to_string(tenant);
  // The handler's first request opens its connection.
  ASSERT_EQ(post(handler, uri, admin, unique("warm"), R"({"name":"Warm"})"), "Status: 200 OK");
  std::string renamed = unique("rename");
  ASSERT_EQ(post(handler, uri, admin, renamed, R"({"name":"Trips"})"), "Status: 200 OK");
  EXPECT_EQ(round_trips(handler, renamed), 1);
  std::string zoned = unique("zone");
  ASSERT_EQ(post(handler, uri, admin, zoned, R"({"settings":{"timezone":"Europe/Paris"}})"),
            "Status: 200 OK");
  EXPECT_EQ(round_trips(handler, zoned), 2);
  std::string unknown = unique("unknown-zone");
  ASSERT_EQ(post(handler, uri, admin, unknown, R"({"settings":{"timezone":"Mars/Olympus"}})"),
            "Status: 422 Unprocessable Content");
  EXPECT_EQ(sql("SELECT name || ' ' || (settings->>'timezone') FROM tenants WHERE id = " +
                to_string(tenant)),
            std::vector<std::string>{"Trips Europe/Paris"});
}

// A logout: the session check and the revoke, one round trip; the token is
// refused on the next request.
TEST(RoundTrips, LogoutTakesOneRoundTrip) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("trips-logout"));
  TestUser user = add_user(admin, tenant, "MEMBER");
  OwnHandler handler("commerce-admin-auth", "trips-auth", {{"LOG_FORMAT", "json"}});
  const std::string kUri = "/api/v2/admin/logout";
  // The handler's first request opens its connection (a token of its own).
  ASSERT_EQ(post(handler, kUri, login(user.email, user.password), unique("warm"), ""),
            "Status: 200 OK");
  std::string out = unique("logout");
  ASSERT_EQ(post(handler, kUri, user.token, out, ""), "Status: 200 OK");
  EXPECT_EQ(round_trips(handler, out), 1);
  std::string again = unique("again");
  ASSERT_EQ(post(handler, kUri, user.token, again, ""), "Status: 401 Unauthorized");
  EXPECT_EQ(round_trips(handler, again), 1);
}

// Accepting an invitation: with an account, its session check and the one
// statement that claims, joins and emits; creating an account, the token's
// check before the password is hashed, then that statement.
TEST(RoundTrips, InvitationAcceptTakesOneRoundTripAndTwoForANewAccount) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("trips-accept"));
  int64_t other = create_tenant(admin, unique("trips-accept-other"));
  TestUser member = add_user(admin, other, "MEMBER");
  OwnHandler handler("commerce-admin-team-members", "trips-accept", {{"LOG_FORMAT", "json"}});
  const std::string kUri = "/api/v2/admin/invitations/accept";
  const std::string members = "/api/v2/admin/team-members/" + to_string(tenant);
  auto invite = [&](const std::string& email) {
    HttpResponse r =
        http("POST", members,
             {.token = admin, .body = R"({"email":)" + json_text(email) + R"(,"role":"MEMBER"})"});
    EXPECT_EQ(r.status, 201) << r.body;
    return invitation_token_of(r, tenant);
  };
  auto as_new = [&](const std::string& id) {
    return post(handler, kUri, "", id,
                R"({"token":)" + json_text(invite(unique("new") + "@example.com")) +
                    R"(,"name":"New","password":"password-1"})");
  };
  // The handler's first request opens its connection.
  ASSERT_EQ(as_new(unique("warm")), "Status: 201 Created");
  std::string joined = unique("joined");
  ASSERT_EQ(post(handler, kUri, member.token, joined,
                 R"({"token":)" + json_text(invite(member.email)) + "}"),
            "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, joined), 1);
  std::string created = unique("created");
  ASSERT_EQ(as_new(created), "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, created), 2);
  EXPECT_EQ(sql("SELECT count(*) FROM memberships WHERE tenant_id = " + to_string(tenant)),
            std::vector<std::string>{"4"});
}

// An API key's create: the session check with the key's id, then one call
// that takes the tenant's turn, counts its keys and writes the key and its
// audit entry (api_keys.cc, sql/064; one round trip before decision 0140).
TEST(RoundTrips, ApiKeyCreateTakesTwoRoundTrips) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("trips-key"));
  OwnHandler handler("commerce-admin-tenants", "trips-key", {{"LOG_FORMAT", "json"}});
  const std::string uri = "/api/v2/admin/api-keys/" + to_string(tenant);
  const std::string body = R"({"name":"Trip","scopes":["products:read"]})";
  // The handler's first request opens its connection.
  ASSERT_EQ(post(handler, uri, admin, unique("warm"), body), "Status: 201 Created");
  std::string created = unique("key");
  ASSERT_EQ(post(handler, uri, admin, created, body), "Status: 201 Created");
  EXPECT_EQ(round_trips(handler, created), 2);
}

// Removing a member: the session check and the event's id; then the call
// (the turn, the target, the removal, the audit entry and the event:
// decision 0142).
TEST(RoundTrips, MemberRemovalTakesTwoRoundTrips) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("trips-remove"));
  TestUser a = add_user(admin, tenant, "MEMBER");
  TestUser b = add_user(admin, tenant, "MEMBER");
  OwnHandler handler("commerce-admin-team-members", "trips-remove", {{"LOG_FORMAT", "json"}});
  const std::string base = "/api/v2/admin/team-members/" + to_string(tenant) + "/";
  auto remove = [&](const TestUser& u, const std::string& id) {
    return handler
        .call({.method = "DELETE", .uri = base + to_string(u.id), .token = admin, .request_id = id})
        .status;
  };
  // The handler's first request opens its connection.
  ASSERT_EQ(remove(a, unique("warm")), "Status: 200 OK");
  std::string removed = unique("removed");
  ASSERT_EQ(remove(b, removed), "Status: 200 OK");
  EXPECT_EQ(round_trips(handler, removed), 2);
}

// --- metrics (item 2) ---------------------------------------------------------------

HttpResponse metrics() {
  HttpResponse r = http("GET", "/metrics");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  return r;
}

TEST(Metrics, RequestsSpreadOverTheProcessesAreCountedExactly) {
  const std::string ping = R"(group="auth",method="GET",route="/api/v2/admin/ping")";
  const std::string count = "commerce_admin_http_requests_total{" + ping + R"(,status="2xx"})";
  const std::string histogram = "commerce_admin_http_request_duration_seconds_count{" + ping + "}";
  HttpResponse before = metrics();
  double count_before = std::max(0.0, metrics_sample(before.body, count));
  double histogram_before = std::max(0.0, metrics_sample(before.body, histogram));

  constexpr int kRequests = 300;
  std::vector<HttpResponse> answers =
      http_concurrent(kRequests, 12, [](int) { return http("GET", "/api/v2/admin/ping"); });
  for (const HttpResponse& r : answers) ASSERT_EQ(r.status, 200) << r.body;

  HttpResponse after = metrics();
  EXPECT_EQ(metrics_sample(after.body, count) - count_before, kRequests) << after.body;
  EXPECT_EQ(metrics_sample(after.body, histogram) - histogram_before, kRequests);
  EXPECT_EQ(metrics_sample(after.body, "commerce_admin_http_request_duration_seconds_bucket{" +
                                           ping + R"(,le="+Inf"})"),
            metrics_sample(after.body, histogram));
  // Each process of the group counts in a file of its own (the stack runs two).
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(state_dir() + "/run")) {
    std::string name = entry.path().filename().string();
    if (name.rfind("auth.", 0) == 0 && name.size() > 8 &&
        name.compare(name.size() - 8, 8, ".metrics") == 0) {
      ++files;
    }
  }
  EXPECT_GE(files, 2);
}

TEST(Metrics, StatusClassesAndUnmatchedRoutesAreCounted) {
  const std::string unauthenticated =
      R"(commerce_admin_http_requests_total{group="tenants",method="GET",)"
      R"(route="/api/v2/admin/tenants",status="4xx"})";
  double before = std::max(0.0, metrics_sample(metrics().body, unauthenticated));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(http("GET", "/api/v2/admin/tenants").status, 401);
  EXPECT_EQ(metrics_sample(metrics().body, unauthenticated) - before, 3);
}

TEST(Metrics, OnlyAllowedAddressesGetThem) {
  HttpResponse r = http("GET", "/metrics", {.source_ip = "127.0.0.2"});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"error":"Forbidden"})");
  EXPECT_TRUE(std::regex_match(r.headers["x-request-id"], kNginxId));
}

TEST(Metrics, BacklogGaugesAndTheWorkersLastPass) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin);
  std::string body;
  {
    StackWorkerPause pause;
    Receiver receiver;
    HttpResponse created =
        http("POST", "/api/v2/admin/webhooks/" + to_string(tenant),
             {.token = admin, .body = R"({"url":")" + receiver.url() + R"(","events":["*"]})"});
    ASSERT_EQ(created.status, 201) << created.body;
    double pending_before =
        metrics_sample(metrics().body, "commerce_admin_webhook_deliveries_pending");
    ASSERT_GE(pending_before, 0);
    add_user(admin, tenant, "MEMBER");  // user.registered, member.added: deliveries wait
    body = metrics().body;
    EXPECT_GT(metrics_sample(body, "commerce_admin_webhook_deliveries_pending"), pending_before)
        << body;
  }
  EXPECT_EQ(metrics_sample(body, "commerce_admin_database_up"), 1);
  for (const char* gauge :
       {"commerce_admin_webhook_oldest_due_seconds",
        "commerce_admin_webhook_deliveries_failed_last_hour", "commerce_admin_webhooks_failing",
        "commerce_admin_push_pending", R"(commerce_admin_db_unavailable_total{group="auth"})",
        R"(commerce_admin_db_statement_timeouts_total{group="auth"})"}) {
    EXPECT_GE(metrics_sample(body, gauge), 0) << gauge << "\n" << body;
  }
  // The stack's worker passes every second and records each good one.
  auto deadline = Clock::now() + 20s;
  double last = -1;
  while (Clock::now() < deadline) {
    last = metrics_sample(metrics().body, "commerce_admin_worker_last_success_timestamp_seconds");
    if (last > 0 && std::abs(last - static_cast<double>(std::time(nullptr))) < 10) break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_LT(std::abs(last - static_cast<double>(std::time(nullptr))), 10) << last;
}

}  // namespace
}  // namespace ca::test
