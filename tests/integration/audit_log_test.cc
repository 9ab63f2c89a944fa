// The audit log (issue 40; sql/056, common/audit.h): one entry per
// successful write, in the write's own transaction, read through GET
// /api/v2/admin/audit-log/{tenantId}.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "receiver.h"
#include "stack.h"

namespace ca::test {
namespace {

using namespace std::chrono_literals;

const std::string kAudit = "/api/v2/admin/audit-log/";

// The tenant's entries written by the request whose answer is `r` (its
// X-Request-Id), oldest first, each as
// "action|actor type|actor id|actor name|target type|target id|changed".
std::vector<std::string> entries_of(int64_t tenant, const HttpResponse& r) {
  auto id = r.headers.find("x-request-id");
  if (id == r.headers.end() || id->second.empty()) {
    ADD_FAILURE() << "no X-Request-Id";
    return {};
  }
  return sql(
      "SELECT action || '|' || actor_type || '|' || actor_id || '|' || actor_name || '|' || "
      "target_type || '|' || target_id || '|' || COALESCE(to_json(changed)::text, 'null') "
      "FROM audit_log WHERE tenant_id = " +
      to_string(tenant) + " AND request_id = '" + id->second + "' ORDER BY id");
}

int64_t entry_count(int64_t tenant) {
  return std::stoll(
      sql("SELECT count(*) FROM audit_log WHERE tenant_id = " + to_string(tenant))[0]);
}

std::string user_name(int64_t id) {
  return sql("SELECT name FROM users WHERE id = " + to_string(id))[0];
}

// "<action>|user|<id>|<name>|<target type>|<target id>|<changed>" for `who`.
std::string by_user(const std::string& action, int64_t who, const std::string& target_type,
                    int64_t target, const std::string& changed = "null") {
  return action + "|user|" + to_string(who) + "|" + user_name(who) + "|" + target_type + "|" +
         to_string(target) + "|" + changed;
}

int64_t admin_id() {
  return std::stoll(
      sql("SELECT id FROM users WHERE lower(email) = lower('" + admin_email() + "')")[0]);
}

std::string bad_time(const std::string& field) {
  return "The " + field + " field must be a valid ISO 8601 date-time such as 2026-12-01T10:00:00Z.";
}

HttpResponse post(const Scope& s, const std::string& path, const std::string& body) {
  return http("POST", path, s.call(body));
}

}  // namespace

// --- one entry per write ---------------------------------------------------------

TEST(AuditLog, CatalogueOrderAndAnnouncementWritesEachWriteOneEntry) {
  Scope s = fresh_scope(admin_token());
  const int64_t me = admin_id();

  HttpResponse r = post(s, "/api/v2/admin/category/create", R"({"name":"Shirts"})");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t category = int_of(r["data"], "id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("category.created", me, "category", category)}));

  // Only what differs is named: the name sent again unchanged is not.
  r = post(s, "/api/v2/admin/category/" + to_string(category),
           R"({"name":"Shirts","description":"Cotton"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("category.updated", me, "category", category, R"(["description"])")}));

  r = http("PATCH", "/api/v2/admin/category/" + to_string(category), s.call());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("category.toggled", me, "category", category, R"(["is_published"])")}));

