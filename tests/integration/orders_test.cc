// Orders (docs/design/api-conventions.md, docs/design/events.md): create, read, list and
// status changes through nginx, with exact bodies, the all-or-nothing transaction, tenant
// isolation and the order.* outbox events.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

const std::string kOrders = "/api/v2/admin/orders";
const std::string kAddresses = "/api/v2/admin/addresses";

void expect_json_text(const std::string& actual, const std::string& expected) {
  Json got = json_parse(actual);
  Json want = json_parse(expected);
  ASSERT_TRUE(got) << "not JSON: " << actual;
  ASSERT_TRUE(want) << "the expected JSON does not parse: " << expected;
  EXPECT_TRUE(cJSON_Compare(got.get(), want.get(), true))
      << "got:  " << actual << "\nwant: " << json_dump(want.get());
}

std::string first(const std::vector<std::string>& rows) {
  return rows.empty() ? "<no row>" : rows[0];
}

int64_t count(const std::string& query) { return std::stoll(first(sql(query))); }

std::string q(const std::string& s) { return "\"" + s + "\""; }

void delete_product(const std::string& token, int64_t tenant, int64_t id) {
  HttpResponse r = http("DELETE", "/api/v2/admin/products/" + to_string(id),
                        {.token = token, .tenant = to_string(tenant)});
  EXPECT_EQ(r.status, 200) << r.body;
}

std::string item(int64_t product, int qty, const std::string& amount,
                 const std::string& extra = "") {
  return R"({"product_id":)" + to_string(product) + R"(,"qty":)" + std::to_string(qty) +
         R"(,"amount":)" + amount + extra + "}";
}

std::string order_body(int64_t address, const std::string& total,
                       const std::vector<std::string>& items, int payment_type = 1) {
  std::string list;
  for (const std::string& i : items) list += (list.empty() ? "" : ",") + i;
  return R"({"address_id":)" + to_string(address) + R"(,"payment_type":)" +
         std::to_string(payment_type) + R"(,"total_amount":)" + total + R"(,"order_items":[)" +
         list + "]}";
}

HttpResponse post_order(const Shop& s, const std::string& body, const std::string& token = "") {
  return http(
      "POST", kOrders,
      {.token = token.empty() ? s.buyer.token : token, .tenant = s.tenant_str(), .body = body});
}

// Creates an order of one item and returns its id.
int64_t place(const Shop& s, const std::string& token = "", int64_t address = 0) {
  HttpResponse r = post_order(
      s, order_body(address ? address : s.address, "4.50", {item(s.product, 1, "4.50")}), token);
  EXPECT_EQ(r.status, 201) << r.body;
  return json_get_int(r["data"], "id").value_or(-1);
}

HttpResponse set_status(const Shop& s, int64_t order, const std::string& status) {
  return http("POST", kOrders + "/" + to_string(order) + "/status",
              {.token = s.buyer.token,
               .tenant = s.tenant_str(),
               .body = R"({"status":")" + status + R"("})"});
}

struct Stamps {
  std::string created_at;
  std::string updated_at;
};

Stamps stamps(int64_t order) {
  auto c = sql("SELECT ca_ts(created_at) FROM orders WHERE id = " + to_string(order));
  auto u = sql("SELECT ca_ts(updated_at) FROM orders WHERE id = " + to_string(order));
  return {first(c), first(u)};
}

std::vector<int64_t> item_ids(int64_t order) {
  std::vector<int64_t> out;
  for (const std::string& id :
       sql("SELECT id FROM order_items WHERE order_id = " + to_string(order) + " ORDER BY id")) {
    out.push_back(std::stoll(id));
  }
  return out;
}

struct Counts {
  int64_t orders = 0, items = 0, events = 0;
  bool operator==(const Counts& o) const {
    return orders == o.orders && items == o.items && events == o.events;
  }
};

std::ostream& operator<<(std::ostream& out, const Counts& c) {
  return out << "{orders " << c.orders << ", items " << c.items << ", events " << c.events << "}";
}

Counts counts(int64_t tenant) {
  std::string t = to_string(tenant);
  return {count("SELECT count(*) FROM orders WHERE tenant_id = " + t),
          count("SELECT count(*) FROM order_items WHERE tenant_id = " + t),
          count("SELECT count(*) FROM events WHERE tenant_id = " + t)};
}

// The payloads of the tenant's events of `type`, oldest first.
std::vector<std::string> events(int64_t tenant, const std::string& type) {
  return sql("SELECT payload::text FROM events WHERE tenant_id = " + to_string(tenant) +
             " AND type = '" + type + "' ORDER BY id");
}

const std::string kUnauthenticated = R"({"error":"Unauthenticated"})";
const std::string kNotFound = R"({"success":false,"message":"Order not found"})";
// A 500 names the request's id (X-Request-Id) for the operator's logs.
std::string internal_body(const HttpResponse& r) {
  return R"({"success":false,"message":"Internal server error",)"
         R"("error":"The request could not be completed; nothing was saved.","request_id":")" +
         r.headers.at("x-request-id") + "\"}";
}

// --- create ---------------------------------------------------------------

TEST(OrderCreate, ReturnsTheWholeOrderFieldByField) {
  Shop s = open_shop();
  int64_t hat = create_product(s.admin, s.tenant, "Hat", "7");
  HttpResponse r =
      post_order(s, order_body(s.address, "12.5",
                               {item(s.product, 2, "4.5", R"(,"size":"M","notes":"gift wrap")"),
                                item(hat, 1, "3.50", R"(,"size":null)")},
                               3));
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t id = json_get_int(r["data"], "id").value_or(-1);
  std::vector<int64_t> items = item_ids(id);
  ASSERT_EQ(items.size(), 2u);
  Stamps t = stamps(id);
  EXPECT_EQ(t.created_at, t.updated_at);
  std::string o = to_string(id);
  expect_json(r, R"({"success":true,"message":"Order created successfully","data":{)"
                 R"("id":)" +
                     o + R"(,"user_id":)" + to_string(s.buyer.id) + R"(,"tenant_id":)" +
                     q(s.tenant_str()) + R"(,"address_id":)" + to_string(s.address) +
                     R"(,"payment_type":3,"total_amount":"12.50","status":"pending",)"
                     R"("created_at":)" +
                     q(t.created_at) + R"(,"updated_at":)" + q(t.updated_at) + R"(,"items":[)" +
                     R"({"id":)" + to_string(items[0]) + R"(,"order_id":)" + o +
                     R"(,"product_id":)" + to_string(s.product) +
                     R"(,"size":"M","qty":2,"amount":"4.50","notes":"gift wrap"},)"
                     R"({"id":)" +
                     to_string(items[1]) + R"(,"order_id":)" + o + R"(,"product_id":)" +
                     to_string(hat) +
                     R"(,"size":null,"qty":1,"amount":"3.50","notes":null}],)"
                     R"("user":{"id":)" +
                     to_string(s.buyer.id) + R"(,"name":"Test User","email":)" + q(s.buyer.email) +
                     R"(},"address":{"id":)" + to_string(s.address) +
                     R"(,"street":"Main Street 1","city":"Berlin"}}})");

  // The order.created event, written with the order.
  auto created = events(s.tenant, "order.created");
  ASSERT_EQ(created.size(), 1u);
  expect_json_text(created[0],
                   R"({"order_id":)" + o + R"(,"user_id":)" + to_string(s.buyer.id) +
                       R"(,"status":"pending","total_amount":"12.50","items_count":2})");
}

