// Idempotency keys (common/idempotency.h, Stripe's contract): a retried
// keyed POST replays the first answer byte for byte and writes nothing; one
// key, two requests at once, one write; another request under a used key is
// 422; keys are per user and tenant; malformed keys are 400; failures are
// not stored; expired keys run again and the worker purges them.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

const std::string kOrders = "/api/v2/admin/orders";
const std::string kProducts = "/api/v2/admin/products";
const std::string kBadKey =
    R"({"error":"Idempotency-Key must be 1 to 255 printable ASCII characters"})";

std::string first(const std::vector<std::string>& rows) {
  return rows.empty() ? "<no row>" : rows[0];
}

int64_t count(const std::string& query) { return std::stoll(first(sql(query))); }

Call keyed(Call call, const std::string& key) {
  call.headers.push_back("Idempotency-Key: " + key);
  return call;
}

bool replayed(const HttpResponse& r) {
  auto it = r.headers.find("idempotent-replayed");
  return it != r.headers.end() && it->second == "true";
}

// open_shop()'s tenant (stack.h), with the calls the tests below repeat.
struct KeyShop : Shop {
  Call buyer_call(const std::string& body) const {
    return {.token = buyer.token, .tenant = tenant_str(), .body = body};
  }
  std::string order_body(int qty = 1) const {
    return R"({"address_id":)" + to_string(address) +
           R"(,"payment_type":1,"total_amount":4.5,"order_items":[{"product_id":)" +
           to_string(product) + R"(,"qty":)" + std::to_string(qty) + R"(,"amount":4.5}]})";
  }
  int64_t orders() const {
    return count("SELECT count(*) FROM orders WHERE tenant_id = " + tenant_str());
  }
  int64_t events() const {
    return count("SELECT count(*) FROM events WHERE tenant_id = " + tenant_str());
  }
};

KeyShop open_key_shop() { return {open_shop()}; }

TEST(Idempotency, RetryOfACommittedOrderReplaysItsAnswerAndWritesNothing) {
  KeyShop s = open_key_shop();
  std::string key = unique("order-key");
  HttpResponse first_answer = http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key));
  ASSERT_EQ(first_answer.status, 201) << first_answer.body;
  EXPECT_FALSE(first_answer.headers.count("idempotent-replayed"));
  const cJSON* data = first_answer["data"];
  int64_t order_id = int_of(data, "id");
  ASSERT_GT(order_id, 0);
  int64_t events = s.events();

  for (int retry = 0; retry < 2; ++retry) {
    HttpResponse again = http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key));
    EXPECT_EQ(again.status, 201);
    EXPECT_EQ(again.body, first_answer.body);  // byte for byte
    EXPECT_TRUE(replayed(again));
    EXPECT_EQ(again.headers["content-type"], first_answer.headers["content-type"]);
  }
  EXPECT_EQ(s.orders(), 1);
  EXPECT_EQ(s.events(), events);  // no second order.created
  HttpResponse list = http("GET", kOrders, {.token = s.admin, .tenant = s.tenant_str()});
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(int_of(json_get(list.json.get(), "data"), "total"), 1);
  EXPECT_EQ(int_of(json_get(json_get(list.json.get(), "data"), "data")->child, "id"), order_id);
}

TEST(Idempotency, WithoutTheHeaderEveryRequestWrites) {
  KeyShop s = open_key_shop();
  for (int i = 0; i < 2; ++i) {
    HttpResponse r = http("POST", kOrders, s.buyer_call(s.order_body()));
    EXPECT_EQ(r.status, 201) << r.body;
    EXPECT_FALSE(r.headers.count("idempotent-replayed"));
  }
  EXPECT_EQ(s.orders(), 2);
  EXPECT_EQ(count("SELECT count(*) FROM idempotency_keys WHERE tenant_id = " + s.tenant_str()), 0);
}