  r = post(s, "/api/v2/admin/products",
           R"({"name":"Tee","price":9.5,"stock":3,"category_id":)" + to_string(category) + "}");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t product = r.integer("id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("product.created", me, "product", product)}));

  r = post(s, "/api/v2/admin/products/" + to_string(product),
           R"({"name":"Tee","price":12,"stock":3,"description":null,"published":false})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("product.updated", me, "product", product, R"(["price","published"])")}));

  // An update that changes nothing is still a write: its entry names nothing.
  r = post(s, "/api/v2/admin/products/" + to_string(product), R"({"stock":3})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("product.updated", me, "product", product, "[]")}));

  // An order, by a member who buys, and its status changed by the ADMIN.
  TestUser buyer = add_user(s.token, s.tenant, "MEMBER");
  HttpResponse address = http(
      "POST", "/api/v2/admin/addresses",
      {.token = buyer.token,
       .body =
           R"({"street":"Main Street 1","city":"Berlin","country":"DE","postal_code":"10115"})"});
  ASSERT_EQ(address.status, 201) << address.body;
  r = http("POST", "/api/v2/admin/orders",
           {.token = buyer.token,
            .tenant = s.tid(),
            .body = R"({"address_id":)" + to_string(address.integer("id")) +
                    R"(,"payment_type":1,"total_amount":12,"order_items":[{"product_id":)" +
                    to_string(product) + R"(,"qty":1,"amount":12}]})"});
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t order = int_of(r["data"], "id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("order.created", buyer.id, "order", order)}));
  r = post(s, "/api/v2/admin/orders/" + to_string(order) + "/status", R"({"status":"processing"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("order.status_changed", me, "order", order, R"(["status"])")}));

  r = http("DELETE", "/api/v2/admin/products/" + to_string(product), s.call());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("product.deleted", me, "product", product)}));

  // Deleting a category is one entry, however many products it detaches.
  int64_t kept = post(s, "/api/v2/admin/products",
                      R"({"name":"Cap","price":5,"category_id":)" + to_string(category) + "}")
                     .integer("id");
  ASSERT_GT(kept, 0);
  r = http("DELETE", "/api/v2/admin/category/" + to_string(category), s.call());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("category.deleted", me, "category", category)}));

  r = post(s, "/api/v2/admin/announcements", R"({"title":"Hello","type":"info","status":"draft"})");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t announcement = int_of(r["data"], "id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("announcement.created", me, "announcement", announcement)}));
  r = post(s, "/api/v2/admin/announcements/" + to_string(announcement),
           R"({"title":"Hello again","priority":1})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("announcement.updated", me, "announcement",
                                              announcement, R"(["title","priority"])")}));
  r = http("DELETE", "/api/v2/admin/announcements/" + to_string(announcement), s.call());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("announcement.archived", me, "announcement",
                                              announcement, R"(["status"])")}));
}

TEST(AuditLog, MembershipWritesEachWriteOneEntry) {
  Scope s = fresh_scope(admin_token());
  const int64_t me = admin_id();
  const std::string members = "/api/v2/admin/team-members/" + s.tid();

  std::string email = unique("joiner") + "@test.local";
  HttpResponse r =
      http("POST", members,
           {.token = s.token, .body = R"({"email":")" + email + R"(","role":"MEMBER"})"});
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t invitation = int_of(r["invitation"], "id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("member.invited", me, "invitation", invitation)}));
  // The member joins (a new account): the actor is the account that joined.
  TestInvitation again = invite_user(s.token, s.tenant, email);
  r = accept_as_new_account(again.token, "Joiner", "password-joiner-1");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t joiner = int_of(r["member"], "user_id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{"member.joined|user|" + to_string(joiner) +
                                      "|Joiner|member|" + to_string(joiner) + "|null"}));

  r = http("POST", members + "/" + to_string(joiner),
           {.token = s.token, .body = R"({"role":"ADMIN"})"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("member.role_updated", me, "member", joiner, R"(["role"])")}));
  // The role it has already: nothing written, no entry.
  r = http("POST", members + "/" + to_string(joiner),
           {.token = s.token, .body = R"({"role":"ADMIN"})"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r), std::vector<std::string>{});

  r = http("DELETE", members + "/" + to_string(joiner), {.token = s.token});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("member.removed", me, "member", joiner)}));

  TestInvitation pending = invite_user(s.token, s.tenant, unique("later") + "@test.local");
  r = http("DELETE", members + "/invitations/" + to_string(pending.id), {.token = s.token});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(
      entries_of(s.tenant, r),
      (std::vector<std::string>{by_user("invitation.revoked", me, "invitation", pending.id)}));
  // Revoking again writes nothing.
  r = http("DELETE", members + "/invitations/" + to_string(pending.id), {.token = s.token});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r), std::vector<std::string>{});
}