TEST(OrderCreate, ReadsBackExactlyWhatWasSent) {
  Shop s = open_shop();
  int64_t socks = create_product(s.admin, s.tenant, "Socks", "1.25");
  std::string notes = R"(Ring twice \"please\" \\ ünïcødé)";
  HttpResponse created =
      post_order(s, order_body(s.address, "9999999999.99",
                               {item(socks, 3, "0.1", R"(,"size":"XL","notes":")" + notes + "\""),
                                item(s.product, 2147483647, "0"),
                                item(socks, 1, "9999999999.99", R"(,"size":"","notes":null)")},
                               2147483647));
  ASSERT_EQ(created.status, 201) << created.body;
  int64_t id = json_get_int(created["data"], "id").value_or(-1);
  std::vector<int64_t> items = item_ids(id);
  ASSERT_EQ(items.size(), 3u);
  Stamps t = stamps(id);
  std::string o = to_string(id);

  HttpResponse r =
      http("GET", kOrders + "/" + o, {.token = s.buyer.token, .tenant = s.tenant_str()});
  ASSERT_EQ(r.status, 200) << r.body;
  auto product = [&](int64_t pid, const std::string& name) {
    return R"(,"product":{"id":)" + to_string(pid) + R"(,"name_en":)" + q(name) +
           R"(,"cover_id":null,"published":true}})";
  };
  expect_json(
      r,
      R"({"success":true,"data":{"id":)" + o + R"(,"user_id":)" + to_string(s.buyer.id) +
          R"(,"tenant_id":)" + q(s.tenant_str()) + R"(,"address_id":)" + to_string(s.address) +
          R"(,"payment_type":2147483647,"total_amount":"9999999999.99","status":"pending",)"
          R"("created_at":)" +
          q(t.created_at) + R"(,"updated_at":)" + q(t.updated_at) + R"(,"items":[)" + R"({"id":)" +
          to_string(items[0]) + R"(,"order_id":)" + o + R"(,"product_id":)" + to_string(socks) +
          R"(,"size":"XL","qty":3,"amount":"0.10","notes":")" + notes + "\"" +
          product(socks, "Socks") + R"(,{"id":)" + to_string(items[1]) + R"(,"order_id":)" + o +
          R"(,"product_id":)" + to_string(s.product) +
          R"(,"size":null,"qty":2147483647,"amount":"0.00","notes":null)" +
          product(s.product, "Shirt") + R"(,{"id":)" + to_string(items[2]) + R"(,"order_id":)" + o +
          R"(,"product_id":)" + to_string(socks) +
          R"(,"size":"","qty":1,"amount":"9999999999.99","notes":null)" + product(socks, "Socks") +
          R"(],"user":{"id":)" + to_string(s.buyer.id) + R"(,"name":"Test User","email":)" +
          q(s.buyer.email) + R"(},"address":{"id":)" + to_string(s.address) +
          R"(,"street":"Main Street 1","city":"Berlin","country":"DE","postal_code":"10115"}}})");
  // The create response carried the same record, without the product summaries.
  const cJSON* read_items = json_get(r["data"], "items");
  const cJSON* created_items = json_get(created["data"], "items");
  ASSERT_EQ(cJSON_GetArraySize(created_items), 3);
  for (int i = 0; i < 3; ++i) {
    Json copy(cJSON_Duplicate(cJSON_GetArrayItem(read_items, i), true));
    cJSON_DeleteItemFromObjectCaseSensitive(copy.get(), "product");
    EXPECT_TRUE(cJSON_Compare(copy.get(), cJSON_GetArrayItem(created_items, i), true))
        << json_dump(copy.get()) << " vs " << json_dump(cJSON_GetArrayItem(created_items, i));
  }
}

TEST(OrderCreate, ReportsEveryFailingFieldAtOnce) {
  Shop s = open_shop();
  Counts before = counts(s.tenant);
  std::string too_long_size(101, 's');
  std::string too_long_notes(1001, 'n');
  HttpResponse r =
      post_order(s, R"({"address_id":"1","payment_type":0,"total_amount":-1,"order_items":[)" +
                        item(s.product, 0, "-0.5") + R"(,5,{"qty":1.5,"amount":"4.50","size":)" +
                        q(too_long_size) + R"(,"notes":)" + q(too_long_notes) + "}," +
                        item(s.product, 1, "1.005") + "]}");
  EXPECT_EQ(r.status, 422);
  expect_json(
      r,
      R"({"success":false,"errors":{)"
      R"("address_id":["The address_id field must be an integer."],)"
      R"("payment_type":["The payment_type field must be at least 1."],)"
      R"("total_amount":["The total_amount field must be at least 0."],)"
      R"("order_items.0.qty":["The order_items.0.qty field must be at least 1."],)"
      R"("order_items.0.amount":["The order_items.0.amount field must be at least 0."],)"
      R"("order_items.1":["The order_items.1 field must be an object."],)"
      R"("order_items.2.product_id":["The order_items.2.product_id field is required."],)"
      R"("order_items.2.qty":["The order_items.2.qty field must be an integer."],)"
      R"("order_items.2.amount":["The order_items.2.amount field must be a number."],)"
      R"("order_items.2.size":["The order_items.2.size field must not be greater than 100 characters."],)"
      R"("order_items.2.notes":["The order_items.2.notes field must not be greater than 1000 characters."],)"
      R"("order_items.3.amount":["The order_items.3.amount field must not have more than 2 decimal places."]}})");
  EXPECT_EQ(counts(s.tenant), before);

  HttpResponse missing = post_order(s, "{}");
  EXPECT_EQ(missing.status, 422);
  expect_json(missing, R"({"success":false,"errors":{)"
                       R"("address_id":["The address_id field is required."],)"
                       R"("payment_type":["The payment_type field is required."],)"
                       R"("total_amount":["The total_amount field is required."],)"
                       R"("order_items":["The order_items field is required."]}})");

  HttpResponse wrong_types = post_order(
      s, R"({"address_id":null,"payment_type":"1","total_amount":"12.50","order_items":{}})");
  EXPECT_EQ(wrong_types.status, 422);
  expect_json(wrong_types, R"({"success":false,"errors":{)"
                           R"("address_id":["The address_id field is required."],)"
                           R"("payment_type":["The payment_type field must be an integer."],)"
                           R"("total_amount":["The total_amount field must be a number."],)"
                           R"("order_items":["The order_items field must be an array."]}})");

  HttpResponse limits = post_order(
      s,
      order_body(s.address, "10000000000", {item(s.product, 1, "10000000000")}, 2147483647) + "");
  EXPECT_EQ(limits.status, 422);
  expect_json(
      limits,
      R"({"success":false,"errors":{)"
      R"("total_amount":["The total_amount field must not be greater than 9999999999.99."],)"
      R"("order_items.0.amount":["The order_items.0.amount field must not be greater than 9999999999.99."]}})");

  HttpResponse big_ints = post_order(
      s, R"({"address_id":)" + to_string(s.address) +
             R"(,"payment_type":2147483648,"total_amount":1,"order_items":[{"product_id":)" +
             to_string(s.product) + R"(,"qty":2147483648,"amount":1}]})");
  EXPECT_EQ(big_ints.status, 422);
  expect_json(
      big_ints,
      R"({"success":false,"errors":{)"
      R"("payment_type":["The payment_type field must not be greater than 2147483647."],)"
      R"("order_items.0.qty":["The order_items.0.qty field must not be greater than 2147483647."]}})");
  EXPECT_EQ(counts(s.tenant), before);
}