// The second request's claim waits for the first one's transaction (the
// product row is held by the test meanwhile), then replays its answer.
TEST(Idempotency, ARepeatWhileTheFirstRunsWaitsForItThenReplays) {
  KeyShop s = open_key_shop();
  std::string key = unique("order-key");
  PgConn holder = connect_database();
  ASSERT_TRUE(holder);
  ASSERT_TRUE(exec_ok(holder.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(holder.get(), "SELECT 1 FROM products WHERE tenant_id = " + s.tenant_str() +
                                        " AND id = " + to_string(s.product) + " FOR UPDATE"));
  auto post = [&] { return http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key)); };
  auto first_request = std::async(std::launch::async, post);
  ASSERT_TRUE(wait_for_lock_wait("%FROM ca_order_create(%"));
  auto second_request = std::async(std::launch::async, post);
  ASSERT_TRUE(wait_for_lock_wait("%INSERT INTO idempotency_keys%"));
  ASSERT_TRUE(exec_ok(holder.get(), "COMMIT"));
  HttpResponse a = first_request.get();
  HttpResponse b = second_request.get();
  EXPECT_EQ(a.status, 201) << a.body;
  EXPECT_FALSE(replayed(a));
  EXPECT_EQ(b.status, 201) << b.body;
  EXPECT_TRUE(replayed(b));
  EXPECT_EQ(b.body, a.body);
  EXPECT_EQ(s.orders(), 1);
}

TEST(Idempotency, ConcurrentRequestsWithOneKeyWriteOneOrder) {
  KeyShop s = open_key_shop();
  std::string key = unique("order-key");
  std::vector<HttpResponse> answers = http_concurrent(
      8, 8, [&](int) { return http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key)); });
  int fresh = 0;
  for (const HttpResponse& r : answers) {
    EXPECT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.body, answers[0].body);
    if (!replayed(r)) ++fresh;
  }
  EXPECT_EQ(fresh, 1);
  EXPECT_EQ(s.orders(), 1);
}

TEST(Idempotency, TheSameKeyWithAnotherRequestIs422) {
  KeyShop s = open_key_shop();
  std::string key = unique("order-key");
  HttpResponse r = http("POST", kOrders, keyed(s.buyer_call(s.order_body(1)), key));
  ASSERT_EQ(r.status, 201) << r.body;
  // Another body, in the endpoint's validation shape.
  HttpResponse other = http("POST", kOrders, keyed(s.buyer_call(s.order_body(2)), key));
  expect_body(other, 422,
              R"({"success":false,"errors":{"Idempotency-Key":["This Idempotency-Key was )"
              R"(already used with another request in the last 24 hours."]}})");
  // The same bytes, reformatted, are another request too.
  other = http("POST", kOrders, keyed(s.buyer_call(s.order_body(1) + " "), key));
  EXPECT_EQ(other.status, 422) << other.body;
  EXPECT_EQ(s.orders(), 1);
  // Another path in the same tenant (products answer in their own shape).
  HttpResponse product =
      http("POST", kProducts,
           keyed({.token = s.buyer.token, .tenant = s.tenant_str(), .body = s.order_body(1)}, key));
  expect_body(product, 422,
              R"({"message":"The given data was invalid.","errors":{"Idempotency-Key":["This )"
              R"(Idempotency-Key was already used with another request in the last 24 hours."]}})");
}