TEST(AuditLog, WebhookAndTenantWritesEachWriteOneEntry) {
  Scope s = fresh_scope(admin_token());
  const int64_t me = admin_id();
  const std::string hooks = "/api/v2/admin/webhooks/" + s.tid();

  HttpResponse r =
      http("POST", hooks,
           {.token = s.token,
            .body = R"({"url":"http://127.0.0.1:1024/in","events":["product.created"]})"});
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t hook = r.integer("id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("webhook.created", me, "webhook", hook)}));

  r = http("POST", hooks + "/" + to_string(hook),
           {.token = s.token,
            .body = R"({"url":"http://127.0.0.1:1024/in","events":["*"],"description":"All"})"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("webhook.updated", me, "webhook", hook, R"(["events","description"])")}));

  r = http("POST", hooks + "/" + to_string(hook) + "/rotate-secret", {.token = s.token});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{
                by_user("webhook.secret_rotated", me, "webhook", hook, R"(["secret"])")}));

  r = http("POST", hooks + "/" + to_string(hook) + "/test", {.token = s.token});
  ASSERT_EQ(r.status, 202) << r.body;
  int64_t delivery = int_of(r["data"], "id");
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("webhook.tested", me, "webhook", hook)}));

  // Its lease cleared too: a worker that took it meanwhile (the stack's
  // loops every 200 ms) then cannot write its outcome over this one.
  sql("UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL WHERE tenant_id = " +
      s.tid() + " AND id = " + to_string(delivery));
  r = http("POST", hooks + "/deliveries/" + to_string(delivery) + "/redeliver", {.token = s.token});
  ASSERT_EQ(r.status, 202) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("webhook.redelivered", me, "webhook", hook)}));

  r = http("DELETE", hooks + "?id=" + to_string(hook), {.token = s.token});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("webhook.deleted", me, "webhook", hook)}));

  r = http("POST", "/api/v2/admin/tenants/" + s.tid(),
           {.token = s.token,
            .body = R"({"name":"Renamed shop","settings":{"timezone":"Europe/Paris"}})"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(s.tenant, r),
            (std::vector<std::string>{by_user("tenant.updated", me, "tenant", s.tenant,
                                              R"(["name","settings.timezone"])")}));
}

// --- nothing half-written --------------------------------------------------------

TEST(AuditLog, AFailedWriteWritesNoEntry) {
  Scope s = fresh_scope(admin_token());
  ASSERT_EQ(post(s, "/api/v2/admin/category/create", R"({"name":"Taken"})").status, 201);
  const int64_t before = entry_count(s.tenant);

  // Refused before the write, refused by the write's own checks, failed in
  // the database: none leaves an entry.
  EXPECT_EQ(post(s, "/api/v2/admin/products", R"({"name":""})").status, 422);
  EXPECT_EQ(
      post(s, "/api/v2/admin/products", R"({"name":"X","price":1,"category_id":999999999})").status,
      422);
  EXPECT_EQ(post(s, "/api/v2/admin/products/999999999", R"({"name":"X"})").status, 404);
  EXPECT_EQ(post(s, "/api/v2/admin/category/create", R"({"name":"taken"})").status, 422);
  {
    CategoryInsertFailure failure;
    HttpResponse r =
        post(s, "/api/v2/admin/category/create", "{\"name\":\"" + failure.name() + "\"}");
    EXPECT_EQ(r.status, 500) << r.body;
    EXPECT_EQ(entries_of(s.tenant, r), std::vector<std::string>{});
  }
  EXPECT_EQ(entry_count(s.tenant), before);
  EXPECT_EQ(sql("SELECT count(*) FROM categories WHERE tenant_id = " + s.tid()),
            (std::vector<std::string>{"1"}));
}

// --- reading it ------------------------------------------------------------------