// A third decimal is refused however small: 4.500000000001 is not rounded to
// 4.50 (as products refuse it too).
TEST(OrderCreate, AmountsWithATinyThirdDecimalAreRefused) {
  Shop s = open_shop();
  Counts before = counts(s.tenant);
  HttpResponse r =
      post_order(s, order_body(s.address, "0.00000000001", {item(s.product, 1, "4.500000000001")}));
  EXPECT_EQ(r.status, 422);
  expect_json(
      r, R"({"success":false,"errors":{)"
         R"("total_amount":["The total_amount field must not have more than 2 decimal places."],)"
         R"("order_items.0.amount":["The order_items.0.amount field must not have more than 2 )"
         R"(decimal places."]}})");
  EXPECT_EQ(counts(s.tenant), before);
}

TEST(OrderCreate, NeedsBetweenOneAndFiveHundredItems) {
  Shop s = open_shop();
  HttpResponse none = post_order(s, order_body(s.address, "0", {}));
  EXPECT_EQ(none.status, 422);
  expect_json(none, R"({"success":false,"errors":{)"
                    R"("order_items":["The order_items field must have at least 1 item."]}})");

  std::vector<std::string> many(501, item(s.product, 1, "1"));
  HttpResponse too_many = post_order(s, order_body(s.address, "501", many));
  EXPECT_EQ(too_many.status, 422);
  expect_json(too_many,
              R"({"success":false,"errors":{)"
              R"("order_items":["The order_items field must not have more than 500 items."]}})");

  many.pop_back();
  HttpResponse most = post_order(s, order_body(s.address, "500", many));
  EXPECT_EQ(most.status, 201) << most.body;
  EXPECT_EQ(cJSON_GetArraySize(json_get(most["data"], "items")), 500);
}

TEST(OrderCreate, RejectsProductsOfOtherTenantsDeletedAndUnknownOnes) {
  Shop s = open_shop();
  int64_t other_tenant = create_tenant(s.admin, unique("other"));
  int64_t foreign = create_product(s.admin, other_tenant, "Foreign");
  int64_t gone = create_product(s.admin, s.tenant, "Gone");
  delete_product(s.admin, s.tenant, gone);
  Counts before = counts(s.tenant);
  Counts before_other = counts(other_tenant);

  HttpResponse r = post_order(
      s, order_body(s.address, "4",
                    {item(s.product, 1, "1"), item(foreign, 1, "1"), item(gone, 1, "1"),
                     item(s.product, 1, "1"), item(999999999999, 1, "1"), item(foreign, 2, "1")}));
  EXPECT_EQ(r.status, 422);
  expect_json(
      r, R"({"success":false,"errors":{)"
         R"("order_items.1.product_id":["The selected order_items.1.product_id is invalid."],)"
         R"("order_items.2.product_id":["The selected order_items.2.product_id is invalid."],)"
         R"("order_items.4.product_id":["The selected order_items.4.product_id is invalid."],)"
         R"("order_items.5.product_id":["The selected order_items.5.product_id is invalid."]}})");
  EXPECT_EQ(counts(s.tenant), before);
  EXPECT_EQ(counts(other_tenant), before_other);
}

TEST(OrderCreate, AddressMustBeTheCallersOwn) {
  Shop s = open_shop();
  int64_t admins_address = create_address(s.admin, "Admin Road 9", "Bonn");
  Counts before = counts(s.tenant);
  for (int64_t address : {admins_address, int64_t{999999999999}}) {
    HttpResponse r = post_order(s, order_body(address, "1", {item(s.product, 1, "1")}));
    EXPECT_EQ(r.status, 422);
    expect_json(r, R"({"success":false,"errors":{)"
                   R"("address_id":["The selected address_id is invalid."]}})");
  }
  EXPECT_EQ(counts(s.tenant), before);
  // The owner of that address may use it.
  HttpResponse ok =
      post_order(s, order_body(admins_address, "1", {item(s.product, 1, "1")}), s.admin);
  EXPECT_EQ(ok.status, 201) << ok.body;
}

TEST(OrderCreate, LastOfSeveralItemsFailingLeavesNothingBehind) {
  Shop s = open_shop();
  int64_t other_tenant = create_tenant(s.admin, unique("other"));
  int64_t foreign = create_product(s.admin, other_tenant, "Foreign");
  Counts before = counts(s.tenant);

  HttpResponse unknown =
      post_order(s, order_body(s.address, "3",
                               {item(s.product, 1, "1"), item(s.product, 1, "1"),
                                item(s.product, 1, "1"), item(foreign, 1, "1")}));
  EXPECT_EQ(unknown.status, 422);
  expect_json(
      unknown,
      R"({"success":false,"errors":{)"
      R"("order_items.3.product_id":["The selected order_items.3.product_id is invalid."]}})");

  HttpResponse bad_qty = post_order(
      s, order_body(s.address, "3",
                    {item(s.product, 1, "1"), item(s.product, 1, "1"), item(s.product, 0, "1")}));
  EXPECT_EQ(bad_qty.status, 422);
  expect_json(bad_qty,
              R"({"success":false,"errors":{)"
              R"("order_items.2.qty":["The order_items.2.qty field must be at least 1."]}})");
  EXPECT_EQ(counts(s.tenant), before);
}

// A product soft-deleted while an order for it is being created: the order's
// product check (FOR SHARE) waits for the deletion, then finds the product
// gone and refuses it; nothing is written.
TEST(OrderCreate, AProductDeletedDuringTheCreateIsRefused) {
  Shop s = open_shop();
  Counts before = counts(s.tenant);
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "UPDATE products SET deleted_at = now() WHERE tenant_id = " +
                                      s.tenant_str() + " AND id = " + to_string(s.product)));
  std::future<HttpResponse> created = std::async(std::launch::async, [&] {
    return post_order(s, order_body(s.address, "2", {item(s.product, 1, "2")}));
  });
  // The order's call (sql/060's ca_order_create()), at its products check.
  bool waiting = wait_for_lock_wait("%FROM ca_order_create(%");
  // EXPECT, not ASSERT: the order must be waited for before `conn` goes away.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the order never waited for the deletion";
  HttpResponse r = created.get();
  EXPECT_EQ(r.status, 422);
  expect_json(
      r, R"({"success":false,"errors":{)"
         R"("order_items.0.product_id":["The selected order_items.0.product_id is invalid."]}})");
  EXPECT_EQ(counts(s.tenant), before);
}

