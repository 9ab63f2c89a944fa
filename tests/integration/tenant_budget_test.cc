// Per-tenant cost budgets (common/tenant_budget.h) in a real products
// handler: a tenant that spends its request time or answer bytes is refused
// with 429 and Retry-After before any work, another tenant is served, and
// only requests verified for a tenant drain its budget.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <thread>
#include <utility>

#include "own_handler.h"
#include "stack.h"

namespace ca::test {
namespace {

constexpr const char* kTooMany = R"({"error":"Too many requests"})";

OwnCall list_products(const Scope& s, const std::string& query = "") {
  return {.method = "GET",
          .uri = "/api/v2/admin/products",
          .token = s.token,
          .params = {{"HTTP_X_TENANT_ID", s.tid()}, {"QUERY_STRING", query}}};
}

// Retry-After's seconds from a FastCGI answer's headers, or -1.
int retry_after(const OwnFullAnswer& a) {
  std::smatch m;
  static const std::regex kRetryAfter(R"((^|\r\n)Retry-After: (\d+)(\r\n|$))");
  return std::regex_search(a.headers, m, kRetryAfter) ? std::stoi(m[2]) : -1;
}

// Calls until the first 429 (at most `limit` calls): the number of 200s before it.
int served_until_refused(const OwnHandler& handler, const OwnCall& call, int limit,
                         OwnFullAnswer* refused) {
  for (int i = 0; i < limit; ++i) {
    OwnFullAnswer full = handler.call_full(call);
    const OwnAnswer& a = full.answer;
    if (a.status == "Status: 429 Too Many Requests") {
      *refused = full;
      return i;
    }
    EXPECT_EQ(a.status, "Status: 200 OK") << a.body;
    if (a.status != "Status: 200 OK") return -1;
  }
  return -1;
}

// A handler of the test's own with 1 ms of request time per tenant per
// second (a burst of 4 ms: a few requests) and no bytes budget.
OwnHandler handler_with_a_time_budget(const std::string& executable, const std::string& tag) {
  return OwnHandler(executable, tag,
                    {{"TENANT_BUSY_MS_PER_SECOND", "1"}, {"TENANT_ANSWER_BYTES_PER_SECOND", "0"}});
}

TEST(TenantBudget, ATenantOutOfRequestTimeIsRefusedAndAnotherIsServed) {
  OwnHandler handler = handler_with_a_time_budget("commerce-admin-products", "budget-time");
  std::string admin = admin_token();
  Scope spender = fresh_scope(admin);
  Scope other = fresh_scope(admin);

  OwnFullAnswer refused;
  int served = served_until_refused(handler, list_products(spender), 200, &refused);
  ASSERT_GE(served, 1) << "the first request of a fresh tenant must be served";
  EXPECT_EQ(refused.answer.body, kTooMany);
  int wait = retry_after(refused);
  EXPECT_GE(wait, 1);
  EXPECT_LE(wait, 4);  // the debt is at most one burst: 4 s at 1 ms/s

  // Refused before any work: even a request that would fail its token check.
  OwnCall bad_token = list_products(spender);
  bad_token.token = "not-a-token";
  EXPECT_EQ(handler.call(bad_token).status, "Status: 429 Too Many Requests");

  OwnAnswer other_answer = handler.call(list_products(other));
  EXPECT_EQ(other_answer.status, "Status: 200 OK") << other_answer.body;

  // Served again once the budget has refilled.
  sleep(static_cast<unsigned>(wait));
  EXPECT_EQ(handler.call(list_products(spender)).status, "Status: 200 OK");
}

TEST(TenantBudget, APathTenantRouteIsCheckedForItsPathsTenantWhateverXTenantIdSays) {
  OwnHandler handler = handler_with_a_time_budget("commerce-admin-webhooks", "budget-path");
  std::string admin = admin_token();
  Scope spender = fresh_scope(admin);
  Scope other = fresh_scope(admin);
  OwnCall list{
      .method = "GET", .uri = "/api/v2/admin/webhooks/" + spender.tid(), .token = spender.token};
  OwnFullAnswer refused;
  ASSERT_GE(served_until_refused(handler, list, 200, &refused), 1);
  // The header names a tenant with a full budget; the path's is spent.
  list.params = {{"HTTP_X_TENANT_ID", other.tid()}};
  OwnAnswer a = handler.call(list);
  EXPECT_EQ(a.status, "Status: 429 Too Many Requests") << a.body;
  EXPECT_EQ(a.body, kTooMany);
}

TEST(TenantBudget, RequestsNamingATenantWithoutBeingVerifiedForItCostItNothing) {
  OwnHandler handler = handler_with_a_time_budget("commerce-admin-products", "budget-unverified");
  std::string admin = admin_token();
  Scope victim = fresh_scope(admin);
  Scope elsewhere = fresh_scope(admin);
  // Bad tokens and another tenant's admin (403) name the victim 100 times.
  OwnCall bad_token = list_products(victim);
  bad_token.token = "not-a-token";
  OwnCall not_member = list_products(victim);
  not_member.token = add_user(admin, elsewhere.tenant).token;  // a member of another tenant
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(handler.call(bad_token).status, "Status: 401 Unauthorized");
    ASSERT_EQ(handler.call(not_member).status, "Status: 403 Forbidden");
  }
  OwnAnswer a = handler.call(list_products(victim));
  EXPECT_EQ(a.status, "Status: 200 OK") << a.body;
}

// 100 products with 10,000-character descriptions: a page of all of them
// is about 1 MB.
void add_large_products(const Scope& s) {
  const std::string description = repeat("d", 10000);
  for (int i = 0; i < 100; ++i) {
    HttpResponse r = http("POST", "/api/v2/admin/products",
                          s.call(R"({"name":"p)" + to_string(i) + R"(","price":1,"description":")" +
                                 description + R"("})"));
    ASSERT_EQ(r.status, 201) << r.body;
  }
}