TEST(AuditLog, AnEntryReadsAsTheContractSaysWithTheResponsesRequestId) {
  Scope s = fresh_scope(admin_token());
  std::string mine = unique("audit-request");
  Call call = s.call(R"({"name":"Boots","price":20})");
  call.headers.push_back("X-Request-Id: " + mine);
  HttpResponse created = http("POST", "/api/v2/admin/products", call);
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_EQ(created.headers["x-request-id"], mine);
  int64_t product = created.integer("id");
  std::vector<std::string> stored =
      sql("SELECT id || '|' || to_char(created_at AT TIME ZONE 'UTC', "
          "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM audit_log WHERE tenant_id = " +
          s.tid());
  ASSERT_EQ(stored.size(), 1u);
  std::string id = stored[0].substr(0, stored[0].find('|'));
  std::string at = stored[0].substr(stored[0].find('|') + 1);
  const int64_t me = admin_id();

  HttpResponse r = http("GET", kAudit + s.tid(), {.token = s.token});
  expect_body(r, 200,
              R"({"data":[{"id":)" + id +
                  R"(,"action":"product.created","actor":{"type":"user","id":)" + to_string(me) +
                  R"(,"name":)" + json_text(user_name(me)) +
                  R"(},"target":{"type":"product","id":)" + to_string(product) +
                  R"(},"changed":null,"request_id":")" + mine + R"(","created_at":")" + at +
                  R"("}],"current_page":1,"last_page":1,"per_page":15,"total":1,)"
                  R"("total_relation":"eq"})");
}

TEST(AuditLog, ListsNewestFirstPagedAndFiltered) {
  Scope s = fresh_scope(admin_token());
  const int64_t me = admin_id();
  std::vector<int64_t> categories;
  for (int i = 0; i < 3; ++i) {
    HttpResponse r =
        post(s, "/api/v2/admin/category/create", R"({"name":"C)" + std::to_string(i) + R"("})");
    ASSERT_EQ(r.status, 201) << r.body;
    categories.push_back(int_of(r["data"], "id"));
  }
  HttpResponse p = post(s, "/api/v2/admin/products", R"({"name":"P","price":1})");
  ASSERT_EQ(p.status, 201) << p.body;
  int64_t product = p.integer("id");
  TestUser other_admin = add_user(s.token, s.tenant, "ADMIN");  // member.invited, member.joined
  ASSERT_EQ(http("PATCH", "/api/v2/admin/category/" + to_string(categories[0]),
                 {.token = other_admin.token, .tenant = s.tid()})
                .status,
            200);
  // Same created_at for two entries: the id breaks the tie.
  sql("UPDATE audit_log SET created_at = '2026-01-02T00:00:00Z' WHERE tenant_id = " + s.tid() +
      " AND action = 'category.created' AND target_id IN (" + to_string(categories[1]) + ", " +
      to_string(categories[2]) + ")");

  auto actions = [&](const std::string& query) {
    HttpResponse r = http("GET", kAudit + s.tid() + query, {.token = s.token});
    EXPECT_EQ(r.status, 200) << r.body;
    std::vector<std::string> out;
    const cJSON* item = nullptr;
    cJSON_ArrayForEach(item, r["data"]) {
      out.push_back(std::string(cJSON_GetObjectItem(item, "action")->valuestring) + ":" +
                    to_string(int_of(cJSON_GetObjectItem(item, "target"), "id")));
    }
    out.push_back("total=" + to_string(r.integer("total")) +
                  " last=" + to_string(r.integer("last_page")));
    return out;
  };
  const std::string c0 = to_string(categories[0]), c1 = to_string(categories[1]),
                    c2 = to_string(categories[2]), pr = to_string(product);
  const std::string joined = to_string(other_admin.id);
  // Newest first; the two moved back in time come last, higher id first.
  std::vector<std::string> all = actions("");
  ASSERT_EQ(all.size(), 8u);
  EXPECT_EQ(all[0], "category.toggled:" + c0);
  EXPECT_EQ(all[1], "member.joined:" + joined);
  EXPECT_EQ(all[3], "product.created:" + pr);
  EXPECT_EQ(all[4], "category.created:" + c0);
  EXPECT_EQ(all[5], "category.created:" + c2);
  EXPECT_EQ(all[6], "category.created:" + c1);
  EXPECT_EQ(all[7], "total=7 last=1");

  EXPECT_EQ(actions("?per_page=2&page=2"),
            (std::vector<std::string>{
                "member.invited:" + sql("SELECT target_id FROM audit_log WHERE tenant_id = " +
                                        s.tid() + " AND action = 'member.invited'")[0],
                "product.created:" + pr, "total=7 last=4"}));
  EXPECT_EQ(actions("?action=category.created"),
            (std::vector<std::string>{"category.created:" + c0, "category.created:" + c2,
                                      "category.created:" + c1, "total=3 last=1"}));
  EXPECT_EQ(actions("?target_type=category&target_id=" + c0),
            (std::vector<std::string>{"category.toggled:" + c0, "category.created:" + c0,
                                      "total=2 last=1"}));
  EXPECT_EQ(actions("?actor_type=user&actor_id=" + joined),
            (std::vector<std::string>{"category.toggled:" + c0, "member.joined:" + joined,
                                      "total=2 last=1"}));
  EXPECT_EQ(actions("?actor_type=api_key"), (std::vector<std::string>{"total=0 last=1"}));
  EXPECT_EQ(actions("?actor_id=" + to_string(me) + "&target_type=product"),
            (std::vector<std::string>{"product.created:" + pr, "total=1 last=1"}));
  EXPECT_EQ(actions("?since=2026-01-01T00:00:00Z&until=2026-01-03"),
            (std::vector<std::string>{"category.created:" + c2, "category.created:" + c1,
                                      "total=2 last=1"}));
  EXPECT_EQ(actions("?until=2026-01-02T00:00:00Z"), (std::vector<std::string>{"total=0 last=1"}));
  EXPECT_EQ(actions("?since=2026-01-02T01:00:00%2B01:00&action=category.created"),
            (std::vector<std::string>{"category.created:" + c0, "category.created:" + c2,
                                      "category.created:" + c1, "total=3 last=1"}));
}