// An order that PostgreSQL picks as a deadlock's victim is rolled back whole
// and answered 503 with Retry-After (common/error.cc): retrying is safe. The
// deadlock is real: the order's statement locks its products in id order
// (FOR SHARE), so it holds the first and waits for the second, which this
// test's transaction holds and then updates the first. The order's backend
// must be the one to find the cycle: the server's deadlock_timeout is 2 s for
// the test (under the stack's 5 s statement timeout, which would also answer
// 503: the handler's log line tells the two apart) and this transaction's
// 60 s, so the test has 2 s to start waiting. Single-node only: on Citus both
// locks are taken on a worker, under the worker's own deadlock_timeout.
TEST(OrderCreate, ADeadlockVictimIsAnsweredRetryLaterAndWritesNothing) {
  using namespace std::chrono_literals;
  if (on_citus()) GTEST_SKIP() << "the deadlock_timeout set here is the coordinator's";
  Shop s = open_shop();
  int64_t second = create_product(s.admin, s.tenant, unique("second"));
  ASSERT_LT(s.product, second);
  Counts before = counts(s.tenant);
  struct DeadlockTimeout {
    DeadlockTimeout() {
      sql("ALTER SYSTEM SET deadlock_timeout = '2s'");
      sql("SELECT pg_reload_conf()");
    }
    ~DeadlockTimeout() {
      sql("ALTER SYSTEM RESET deadlock_timeout");
      sql("SELECT pg_reload_conf()");
    }
  } timeout;
  // The handlers' idle sessions take the new value before their next command.
  std::this_thread::sleep_for(500ms);
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SET LOCAL deadlock_timeout = '60s'"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT 1 FROM products WHERE tenant_id = " + s.tenant_str() +
                                      " AND id = " + to_string(second) + " FOR UPDATE"));
  std::string body =
      order_body(s.address, "9.00", {item(s.product, 1, "4.50"), item(second, 1, "4.50")});
  std::future<HttpResponse> created =
      std::async(std::launch::async, [&] { return post_order(s, body); });
  bool waiting = wait_for_lock_wait("%FROM ca_order_create(%");
  EXPECT_TRUE(waiting) << "the order never waited for the second product";
  // Waits for the order's share lock on the first product until the order's
  // backend finds the cycle and rolls the order back.
  EXPECT_TRUE(exec_ok(conn.get(), "UPDATE products SET stock = stock WHERE tenant_id = " +
                                      s.tenant_str() + " AND id = " + to_string(s.product)))
      << PQerrorMessage(conn.get());
  EXPECT_TRUE(exec_ok(conn.get(), "ROLLBACK"));
  HttpResponse r = created.get();
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.headers["retry-after"], "1");
  expect_json(r, R"({"success":false,"message":"Service temporarily unavailable"})");
  EXPECT_EQ(counts(s.tenant), before);
  // The deadlock, not the statement timeout: the handler's line for it.
  std::ifstream log(state_dir() + "/log/orders.log");
  std::string line, found;
  while (std::getline(log, line)) {
    if (line.find("request_id=" + r.headers["x-request-id"]) != std::string::npos) found = line;
  }
  EXPECT_NE(found.find("transaction rolled back by the database, the client may retry: [40P01] "
                       "deadlock detected"),
            std::string::npos)
      << found;
  // The same request again goes through.
  EXPECT_EQ(post_order(s, body).status, 201);
}

// A write goes to PostgreSQL with the session check in front of it
// (common/request_tx.h): for a caller who is not a member, or whose session is
// over (logged out), the check stops the round trip before the write is
// parsed or run. Proven with the tables locked: a write that ran would wait.
TEST(OrderCreate, ANonMembersOrALoggedOutWriteIsNeverRun) {
  using namespace std::chrono_literals;
  Shop s = open_shop();
  int64_t order = place(s);
  TestUser outsider = add_user(s.admin, create_tenant(s.admin, unique("outsider")), "ADMIN");
  TestUser former = add_user(s.admin, s.tenant, "MEMBER");
  int64_t former_address = create_address(former.token);
  ASSERT_EQ(http("POST", "/api/v2/admin/logout", {.token = former.token}).status, 200);
  std::string body = order_body(s.address, "2", {item(s.product, 1, "2")});
  std::string status = kOrders + "/" + to_string(order) + "/status";
  auto refused = [&] {
    std::vector<HttpResponse> out;
    for (int round = 0; round < 3; ++round) {
      out.push_back(post_order(s, body, outsider.token));
      out.push_back(
          post_order(s, order_body(former_address, "2", {item(s.product, 1, "2")}), former.token));
      out.push_back(http("POST", status,
                         {.token = outsider.token,
                          .tenant = s.tenant_str(),
                          .body = R"({"status":"processing"})"}));
      out.push_back(http(
          "POST", status,
          {.token = former.token, .tenant = s.tenant_str(), .body = R"({"status":"processing"})"}));
    }
    return out;
  };
  EXPECT_EQ(expect_refused_without_work(
                "products, orders, order_items, addresses, events", refused,
                [&] { return post_order(s, body); }, "%FROM ca_order_create(%")
                .status,
            201);
  EXPECT_EQ(count("SELECT count(*) FROM orders WHERE tenant_id = " + s.tenant_str()), 2);
  EXPECT_EQ(first(sql("SELECT status FROM orders WHERE id = " + to_string(order))), "pending");
}

// Drops the test trigger and its function whatever happens in the test.
struct TriggerGuard {
  std::string name;
  ~TriggerGuard() {
    sql_allowing_triggers("DROP TRIGGER IF EXISTS " + name + " ON order_items");
    sql("DROP FUNCTION IF EXISTS " + name + "()");
  }
};

TEST(OrderCreate, DatabaseErrorMidTransactionRollsEverythingBack) {
  Shop s = open_shop();
  std::string name = unique("explode");
  std::replace(name.begin(), name.end(), '-', '_');
  // Fails the insert of the items only for this test's marker, after the
  // order row of the same transaction was written.
  std::string marker = "explode " + name;
  TriggerGuard guard{name};
  sql("CREATE FUNCTION " + name +
      "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "IF NEW.notes = '" +
      marker +
      "' THEN RAISE EXCEPTION 'injected failure'; END IF; "
      "RETURN NEW; END $$");
  sql_allowing_triggers("CREATE TRIGGER " + name +
                        " BEFORE INSERT ON order_items FOR EACH ROW EXECUTE FUNCTION " + name +
                        "()");
  Counts before = counts(s.tenant);
  int64_t all_orders = count("SELECT count(*) FROM orders");

  HttpResponse r = post_order(
      s, order_body(
             s.address, "2",
             {item(s.product, 1, "1"), item(s.product, 1, "1", R"(,"notes":")" + marker + "\"")}));
  EXPECT_EQ(r.status, 500);
  expect_json(r, internal_body(r));
  EXPECT_EQ(counts(s.tenant), before);
  EXPECT_EQ(count("SELECT count(*) FROM orders"), all_orders);
  // The handler's connection is healthy afterwards.
  HttpResponse ok = post_order(s, order_body(s.address, "1", {item(s.product, 1, "1")}));
  EXPECT_EQ(ok.status, 201) << ok.body;
}