TEST(Idempotency, AKeyIsTheCallersInOneTenant) {
  Scope a = fresh_scope(admin_token());
  TestUser colleague = add_user(a.token, a.tenant, "MEMBER");
  int64_t other_tenant = create_tenant(a.token, unique("other"));
  std::string key = unique("shared-key");
  std::string body = R"({"name":"Mug","price":3})";
  auto products = [](int64_t tenant) {
    return count("SELECT count(*) FROM products WHERE tenant_id = " + to_string(tenant));
  };

  HttpResponse mine = http("POST", kProducts, keyed(a.call(body), key));
  ASSERT_EQ(mine.status, 201) << mine.body;
  // Another user of the tenant, same key and request: a request of its own.
  HttpResponse theirs = http(
      "POST", kProducts, keyed({.token = colleague.token, .tenant = a.tid(), .body = body}, key));
  ASSERT_EQ(theirs.status, 201) << theirs.body;
  EXPECT_FALSE(replayed(theirs));
  EXPECT_NE(theirs.integer("id"), mine.integer("id"));
  // The same user in another tenant: another request too.
  HttpResponse elsewhere =
      http("POST", kProducts,
           keyed({.token = a.token, .tenant = to_string(other_tenant), .body = body}, key));
  ASSERT_EQ(elsewhere.status, 201) << elsewhere.body;
  EXPECT_FALSE(replayed(elsewhere));
  EXPECT_EQ(products(a.tenant), 2);
  EXPECT_EQ(products(other_tenant), 1);
  // Each still replays its own.
  HttpResponse again = http(
      "POST", kProducts, keyed({.token = colleague.token, .tenant = a.tid(), .body = body}, key));
  EXPECT_TRUE(replayed(again));
  EXPECT_EQ(again.body, theirs.body);
  EXPECT_EQ(products(a.tenant), 2);
}

TEST(Idempotency, AMalformedKeyIs400AfterTheAccessChecks) {
  Scope s = fresh_scope(admin_token());
  std::string body = R"({"name":"Mug","price":3})";
  const std::vector<std::string> bad_headers = {
      "Idempotency-Key;",  // curl's way to send it empty
      "Idempotency-Key: " + std::string(256, 'k'),
      "Idempotency-Key: tab\there",
      "Idempotency-Key: del\x7f",
      "Idempotency-Key: ctl\x01x",
      "Idempotency-Key: caf\xc3\xa9",
  };
  for (const std::string& header : bad_headers) {
    Call call = s.call(body);
    call.headers.push_back(header);
    HttpResponse r = http("POST", kProducts, call);
    expect_body(r, 400, kBadKey);
  }
  EXPECT_EQ(count("SELECT count(*) FROM products WHERE tenant_id = " + s.tid()), 0);

  // 401 and 403 come first.
  Call no_token{.tenant = s.tid(), .body = body, .headers = {"Idempotency-Key;"}};
  EXPECT_TRUE(is_unauthenticated(http("POST", kProducts, no_token)));
  Scope stranger = fresh_scope(admin_token());
  TestUser outsider = add_user(stranger.token, stranger.tenant, "MEMBER");
  Call not_member{
      .token = outsider.token, .tenant = s.tid(), .body = body, .headers = {"Idempotency-Key;"}};
  expect_body(http("POST", kProducts, not_member), 403,
              R"({"error":"You are not a member of this tenant"})");
  // Webhooks need ADMIN: a MEMBER's malformed key is a 403 too.
  Call member_hook{.token = outsider.token,
                   .body = R"({"url":"http://127.0.0.1:1024/in","events":["*"]})",
                   .headers = {"Idempotency-Key;"}};
  expect_body(http("POST", "/api/v2/admin/webhooks/" + stranger.tid(), member_hook), 403,
              R"({"error":"This action requires the ADMIN role"})");

  // 255 printable characters, space and symbols included, are a key.
  std::string longest = "a b~!" + std::string(250, 'z');
  HttpResponse ok = http("POST", kProducts, keyed(s.call(body), longest));
  EXPECT_EQ(ok.status, 201) << ok.body;
  EXPECT_TRUE(replayed(http("POST", kProducts, keyed(s.call(body), longest))));
}