TEST(TenantBudget, ThroughNginxATenantPullingLargePagesIsRefusedAndItsOtherTenantIsNot) {
  // The stack's handlers run with the default answer budget: 8 MiB/s and a
  // burst of 32 MiB per process, so about 64 pages of 1 MB over the two
  // products processes before the first refusal.
  std::string admin = admin_token();
  Scope spender = fresh_scope(admin);
  Scope other = fresh_scope(admin);
  add_large_products(spender);
  Call page = spender.call();
  int served = 0;
  HttpResponse refused;
  for (int i = 0; i < 250 && refused.status == 0; ++i) {
    HttpResponse r = http("GET", "/api/v2/admin/products?per_page=100", page);
    if (r.status == 429) {
      refused = std::move(r);
    } else {
      ASSERT_EQ(r.status, 200) << r.body;
      ++served;
    }
  }
  ASSERT_EQ(refused.status, 429) << "no refusal in 250 pages (" << served << " served)";
  EXPECT_GE(served, 20);
  EXPECT_EQ(refused.body, kTooMany);
  EXPECT_EQ(refused.headers["retry-after"], "1");
  // The same token from the same address, naming its other tenant: served.
  // So the refusal was the spending tenant's budget, not a per-token or
  // per-address rate.
  HttpResponse r = http("GET", "/api/v2/admin/products?per_page=100", other.call());
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST(TenantBudget, ATenantOutOfAnswerBytesIsRefused) {
  // 1 MiB/s of answers: a burst of 16 MiB (the bucket's floor). A page of
  // 100 products with 10,000-character descriptions is about 1 MB.
  OwnHandler handler("commerce-admin-products", "budget-bytes",
                     {{"TENANT_BUSY_MS_PER_SECOND", "0"},
                      {"TENANT_ANSWER_BYTES_PER_SECOND", std::to_string(1 << 20)}});
  Scope s = fresh_scope(admin_token());
  add_large_products(s);
  OwnFullAnswer refused;
  int served = served_until_refused(handler, list_products(s, "per_page=100"), 40, &refused);
  // 16 MiB / ~1 MB a page: the 17th or 18th page is refused.
  EXPECT_GE(served, 15);
  EXPECT_LE(served, 18);
  EXPECT_EQ(refused.answer.body, kTooMany);
  EXPECT_EQ(retry_after(refused), 1);
}

TEST(TenantBudget, ATenantWithTooManyRequestsInProgressIsRefusedAndAnotherIsServed) {
  // One request per tenant at a time, three threads.
  OwnHandler handler("commerce-admin-products", "in-progress",
                     {{"TENANT_REQUESTS_IN_PROGRESS", "1"}}, 3);
  std::string admin = admin_token();
  Scope busy = fresh_scope(admin);
  Scope other = fresh_scope(admin);
  HttpResponse created =
      http("POST", "/api/v2/admin/products", busy.call(R"({"name":"p","price":1})"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = to_string(created.integer("id"));

  // A transaction of the test's holds the product: the handler's update of
  // it waits, in progress, until the transaction ends.
  PgConn conn = connect_database();
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT 1 FROM products WHERE tenant_id = " + busy.tid() +
                                      " AND id = " + id + " FOR UPDATE"));
  OwnFullAnswer update;
  std::thread waiting([&] {
    update = handler.call_full({.method = "POST",
                                .uri = "/api/v2/admin/products/" + id,
                                .token = busy.token,
                                .body = R"({"name":"renamed"})",
                                .params = {{"HTTP_X_TENANT_ID", busy.tid()}}});
  });
  bool waited = wait_for_lock_wait("%FROM ca_product_update(%");

  OwnFullAnswer refused = handler.call_full(list_products(busy));
  OwnAnswer served = handler.call(list_products(other));
  // A token that does not verify takes no slot: 401 at once, not 429.
  OwnCall bad_token = list_products(busy);
  bad_token.token = "not-a-token";
  OwnAnswer unverified = handler.call(bad_token);
  ASSERT_TRUE(exec_ok(conn.get(), "ROLLBACK"));
  waiting.join();
  ASSERT_TRUE(waited) << "the update never waited for the test's lock";
  EXPECT_EQ(refused.answer.status, "Status: 429 Too Many Requests");
  EXPECT_EQ(refused.answer.body, kTooMany);
  EXPECT_EQ(retry_after(refused), 1);
  EXPECT_EQ(served.status, "Status: 200 OK") << served.body;
  EXPECT_EQ(unverified.status, "Status: 401 Unauthorized") << unverified.body;
  EXPECT_EQ(update.answer.status, "Status: 200 OK") << update.answer.body;
  // The slot is given back with the answer.
  EXPECT_EQ(handler.call(list_products(busy)).status, "Status: 200 OK");
}

}  // namespace
}  // namespace ca::test