TEST(OrderCreate, TwentyConcurrentCreatesAllSucceedWithDistinctIds) {
  Shop s = open_shop();
  Counts before = counts(s.tenant);
  constexpr int kThreads = 20;
  std::vector<long> status(kThreads);
  std::vector<int64_t> ids(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      HttpResponse r = post_order(
          s, order_body(s.address, std::to_string(i + 1),
                        {item(s.product, i + 1, "1"), item(s.product, 1, std::to_string(i))}));
      status[i] = r.status;
      ids[i] = json_get_int(r["data"], "id").value_or(-1);
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<int64_t> distinct;
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(status[i], 201) << "request " << i;
    distinct.insert(ids[i]);
  }
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  // Two items and one order.created event per order.
  EXPECT_EQ(counts(s.tenant), (Counts{before.orders + kThreads, before.items + 2 * kThreads,
                                      before.events + kThreads}));
}

TEST(OrderCreate, HundredItemsInOneOrder) {
  Shop s = open_shop();
  std::vector<std::string> items;
  for (int i = 0; i < 100; ++i) {
    items.push_back(
        item(s.product, i + 1, "1.25", R"(,"notes":"line )" + std::to_string(i) + "\""));
  }
  std::string body = order_body(s.address, "6312.50", items);
  std::vector<double> ms;
  int64_t last = 0;
  for (int run = 0; run < 5; ++run) {
    auto start = std::chrono::steady_clock::now();
    HttpResponse r = post_order(s, body);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    ASSERT_EQ(r.status, 201) << r.body;
    last = json_get_int(r["data"], "id").value_or(-1);
  }
  std::string timings;
  for (double m : ms) timings += std::to_string(m).substr(0, 6) + " ms ";
  std::cout << "create with 100 items, 5 runs: " << timings << "\n";
  RecordProperty("create_100_items_ms", timings);

  HttpResponse r = http("GET", kOrders + "/" + to_string(last),
                        {.token = s.buyer.token, .tenant = s.tenant_str()});
  ASSERT_EQ(r.status, 200) << r.body;
  const cJSON* got = json_get(r["data"], "items");
  ASSERT_EQ(cJSON_GetArraySize(got), 100);
  for (int i = 0; i < 100; ++i) {
    const cJSON* it = cJSON_GetArrayItem(got, i);
    EXPECT_EQ(json_get_int(it, "qty").value_or(-1), i + 1);
    EXPECT_EQ(json_get_str(it, "notes").value_or(""), "line " + std::to_string(i));
    EXPECT_EQ(json_get_str(it, "amount").value_or(""), "1.25");
  }
}

TEST(OrderCreate, AnyMemberMayCreateAndTheCallerIsTheOwner) {
  Shop s = open_shop();
  // The buyer is a MEMBER; the ADMIN may order too, and each owns their order.
  int64_t by_member = place(s);
  int64_t admin_address = create_address(s.admin);
  int64_t by_admin = place(s, s.admin, admin_address);
  EXPECT_EQ(first(sql("SELECT user_id FROM orders WHERE id = " + to_string(by_member))),
            to_string(s.buyer.id));
  EXPECT_NE(first(sql("SELECT user_id FROM orders WHERE id = " + to_string(by_admin))),
            to_string(s.buyer.id));
}

TEST(OrderCreate, ChecksTokenAndTenantHeaderFirst) {
  Shop s = open_shop();
  std::string body = order_body(s.address, "1", {item(s.product, 1, "1")});
  HttpResponse no_token = http("POST", kOrders, {.tenant = s.tenant_str(), .body = body});
  EXPECT_EQ(no_token.status, 401);
  expect_json(no_token, kUnauthenticated);
  EXPECT_EQ(no_token.headers["www-authenticate"], "Bearer");

  HttpResponse no_header = http("POST", kOrders, {.token = s.buyer.token, .body = body});
  EXPECT_EQ(no_header.status, 400);
  expect_json(no_header, R"({"error":"The X-Tenant-ID header is required"})");

  for (const char* garbage : {"abc", "0", "-1", "1.5", "1 OR 1=1"}) {
    HttpResponse r =
        http("POST", kOrders, {.token = s.buyer.token, .tenant = garbage, .body = body});
    EXPECT_EQ(r.status, 400) << garbage;
    expect_json(r, R"({"error":"X-Tenant-ID must be a positive integer tenant id"})");
  }

  int64_t not_mine = create_tenant(s.admin, unique("not-mine"));
  HttpResponse forbidden =
      http("POST", kOrders, {.token = s.buyer.token, .tenant = to_string(not_mine), .body = body});
  EXPECT_EQ(forbidden.status, 403);
  expect_json(forbidden, R"({"error":"You are not a member of this tenant"})");

  HttpResponse not_json =
      http("POST", kOrders, {.token = s.buyer.token, .tenant = s.tenant_str(), .body = "[]"});
  EXPECT_EQ(not_json.status, 400);
  expect_json(not_json, R"({"error":"Request body must be a JSON object"})");

  // Every order route checks the same way.
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", kOrders},
           // Bad filters are still refused for access first (the page is
           // read in the same round trip as the access check).
           {"GET", kOrders + "?page=0&status=bogus"},
           {"GET", kOrders + "/1"},
           {"POST", kOrders + "/1/status"}}) {
    EXPECT_EQ(http(method, path, {.tenant = s.tenant_str()}).status, 401) << path;
    EXPECT_EQ(http(method, path, {.token = s.buyer.token}).status, 400) << path;
    EXPECT_EQ(http(method, path, {.token = s.buyer.token, .tenant = "x"}).status, 400) << path;
    EXPECT_EQ(http(method, path, {.token = s.buyer.token, .tenant = to_string(not_mine)}).status,
              403)
        << path;
  }
  HttpResponse wrong_method = http("DELETE", kOrders + "/1", {.token = s.buyer.token});
  EXPECT_EQ(wrong_method.status, 405);
}

// --- read -------------------------------------------------------------------

TEST(OrderRead, MissingAndOtherTenantsOrdersAre404) {
  Shop s = open_shop();
  Shop other = open_shop();
  int64_t theirs = place(other);
  for (int64_t id : {theirs, int64_t{999999999999}}) {
    HttpResponse r = http("GET", kOrders + "/" + to_string(id),
                          {.token = s.buyer.token, .tenant = s.tenant_str()});
    EXPECT_EQ(r.status, 404);
    expect_json(r, kNotFound);
  }
  // Another tenant's product in the items is refused as unknown.
  HttpResponse r = post_order(s, order_body(s.address, "1", {item(other.product, 1, "1")}));
  EXPECT_EQ(r.status, 422);
  expect_json(
      r, R"({"success":false,"errors":{)"
         R"("order_items.0.product_id":["The selected order_items.0.product_id is invalid."]}})");
  EXPECT_EQ(
      http("GET", kOrders + "/abc", {.token = s.buyer.token, .tenant = s.tenant_str()}).status,
      404);
}