// A failed request stores nothing: the corrected retry with the same key
// runs, and so does the same failing one (it fails again).
TEST(Idempotency, FailuresAreNotStored) {
  KeyShop s = open_key_shop();
  std::string key = unique("order-key");
  std::string invalid = R"({"address_id":)" + to_string(s.address) + R"(,"payment_type":1})";
  for (int i = 0; i < 2; ++i) {
    HttpResponse r = http("POST", kOrders, keyed(s.buyer_call(invalid), key));
    EXPECT_EQ(r.status, 422) << r.body;
    EXPECT_FALSE(replayed(r));
  }
  EXPECT_EQ(count("SELECT count(*) FROM idempotency_keys WHERE tenant_id = " + s.tenant_str()), 0);
  HttpResponse fixed = http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key));
  EXPECT_EQ(fixed.status, 201) << fixed.body;
  EXPECT_FALSE(replayed(fixed));
  EXPECT_EQ(s.orders(), 1);
}

// A replay is still a request of the caller: a dead session is 401 and a
// member who left is 403, not the stored answer.
TEST(Idempotency, AReplayChecksTheSessionAndTheMembership) {
  KeyShop s = open_key_shop();
  std::string key = unique("order-key");
  ASSERT_EQ(http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key)).status, 201);
  HttpResponse removed =
      http("DELETE", "/api/v2/admin/team-members/" + s.tenant_str() + "/" + to_string(s.buyer.id),
           {.token = s.admin});
  ASSERT_EQ(removed.status, 200) << removed.body;
  expect_body(http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key)), 403,
              R"({"error":"You are not a member of this tenant"})");
  ASSERT_EQ(http("POST", "/api/v2/admin/logout", {.token = s.buyer.token}).status, 200);
  EXPECT_TRUE(is_unauthenticated(http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key))));
}

TEST(Idempotency, AnExpiredKeyRunsAgain) {
  KeyShop s = open_key_shop();
  std::string key = unique("order-key");
  HttpResponse first_answer = http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key));
  ASSERT_EQ(first_answer.status, 201);
  sql("UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' "
      "WHERE tenant_id = " +
      s.tenant_str() + " AND key = '" + key + "'");
  HttpResponse again = http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key));
  EXPECT_EQ(again.status, 201) << again.body;
  EXPECT_FALSE(replayed(again));
  EXPECT_NE(again.body, first_answer.body);
  EXPECT_EQ(s.orders(), 2);
  // ... and is stored anew: the next retry replays the second answer.
  HttpResponse third = http("POST", kOrders, keyed(s.buyer_call(s.order_body()), key));
  EXPECT_TRUE(replayed(third));
  EXPECT_EQ(third.body, again.body);
}