TEST(AuditLog, OnlyTheTenantsAdminsReadItAndBadFiltersAre422) {
  Scope s = fresh_scope(admin_token());
  TestUser member = add_user(s.token, s.tenant, "MEMBER");
  Scope other = fresh_scope(admin_token());
  const std::string path = kAudit + s.tid();

  expect_body(http("GET", path), 401, R"({"error":"Unauthenticated"})");
  expect_body(http("GET", path, {.token = member.token}), 403,
              R"({"error":"This action requires the ADMIN role"})");
  TestUser outsider = add_user(other.token, other.tenant, "ADMIN");
  expect_body(http("GET", path, {.token = outsider.token}), 403,
              R"({"error":"You are not a member of this tenant"})");
  expect_body(http("GET", kAudit + "999999999", {.token = s.token}), 404,
              R"({"error":"Tenant not found"})");
  // The caller comes first: a bad filter of an outsider is still 403.
  expect_body(http("GET", path + "?actor_type=robot", {.token = outsider.token}), 403,
              R"({"error":"You are not a member of this tenant"})");

  expect_body(http("GET",
                   path + "?actor_type=robot&actor_id=0&action=product.exploded&target_type=planet"
                          "&target_id=x&since=yesterday&until=2026-02-30&per_page=0",
                   {.token = s.token}),
              422,
              R"({"message":"The given data was invalid.","errors":{)"
              R"("per_page":["The per_page field must be an integer of at least 1."],)"
              R"("actor_type":["The selected actor_type is invalid."],)"
              R"("actor_id":["The actor_id field must be a positive integer."],)"
              R"("action":["The selected action is invalid."],)"
              R"("target_type":["The selected target_type is invalid."],)"
              R"("target_id":["The target_id field must be a positive integer."],)"
              R"("since":[")" +
                  bad_time("since") +
                  R"("],)"
                  R"("until":[")" +
                  bad_time("until") + R"("]}})");

  // No way to change or delete an entry.
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    HttpResponse r = http(method, path, {.token = s.token, .body = "{}"});
    EXPECT_EQ(r.status, 405) << method << " " << r.body;
  }
}

TEST(AuditLog, AnEntryKeepsTheActorsNameOfItsTime) {
  Scope s = fresh_scope(admin_token());
  TestUser writer = add_user(s.token, s.tenant, "ADMIN");
  HttpResponse r = http("POST", "/api/v2/admin/category/create",
                        {.token = writer.token, .tenant = s.tid(), .body = R"({"name":"Old"})"});
  ASSERT_EQ(r.status, 201) << r.body;
  std::vector<std::string> before = entries_of(s.tenant, r);
  sql("UPDATE users SET name = 'Somebody Else' WHERE id = " + to_string(writer.id));
  EXPECT_EQ(entries_of(s.tenant, r), before);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_NE(before[0].find("|Test User|"), std::string::npos) << before[0];
}