TEST(OrderRead, SoftDeletedProductsStillShowInOldOrders) {
  Shop s = open_shop();
  int64_t id = place(s);
  delete_product(s.admin, s.tenant, s.product);
  HttpResponse r = http("GET", kOrders + "/" + to_string(id),
                        {.token = s.buyer.token, .tenant = s.tenant_str()});
  ASSERT_EQ(r.status, 200) << r.body;
  const cJSON* product = json_get(cJSON_GetArrayItem(json_get(r["data"], "items"), 0), "product");
  expect_json_text(json_dump(product),
                   R"({"id":)" + to_string(s.product) +
                       R"(,"name_en":"Shirt","cover_id":null,"published":true})");
  // ...but cannot be ordered again.
  HttpResponse again = post_order(s, order_body(s.address, "1", {item(s.product, 1, "1")}));
  EXPECT_EQ(again.status, 422);
}

TEST(OrderRead, AnyMemberOfTheTenantMayReadIt) {
  Shop s = open_shop();
  int64_t id = place(s);
  HttpResponse r =
      http("GET", kOrders + "/" + to_string(id), {.token = s.admin, .tenant = s.tenant_str()});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_get_int(r["data"], "user_id").value_or(-1), s.buyer.id);
}

// --- list -------------------------------------------------------------------

TEST(OrderList, PagesNewestFirstWithFiltersAndItemCounts) {
  Shop s = open_shop();
  TestUser second = add_user(s.admin, s.tenant, "MEMBER");
  int64_t second_address = create_address(second.token, "Second Street 2", "Hamburg");
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(place(s));
  for (int i = 0; i < 2; ++i) ids.push_back(place(s, second.token, second_address));
  // A two-item order by the buyer, and an order in another tenant.
  HttpResponse two =
      post_order(s, order_body(s.address, "3", {item(s.product, 1, "1"), item(s.product, 2, "1")}));
  ASSERT_EQ(two.status, 201) << two.body;
  ids.push_back(json_get_int(two["data"], "id").value_or(-1));
  Shop other = open_shop();
  place(other);
  ASSERT_EQ(set_status(s, ids[0], "processing").status, 200);
  ASSERT_EQ(set_status(s, ids[3], "processing").status, 200);
  ASSERT_EQ(set_status(s, ids[4], "cancelled").status, 200);

  auto list = [&](const std::string& query) {
    return http("GET", kOrders + query, {.token = s.buyer.token, .tenant = s.tenant_str()});
  };
  auto page_ids = [](const HttpResponse& r) {
    std::vector<int64_t> out;
    const cJSON* data = json_get(r["data"], "data");
    for (const cJSON* o = data ? data->child : nullptr; o != nullptr; o = o->next) {
      out.push_back(json_get_int(o, "id").value_or(-1));
    }
    return out;
  };
  auto meta = [](const HttpResponse& r) {
    const cJSON* d = r["data"];
    return std::vector<int64_t>{
        json_get_int(d, "current_page").value_or(-1), json_get_int(d, "last_page").value_or(-1),
        json_get_int(d, "per_page").value_or(-1), json_get_int(d, "total").value_or(-1)};
  };

  HttpResponse all = list("");
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(page_ids(all), (std::vector<int64_t>{ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}));
  EXPECT_EQ(meta(all), (std::vector<int64_t>{1, 1, 15, 6}));

  // One row exactly: no items, their count instead.
  Stamps t = stamps(ids[5]);
  std::string row = json_dump(cJSON_GetArrayItem(json_get(all["data"], "data"), 0));
  expect_json_text(
      row, R"({"id":)" + to_string(ids[5]) + R"(,"user_id":)" + to_string(s.buyer.id) +
               R"(,"tenant_id":)" + q(s.tenant_str()) + R"(,"address_id":)" + to_string(s.address) +
               R"(,"payment_type":1,"total_amount":"3.00","status":"pending",)"
               R"("created_at":)" +
               q(t.created_at) + R"(,"updated_at":)" + q(t.updated_at) +
               R"(,"items_count":2,"user":{"id":)" + to_string(s.buyer.id) +
               R"(,"name":"Test User","email":)" + q(s.buyer.email) + R"(},"address":{"id":)" +
               to_string(s.address) + R"(,"street":"Main Street 1","city":"Berlin"}})");

  HttpResponse p2 = list("?per_page=4&page=2");
  ASSERT_EQ(p2.status, 200) << p2.body;
  EXPECT_EQ(page_ids(p2), (std::vector<int64_t>{ids[1], ids[0]}));
  EXPECT_EQ(meta(p2), (std::vector<int64_t>{2, 2, 4, 6}));
  HttpResponse past = list("?per_page=4&page=3");
  ASSERT_EQ(past.status, 200) << past.body;
  expect_json(past, R"({"success":true,"data":{"data":[],"current_page":3,"last_page":2,)"
                    R"("per_page":4,"total":6}})");

  HttpResponse processing = list("?status=processing");
  EXPECT_EQ(page_ids(processing), (std::vector<int64_t>{ids[3], ids[0]}));
  EXPECT_EQ(meta(processing)[3], 2);
  HttpResponse by_second = list("?user_id=" + to_string(second.id));
  EXPECT_EQ(page_ids(by_second), (std::vector<int64_t>{ids[4], ids[3]}));
  HttpResponse both = list("?user_id=" + to_string(s.buyer.id) + "&status=pending");
  EXPECT_EQ(page_ids(both), (std::vector<int64_t>{ids[5], ids[2], ids[1]}));
  HttpResponse none = list("?status=completed");
  expect_json(none, R"({"success":true,"data":{"data":[],"current_page":1,"last_page":1,)"
                    R"("per_page":15,"total":0}})");
  HttpResponse clamped = list("?per_page=1000");
  EXPECT_EQ(meta(clamped)[2], 100);

  HttpResponse bad = list("?status=shipped");
  EXPECT_EQ(bad.status, 422);
  expect_json(
      bad,
      R"({"success":false,"errors":{"status":[)"
      R"("The selected status is invalid: use pending, processing, completed or cancelled."]}})");
  HttpResponse bad_user = list("?user_id=abc");
  EXPECT_EQ(bad_user.status, 422);
  expect_json(bad_user, R"({"success":false,"errors":{"user_id":[)"
                        R"("The user_id field must be a positive integer."]}})");
  HttpResponse bad_page = list("?page=0");
  EXPECT_EQ(bad_page.status, 422);
  expect_json(bad_page, R"({"success":false,"errors":{"page":[)"
                        R"("The page field must be an integer of at least 1."]}})");
}

// --- status -------------------------------------------------------------------