TEST(Idempotency, TheWorkerPurgesExpiredKeys) {
  std::string tag = unique("purge");
  sql("INSERT INTO idempotency_keys (tenant_id, user_id, key, request_hash, status, headers, "
      "body, created_at) VALUES "
      "(0, 1, '" +
      tag +
      "-old', '\\x00', 201, '', '{}', now() - interval '25 hours'), "
      "(0, 1, '" +
      tag + "-new', '\\x00', 201, '', '{}', now() - interval '23 hours')");
  std::string left;
  for (int i = 0; i < 100; ++i) {
    left =
        first(sql("SELECT string_agg(key, ',' ORDER BY key) FROM idempotency_keys "
                  "WHERE tenant_id = 0 AND key LIKE '" +
                  tag + "-%'"));
    if (left == tag + "-new") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(left, tag + "-new");
  sql("DELETE FROM idempotency_keys WHERE tenant_id = 0 AND key LIKE '" + tag + "-%'");
}

// Every route that takes a key: the first keyed request writes, its retry
// replays the answer and writes nothing (no row, no event); a route that
// does not take keys ignores the header.
TEST(Idempotency, EveryKeyedRouteReplaysWithoutWriting) {
  KeyShop s = open_key_shop();
  std::string tid = s.tenant_str();
  HttpResponse order = http("POST", kOrders, s.buyer_call(s.order_body()));
  ASSERT_EQ(order.status, 201) << order.body;
  int64_t order_id = int_of(order["data"], "id");
  int64_t user = s.buyer.id;

  struct Case {
    const char* name;
    std::string path;
    Call call;
    int status;
    std::string rows;  // SQL counting what the route writes
  };
  // Everything the tenant, the buyer or the admin's user have written.
  std::string footprint = "SELECT (SELECT count(*) FROM events WHERE tenant_id = " + tid +
                          ") + (SELECT count(*) FROM webhook_deliveries WHERE tenant_id = " + tid +
                          ")";
  std::vector<Case> cases = {
      {"order", kOrders, s.buyer_call(s.order_body()), 201,
       "SELECT count(*) FROM orders WHERE tenant_id = " + tid},
      {"order status", kOrders + "/" + to_string(order_id) + "/status",
       s.buyer_call(R"({"status":"processing"})"), 200,
       "SELECT count(*) FROM orders WHERE tenant_id = " + tid + " AND status = 'processing'"},
      {"product", kProducts, s.scope().call(R"({"name":"Cap","price":2})"), 201,
       "SELECT count(*) FROM products WHERE tenant_id = " + tid},
      {"category", "/api/v2/admin/category/create", s.scope().call(R"({"name":"Hats"})"), 201,
       "SELECT count(*) FROM categories WHERE tenant_id = " + tid},
      {"announcement", "/api/v2/admin/announcements",
       s.scope().call(R"({"title":"Hello","type":"info","status":"published"})"), 201,
       "SELECT count(*) FROM announcements WHERE tenant_id = " + tid},
      {"address",
       "/api/v2/admin/addresses",
       {.token = s.buyer.token,
        .body = R"({"street":"Side Street 2","city":"Bonn","country":"DE","postal_code":"53111"})"},
       201,
       "SELECT count(*) FROM addresses WHERE user_id = " + to_string(user)},
      {"tenant",
       "/api/v2/admin/tenants",
       {.token = s.buyer.token, .body = R"({"name":"Mine"})"},
       201,
       "SELECT count(*) FROM memberships WHERE user_id = " + to_string(user)},
      {"webhook",
       "/api/v2/admin/webhooks/" + tid,
       {.token = s.admin, .body = R"({"url":"http://127.0.0.1:1024/in","events":["*"]})"},
       201,
       "SELECT count(*) FROM webhooks WHERE tenant_id = " + tid},
      {"team member",
       "/api/v2/admin/team-members/" + tid,
       {.token = s.admin,
        .body = R"({"email":")" + unique("invitee") +
                R"(@example.com","role":"MEMBER",)"
                R"("name":"Invitee","password":"invitee-password"})"},
       201,
       "SELECT count(*) FROM invitations WHERE tenant_id = " + tid},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string key = unique("route-key");
    int64_t rows = count(c.rows);
    int64_t written = count(footprint);
    HttpResponse first_answer = http("POST", c.path, keyed(c.call, key));
    ASSERT_EQ(first_answer.status, c.status) << first_answer.body;
    EXPECT_FALSE(replayed(first_answer));
    EXPECT_EQ(count(c.rows), rows + 1);
    rows = count(c.rows);
    written = count(footprint);
    HttpResponse again = http("POST", c.path, keyed(c.call, key));
    EXPECT_EQ(again.status, c.status);
    EXPECT_EQ(again.body, first_answer.body);
    EXPECT_TRUE(replayed(again));
    EXPECT_EQ(count(c.rows), rows);
    EXPECT_EQ(count(footprint), written);
  }

  // Not a keyed route (an update): the header changes nothing, both run.
  std::string key = unique("update-key");
  Call rename = keyed(s.scope().call(R"({"name":"Renamed"})"), key);
  std::string path = kProducts + "/" + to_string(s.product);
  HttpResponse u1 = http("POST", path, rename);
  HttpResponse u2 = http("POST", path, rename);
  EXPECT_EQ(u1.status, 200) << u1.body;
  EXPECT_EQ(u2.status, 200) << u2.body;
  EXPECT_FALSE(replayed(u2));
  EXPECT_NE(u1.str("updated_at"), u2.str("updated_at"));
}

}  // namespace
}  // namespace ca::test