// --- retention -------------------------------------------------------------------

TEST(AuditLog, TheWorkerPurgesEntriesOlderThanAuditRetentionDays) {
  Scope s = fresh_scope(admin_token());
  for (const char* name : {"Old", "Recent", "New"}) {
    ASSERT_EQ(
        post(s, "/api/v2/admin/category/create", std::string(R"({"name":")") + name + "\"}").status,
        201);
  }
  auto aged = [&](const std::string& days, int n) {
    sql("UPDATE audit_log SET created_at = now() - interval '" + days +
        " days' WHERE tenant_id = " + s.tid() +
        " AND id = (SELECT id FROM audit_log WHERE "
        "tenant_id = " +
        s.tid() + " ORDER BY id OFFSET " + std::to_string(n) + " LIMIT 1)");
  };
  aged("40", 0);
  aged("20", 1);
  auto left = [&] {
    return sql(
        "SELECT c.name FROM audit_log a JOIN categories c ON c.tenant_id = a.tenant_id "
        "AND c.id = a.target_id WHERE a.tenant_id = " +
        s.tid() + " ORDER BY a.id");
  };
  ASSERT_TRUE(run_worker_once({{"AUDIT_RETENTION_DAYS", "0"}}));
  EXPECT_EQ(left(), (std::vector<std::string>{"Old", "Recent", "New"}));
  ASSERT_TRUE(run_worker_once({{"AUDIT_RETENTION_DAYS", "30"}}));
  EXPECT_EQ(left(), (std::vector<std::string>{"Recent", "New"}));
  ASSERT_TRUE(run_worker_once({{"AUDIT_RETENTION_DAYS", "10"}}));
  EXPECT_EQ(left(), (std::vector<std::string>{"New"}));
}

// A password reset belongs to no tenant: its entry is kept under tenant 0,
// by and of the account, with the reset's request id.
TEST(AuditLog, APasswordResetIsKeptUnderTenantZero) {
  Scope s = fresh_scope(admin_token());
  TestUser user = add_user(s.token, s.tenant, "MEMBER");
  std::string secret = unique("r");
  secret.erase(std::remove(secret.begin(), secret.end(), '-'), secret.end());
  const std::string token = "pwr_" + secret + repeat("A", 43 - static_cast<int>(secret.size()));
  ASSERT_EQ(token.size(), 47u);
  sql("INSERT INTO password_resets (token_hash, email, expires_at) VALUES (sha256(convert_to('" +
      token + "', 'UTF8')), '" + user.email + "', now() + interval '1 hour')");
  HttpResponse r = http("POST", "/api/v2/admin/password/reset",
                        {.body = R"({"token":")" + token + R"(","password":"a-new-password-1"})"});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(entries_of(0, r),
            (std::vector<std::string>{by_user("user.password_reset", user.id, "user", user.id)}));
  EXPECT_EQ(sql("SELECT count(*) FROM audit_log WHERE tenant_id <> 0 AND actor_id = " +
                to_string(user.id) + " AND action = 'user.password_reset'"),
            (std::vector<std::string>{"0"}));
}

// --- API keys --------------------------------------------------------------------