// The list's total without a user filter is the sum of per-connection
// counter slots (sql/017) kept by the create and status statements
// (sql/032): it must equal a count of the orders after concurrent creates,
// status changes through the API from several connections, and writes made
// with SQL followed by the operator's ca_recount().
TEST(OrderList, TotalsEqualACountOfTheOrdersAfterEveryKindOfWrite) {
  Shop s = open_shop();
  auto totals = [&] {
    std::string out;
    for (const char* status : {"", "pending", "processing", "completed", "cancelled"}) {
      std::string query = *status ? std::string("?status=") + status : "";
      HttpResponse r =
          http("GET", kOrders + query, {.token = s.buyer.token, .tenant = s.tenant_str()});
      EXPECT_EQ(r.status, 200) << r.body;
      out += std::to_string(int_of(r["data"], "total")) + " ";
    }
    return out;
  };
  auto counted = [&] {
    std::string out =
        first(sql("SELECT count(*) FROM orders WHERE tenant_id = " + s.tenant_str())) + " ";
    for (const char* status : {"pending", "processing", "completed", "cancelled"}) {
      out += first(sql("SELECT count(*) FROM orders WHERE tenant_id = " + s.tenant_str() +
                       " AND status = '" + status + "'")) +
             " ";
    }
    return out;
  };
  EXPECT_EQ(totals(), "0 0 0 0 0 ");

  constexpr int kPlaced = 12;
  std::vector<int64_t> ids(kPlaced);
  std::vector<std::thread> threads;
  for (int i = 0; i < kPlaced; ++i) threads.emplace_back([&, i] { ids[i] = place(s); });
  for (std::thread& t : threads) t.join();
  threads.clear();
  EXPECT_EQ(totals(), "12 12 0 0 0 ");

  // Moved concurrently, so through several database connections.
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      EXPECT_EQ(set_status(s, ids[i], i < 6 ? "processing" : "cancelled").status, 200);
    });
  }
  for (std::thread& t : threads) t.join();
  threads.clear();
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] { EXPECT_EQ(set_status(s, ids[i], "completed").status, 200); });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(totals(), "12 4 3 3 2 ");

  // Written with SQL: a copy of an order, and a status change.
  sql("INSERT INTO orders (tenant_id, user_id, address_id, payment_type, total_amount, status) "
      "SELECT tenant_id, user_id, address_id, payment_type, total_amount, 'completed' "
      "FROM orders WHERE tenant_id = " +
      s.tenant_str() + " AND id = " + to_string(ids[11]));
  sql("UPDATE orders SET status = 'cancelled' WHERE tenant_id = " + s.tenant_str() +
      " AND id = " + to_string(ids[3]));
  // Counted by no statement of the API: the operator recounts (sql/032).
  sql("SELECT ca_recount(" + s.tenant_str() + ")");
  EXPECT_EQ(totals(), "13 4 2 4 3 ");
  EXPECT_EQ(totals(), counted());
}

// Counters gone wrong (rows written by hand count nowhere, a counter row
// edited or deleted) are made exact again by ca_recount() (sql/032): the
// orders' slots, the live products, and the tenant's active list version
// moves. Another tenant's counters are left as they are.
TEST(OrderList, RecountRepairsWrongCounters) {
  Shop s = open_shop();
  Shop other = open_shop();
  place(s);
  ASSERT_EQ(set_status(s, place(s), "processing").status, 200);
  create_product(s.admin, s.tenant, "Hat");
  const std::string t = s.tenant_str();
  auto totals = [&](const Shop& shop) {
    std::string out;
    for (const char* status : {"", "pending", "processing", "completed"}) {
      std::string query = *status ? std::string("?status=") + status : "";
      HttpResponse r =
          http("GET", kOrders + query, {.token = shop.admin, .tenant = shop.tenant_str()});
      EXPECT_EQ(r.status, 200) << r.body;
      out += std::to_string(int_of(r["data"], "total")) + " ";
    }
    HttpResponse p =
        http("GET", "/api/v2/admin/products", {.token = shop.admin, .tenant = shop.tenant_str()});
    EXPECT_EQ(p.status, 200) << p.body;
    return out + "products " + std::to_string(int_of(p["data"], "total"));
  };
  ASSERT_EQ(totals(s), "2 1 1 0 products 2");
  ASSERT_EQ(totals(other), "0 0 0 0 products 1");

  auto add_to = [&](const std::string& status, int slot, int n) {
    sql("INSERT INTO order_counts AS c (tenant_id, status, slot, n) VALUES (" + t + ", '" + status +
        "', " + std::to_string(slot) + ", " + std::to_string(n) +
        ") ON CONFLICT (tenant_id, status, slot) DO UPDATE SET n = c.n + EXCLUDED.n");
  };
  add_to("pending", 15, 5);
  add_to("completed", 3, 7);
  sql("DELETE FROM product_counts WHERE tenant_id = " + t);
  sql("UPDATE product_counts SET live = live + 4 WHERE tenant_id = " + other.tenant_str());
  ASSERT_EQ(totals(s), "14 6 1 7 products 0");
  EXPECT_EQ(sql("SELECT version FROM announcement_list_versions WHERE tenant_id = " + t),
            std::vector<std::string>{});

  sql("SELECT ca_recount(" + t + ")");
  EXPECT_EQ(totals(s), "2 1 1 0 products 2");
  EXPECT_EQ(totals(other), "0 0 0 0 products 5");
  EXPECT_EQ(sql("SELECT version FROM announcement_list_versions WHERE tenant_id = " + t),
            std::vector<std::string>{"1"});
  // Exact counters stay as they are.
  sql("SELECT ca_recount(" + t + ")");
  EXPECT_EQ(totals(s), "2 1 1 0 products 2");
  EXPECT_EQ(sql("SELECT sum(n) FROM order_counts WHERE tenant_id = " + t),
            std::vector<std::string>{"2"});
  // Every tenant at once.
  sql("SELECT ca_recount_all()");
  EXPECT_EQ(totals(other), "0 0 0 0 products 1");
}

TEST(OrderStatus, FollowsTheStateMachineAndEmitsEvents) {
  Shop s = open_shop();
  int64_t id = place(s);
  std::string o = to_string(id);
  std::string user = to_string(s.buyer.id);

  for (const char* illegal : {"pending", "completed"}) {
    HttpResponse r = set_status(s, id, illegal);
    EXPECT_EQ(r.status, 422);
    expect_json(r,
                R"({"success":false,"errors":{"status":["The order cannot move from pending to )" +
                    std::string(illegal) + R"(."]}})");
  }
  HttpResponse processing = set_status(s, id, "processing");
  ASSERT_EQ(processing.status, 200) << processing.body;
  EXPECT_EQ(processing.str("message"), "Order status updated");
  EXPECT_EQ(cJSON_IsTrue(processing["success"]), true);
  // The same record as a read of the order.
  HttpResponse read =
      http("GET", kOrders + "/" + o, {.token = s.buyer.token, .tenant = s.tenant_str()});
  EXPECT_TRUE(cJSON_Compare(processing["data"], read["data"], true)) << processing.body;
  EXPECT_EQ(json_get_str(read["data"], "status").value_or(""), "processing");
  Stamps t = stamps(id);
  EXPECT_NE(t.created_at, t.updated_at);
  EXPECT_EQ(json_get_str(read["data"], "updated_at").value_or(""), t.updated_at);

  HttpResponse completed = set_status(s, id, "completed");
  ASSERT_EQ(completed.status, 200) << completed.body;
  EXPECT_EQ(json_get_str(completed["data"], "status").value_or(""), "completed");
  for (const char* after : {"cancelled", "processing", "pending", "completed"}) {
    HttpResponse r = set_status(s, id, after);
    EXPECT_EQ(r.status, 422);
    expect_json(
        r, R"({"success":false,"errors":{"status":["The order cannot move from completed to )" +
               std::string(after) + R"(."]}})");
  }

  auto changed = events(s.tenant, "order.status_changed");
  ASSERT_EQ(changed.size(), 2u);
  std::string summary = R"({"order_id":)" + o + R"(,"user_id":)" + user +
                        R"(,"total_amount":"4.50","items_count":1,)";
  expect_json_text(changed[0], summary + R"("status":"processing","previous_status":"pending"})");
  expect_json_text(changed[1], summary + R"("status":"completed","previous_status":"processing"})");
  auto done = events(s.tenant, "order.completed");
  ASSERT_EQ(done.size(), 1u);
  expect_json_text(done[0], summary + R"("status":"completed"})");
  EXPECT_TRUE(events(s.tenant, "order.cancelled").empty());

  // pending -> cancelled and processing -> cancelled; cancelled is final.
  int64_t a = place(s);
  int64_t b = place(s);
  ASSERT_EQ(set_status(s, b, "processing").status, 200);
  EXPECT_EQ(set_status(s, a, "cancelled").status, 200);
  EXPECT_EQ(set_status(s, b, "cancelled").status, 200);
  EXPECT_EQ(set_status(s, a, "processing").status, 422);
  auto cancelled = events(s.tenant, "order.cancelled");
  ASSERT_EQ(cancelled.size(), 2u);
  expect_json_text(cancelled[0],
                   R"({"order_id":)" + to_string(a) + R"(,"user_id":)" + user +
                       R"(,"total_amount":"4.50","items_count":1,"status":"cancelled"})");
}

TEST(OrderStatus, ValidatesTheBodyAndFindsOnlyTheTenantsOrders) {
  Shop s = open_shop();
  Shop other = open_shop();
  int64_t id = place(s);
  int64_t theirs = place(other);

  HttpResponse unknown = set_status(s, id, "shipped");
  EXPECT_EQ(unknown.status, 422);
  expect_json(unknown,
              R"({"success":false,"errors":{"status":["The selected status is invalid."]}})");
  HttpResponse missing = http("POST", kOrders + "/" + to_string(id) + "/status",
                              {.token = s.buyer.token, .tenant = s.tenant_str(), .body = "{}"});
  EXPECT_EQ(missing.status, 422);
  expect_json(missing,
              R"({"success":false,"errors":{"status":["The status field is required."]}})");

  for (int64_t target : {theirs, int64_t{999999999999}}) {
    HttpResponse r = set_status(s, target, "processing");
    EXPECT_EQ(r.status, 404);
    expect_json(r, kNotFound);
  }
  EXPECT_EQ(first(sql("SELECT status FROM orders WHERE id = " + to_string(theirs))), "pending");
}

TEST(OrderStatus, ConcurrentMovesApplyExactlyOnce) {
  Shop s = open_shop();
  int64_t id = place(s);
  ASSERT_EQ(set_status(s, id, "processing").status, 200);
  constexpr int kThreads = 10;
  std::vector<long> status(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back(
        [&, i] { status[i] = set_status(s, id, i % 2 ? "completed" : "cancelled").status; });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(std::count(status.begin(), status.end(), 200), 1);
  EXPECT_EQ(std::count(status.begin(), status.end(), 422), kThreads - 1);
  EXPECT_EQ(events(s.tenant, "order.status_changed").size(), 2u);
  EXPECT_EQ(events(s.tenant, "order.completed").size() + events(s.tenant, "order.cancelled").size(),
            1u);
}

// --- DELETE /addresses/{id} -----------------------------------------------------------

HttpResponse delete_address(const std::string& token, int64_t id) {
  return http("DELETE", kAddresses + "/" + to_string(id), {.token = token});
}

// An address no order names is gone; one an order names stays for that
// order (its read still shows it) but is no longer listed, counted or
// accepted for a new order. Either way: 200, then 404 for it.
TEST(AddressDelete, RemovesItFromTheListAndFromNewOrdersAndKeepsItForPastOrders) {
  Shop s = open_shop();
  int64_t unused = create_address(s.buyer.token, "Spare Lane 2", "Hamburg");
  int64_t order = place(s);

  for (int64_t id : {unused, s.address}) {
    HttpResponse r = delete_address(s.buyer.token, id);
    EXPECT_EQ(r.status, 200) << id;
    expect_json(r, R"({"message":"Address deleted"})");
    HttpResponse again = delete_address(s.buyer.token, id);
    EXPECT_EQ(again.status, 404) << id;
    expect_json(again, R"({"error":"Address not found"})");
  }
  EXPECT_EQ(first(sql("SELECT count(*) FROM addresses WHERE id = " + to_string(unused))), "0");
  EXPECT_EQ(
      first(sql("SELECT deleted_at IS NOT NULL FROM addresses WHERE id = " + to_string(s.address))),
      "t");

  HttpResponse list = http("GET", kAddresses, {.token = s.buyer.token});
  ASSERT_EQ(list.status, 200);
  expect_json(list, R"({"data":[]})");
  HttpResponse refused = post_order(s, order_body(s.address, "1", {item(s.product, 1, "1")}));
  EXPECT_EQ(refused.status, 422);
  expect_json(refused, R"({"success":false,"errors":{)"
                       R"("address_id":["The selected address_id is invalid."]}})");
  HttpResponse past =
      http("GET", kOrders + "/" + to_string(order), {.token = s.admin, .tenant = s.tenant_str()});
  ASSERT_EQ(past.status, 200) << past.body;
  EXPECT_EQ(json_get_str(json_get(past["data"], "address"), "street").value_or(""),
            "Main Street 1");
}

// Only the caller's own live addresses: another user's id and an unknown
// one are 404 and change nothing; no token is 401.
TEST(AddressDelete, OnlyTheCallersOwnAddress) {
  Shop s = open_shop();
  int64_t admins = create_address(s.admin, "Admin Road 9", "Bonn");
  for (int64_t id : {admins, int64_t{999999999999}}) {
    HttpResponse r = delete_address(s.buyer.token, id);
    EXPECT_EQ(r.status, 404) << id;
    expect_json(r, R"({"error":"Address not found"})");
  }
  EXPECT_EQ(first(sql("SELECT count(*) FROM addresses WHERE deleted_at IS NULL AND id = " +
                      to_string(admins))),
            "1");
  HttpResponse anonymous = delete_address("", s.address);
  EXPECT_EQ(anonymous.status, 401);
  expect_json(anonymous, kUnauthenticated);
}

}  // namespace
}  // namespace ca::test