TEST(AuditLog, AWriteWithAnApiKeyNamesTheKeyInItsEntryItsEventsAndItsWebhookBody) {
  Scope s = fresh_scope(admin_token());
  const int64_t me = admin_id();
  Receiver receiver;
  ASSERT_EQ(http("POST", "/api/v2/admin/webhooks/" + s.tid(),
                 {.token = s.token,
                  .body = R"({"url":")" + receiver.url() + R"(","events":["product.created"]})"})
                .status,
            201);
  HttpResponse created = http(
      "POST", "/api/v2/admin/api-keys/" + s.tid(),
      {.token = s.token,
       .body = R"({"name":"ERP sync","scopes":["products:write","events:read","audit:read"]})"});
  ASSERT_EQ(created.status, 201) << created.body;
  const int64_t key_id = created.integer("id");
  const std::string key = created.str("key");
  EXPECT_EQ(entries_of(s.tenant, created),
            (std::vector<std::string>{by_user("api_key.created", me, "api_key", key_id)}));

  HttpResponse by_session = post(s, "/api/v2/admin/products", R"({"name":"Manual","price":1})");
  ASSERT_EQ(by_session.status, 201) << by_session.body;
  HttpResponse by_key =
      http("POST", "/api/v2/admin/products",
           {.token = key, .tenant = s.tid(), .body = R"({"name":"Synced","price":3})"});
  ASSERT_EQ(by_key.status, 201) << by_key.body;
  const int64_t product = by_key.integer("id");
  const std::string actor =
      R"({"type":"api_key","id":)" + to_string(key_id) + R"(,"name":"ERP sync"})";
  EXPECT_EQ(entries_of(s.tenant, by_key),
            (std::vector<std::string>{"product.created|api_key|" + to_string(key_id) +
                                      "|ERP sync|product|" + to_string(product) + "|null"}));

  // The feed: `actor` after `data` for the key's event only.
  HttpResponse feed = http("GET", "/api/v2/admin/events/" + s.tid(), {.token = key});
  ASSERT_EQ(feed.status, 200) << feed.body;
  std::vector<std::string> actors;
  const cJSON* event = nullptr;
  cJSON_ArrayForEach(event, feed["data"]) {
    const cJSON* a = cJSON_GetObjectItem(event, "actor");
    std::string keys;
    for (const cJSON* m = event->child; m; m = m->next) keys += std::string(m->string) + ",";
    actors.push_back(keys + (a ? json_dump(a) : "-"));
  }
  EXPECT_EQ(actors, (std::vector<std::string>{"id,type,created_at,data,-",
                                              "id,type,created_at,data,actor," + actor}));

  // The webhook bodies, likewise.
  ASSERT_TRUE(receiver.wait_for(2, std::chrono::seconds(30)));
  std::vector<std::string> bodies;
  for (const ReceivedRequest& req : receiver.requests()) {
    Json body = json_parse(req.body);
    ASSERT_TRUE(body) << req.body;
    const cJSON* a = cJSON_GetObjectItem(body.get(), "actor");
    std::string keys;
    for (const cJSON* m = body.get()->child; m; m = m->next) keys += std::string(m->string) + ",";
    bodies.push_back(
        std::string(
            cJSON_GetObjectItem(cJSON_GetObjectItem(body.get(), "data"), "name")->valuestring) +
        ":" + keys + (a ? json_dump(a) : "-"));
  }
  std::sort(bodies.begin(), bodies.end());
  EXPECT_EQ(bodies,
            (std::vector<std::string>{"Manual:event,tenant_id,timestamp,data,-",
                                      "Synced:event,tenant_id,timestamp,data,actor," + actor}));

  // The key reads the log (audit:read); the entry keeps the key's name of its time.
  sql("UPDATE api_keys SET name = 'Renamed' WHERE tenant_id = " + s.tid() +
      " AND id = " + to_string(key_id));
  HttpResponse log = http("GET", kAudit + s.tid() + "?actor_type=api_key", {.token = key});
  ASSERT_EQ(log.status, 200) << log.body;
  ASSERT_EQ(cJSON_GetArraySize(log["data"]), 1) << log.body;
  EXPECT_EQ(json_dump(cJSON_GetObjectItem(cJSON_GetArrayItem(log["data"], 0), "actor")), actor);

  // A key without audit:read may not.
  HttpResponse writer =
      http("POST", "/api/v2/admin/api-keys/" + s.tid(),
           {.token = s.token, .body = R"({"name":"Writer","scopes":["products:write"]})"});
  ASSERT_EQ(writer.status, 201) << writer.body;
  expect_body(http("GET", kAudit + s.tid(), {.token = writer.str("key")}), 403,
              R"({"error":"This API key does not have the audit:read scope"})");

  HttpResponse revoked = http(
      "DELETE", "/api/v2/admin/api-keys/" + s.tid() + "/" + to_string(key_id), {.token = s.token});
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(entries_of(s.tenant, revoked),
            (std::vector<std::string>{by_user("api_key.revoked", me, "api_key", key_id)}));
}

}  // namespace ca::test
