// Team members: list, invite (its answers; the flow is in
// invitations_test.cc), role update, removal, the last-admin guard (docs/openapi.yaml,
// docs/design/api-conventions.md "Team members" and "Error bodies").
#include <gtest/gtest.h>

#include <future>
#include <string>

#include "stack.h"

namespace ca::test {
namespace {

std::string member_path(int64_t tenant, int64_t user) {
  return members_path(tenant) + "/" + to_string(user);
}

HttpResponse add(const std::string& token, int64_t tenant, const std::string& body) {
  return http("POST", members_path(tenant), {.token = token, .body = body});
}
HttpResponse set_role(const std::string& token, int64_t tenant, int64_t user,
                      const std::string& role) {
  return http("POST", member_path(tenant, user),
              {.token = token, .body = R"({"role":")" + role + R"("})"});
}
HttpResponse remove(const std::string& token, int64_t tenant, int64_t user) {
  return http("DELETE", member_path(tenant, user), {.token = token});
}

std::string invalid(const std::string& errors) {
  return R"({"message":"The given data was invalid.","errors":)" + errors + "}";
}

std::string member_body(const char* message, int64_t tenant, int64_t user, const char* role,
                        const std::string& name, const std::string& email) {
  return std::string(R"({"message":")") + message + R"(","member":{"tenant_id":)" +
         to_string(tenant) + R"(,"user_id":)" + to_string(user) + R"(,"role":")" + role +
         R"(","name":")" + name + R"(","email":")" + email + R"("}})";
}

std::vector<int64_t> my_tenant_ids(const std::string& token) {
  std::vector<int64_t> ids;
  HttpResponse r = http("GET", "/api/v2/admin/tenants", {.token = token});
  EXPECT_EQ(r.status, 200) << r.body;
  const cJSON* t = nullptr;
  cJSON_ArrayForEach(t, r["tenants"]) ids.push_back(json_get_int(t, "id").value_or(0));
  return ids;
}

// --- list ------------------------------------------------------------------------------

TEST(TeamMembersTest, ListIsPaginatedInJoinOrder) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Team"));
  TestUser a = add_user(admin, t, "MEMBER");
  TestUser b = add_user(admin, t, "ADMIN");

  HttpResponse r = http("GET", members_path(t), {.token = admin});
  ASSERT_EQ(r.status, 200) << r.body;
  expect_single_page(r, 3);
  ASSERT_EQ(cJSON_GetArraySize(r["data"]), 3);
  const cJSON* first = cJSON_GetArrayItem(r["data"], 0);
  EXPECT_EQ(json_keys(first),
            (std::vector<std::string>{"email", "joined_at", "name", "role", "user_id"}));
  EXPECT_EQ(json_get_int(first, "user_id"), token_user_id(admin));
  EXPECT_EQ(json_get_str(first, "email").value_or(""), admin_email());
  EXPECT_EQ(json_get_str(first, "role").value_or(""), "ADMIN");
  EXPECT_TRUE(is_timestamp(json_get(first, "joined_at")));
  const cJSON* second = cJSON_GetArrayItem(r["data"], 1);
  EXPECT_EQ(json_get_int(second, "user_id"), a.id);
  EXPECT_EQ(json_get_str(second, "name").value_or(""), "Test User");
  EXPECT_EQ(json_get_str(second, "email").value_or(""), a.email);
  EXPECT_EQ(json_get_str(second, "role").value_or(""), "MEMBER");
  const cJSON* third = cJSON_GetArrayItem(r["data"], 2);
  EXPECT_EQ(json_get_int(third, "user_id"), b.id);
  EXPECT_EQ(json_get_str(third, "role").value_or(""), "ADMIN");

  // Any member may list.
  EXPECT_TRUE(json_eq(http("GET", members_path(t), {.token = a.token}).json.get(), r.body));
}

TEST(TeamMembersTest, ListPagesClampAndPastTheEnd) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Paged team"));
  TestUser a = add_user(admin, t);
  TestUser b = add_user(admin, t);

  HttpResponse p1 = http("GET", members_path(t) + "?per_page=2", {.token = admin});
  ASSERT_EQ(p1.status, 200) << p1.body;
  EXPECT_EQ(cJSON_GetArraySize(p1["data"]), 2);
  EXPECT_EQ(p1.integer("per_page"), 2);
  EXPECT_EQ(p1.integer("last_page"), 2);
  EXPECT_EQ(p1.integer("total"), 3);

  HttpResponse p2 = http("GET", members_path(t) + "?page=2&per_page=2", {.token = admin});
  ASSERT_EQ(p2.status, 200) << p2.body;
  ASSERT_EQ(cJSON_GetArraySize(p2["data"]), 1);
  EXPECT_EQ(json_get_int(cJSON_GetArrayItem(p2["data"], 0), "user_id"), b.id);
  EXPECT_EQ(p2.integer("current_page"), 2);

  HttpResponse past = http("GET", members_path(t) + "?page=9&per_page=2", {.token = admin});
  ASSERT_EQ(past.status, 200) << past.body;
  EXPECT_TRUE(json_eq(past.json.get(),
                      R"({"data":[],"current_page":9,"last_page":2,"per_page":2,"total":3})"));

  HttpResponse clamped = http("GET", members_path(t) + "?per_page=1000", {.token = admin});
  ASSERT_EQ(clamped.status, 200) << clamped.body;
  EXPECT_EQ(clamped.integer("per_page"), 100);
  EXPECT_EQ(clamped.integer("last_page"), 1);
  EXPECT_EQ(cJSON_GetArraySize(clamped["data"]), 3);
  (void)a;
}

TEST(TeamMembersTest, ListRejectsBadPageParameters) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Bad pages"));
  const std::string page_error =
      invalid(R"({"page":["The page field must be an integer of at least 1."]})");
  for (const char* q : {"page=0", "page=-1", "page=abc", "page=", "page=1.5"}) {
    HttpResponse r = http("GET", members_path(t) + "?" + q, {.token = admin});
    EXPECT_EQ(r.status, 422) << q;
    EXPECT_TRUE(json_eq(r.json.get(), page_error)) << q;
  }
  HttpResponse both = http("GET", members_path(t) + "?page=0&per_page=0", {.token = admin});
  EXPECT_EQ(both.status, 422);
  EXPECT_TRUE(json_eq(both.json.get(), invalid(R"({
      "page":["The page field must be an integer of at least 1."],
      "per_page":["The per_page field must be an integer of at least 1."]})")));
}

TEST(TeamMembersTest, ListNeedsMembershipOfAnExistingTenant) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Closed team"));
  TestUser outsider = add_user(admin, create_tenant(admin, unique("Outside")), "ADMIN");
  HttpResponse forbidden = http("GET", members_path(t), {.token = outsider.token});
  EXPECT_EQ(forbidden.status, 403);
  EXPECT_EQ(forbidden.body, R"({"error":"You are not a member of this tenant"})");
  HttpResponse missing = http("GET", members_path(9223372036854775807), {.token = admin});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"Tenant not found"})");
  EXPECT_TRUE(is_unauthenticated(http("GET", members_path(t))));
}

// --- invite (the add) --------------------------------------------------------------------
//
// POST /team-members/{tenantId} invites; invitations_test.cc covers the rest
// of the flow (accept, list, revoke, expiry, concurrency, events).

TEST(TeamMembersTest, InvitingAMemberAgainIs409AndWritesNothing) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Duplicate"));
  TestUser u = add_user(admin, t, "MEMBER");
  std::string state =
      "SELECT (SELECT count(*) FROM events WHERE tenant_id = " + to_string(t) +
      ") || '/' || (SELECT count(*) FROM invitations WHERE tenant_id = " + to_string(t) + ")";
  std::vector<std::string> before = sql(state);

  // Whatever the case of the email.
  std::string upper;
  for (char c : u.email) upper.push_back(static_cast<char>(std::toupper(c)));
  for (const std::string& email : {u.email, upper}) {
    HttpResponse r = add(admin, t, R"({"email":")" + email + R"(","role":"ADMIN"})");
    EXPECT_EQ(r.status, 409);
    EXPECT_EQ(r.body, R"({"error":"The user is already a member of this tenant"})");
  }
  EXPECT_EQ(sql(state), before);
  EXPECT_EQ(sql("SELECT role FROM memberships WHERE tenant_id = " + to_string(t) +
                " AND user_id = " + to_string(u.id)),
            (std::vector<std::string>{"MEMBER"}));
  // The creator too.
  HttpResponse self = add(admin, t, R"({"email":")" + admin_email() + R"(","role":"MEMBER"})");
  EXPECT_EQ(self.status, 409);
}

TEST(TeamMembersTest, InviteValidationErrors) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Add validation"));
  std::string email = unique("never") + "@test.local";
  struct Case {
    std::string body;
    std::string errors;
  };
  const std::vector<Case> cases{
      {R"({"email":")" + email + R"("})", R"({"role":["The role field is required."]})"},
      {R"({"email":")" + email + R"(","role":"OWNER"})",
       R"({"role":["The selected role is invalid."]})"},
      {R"({"email":")" + email + R"(","role":"member"})",
       R"({"role":["The selected role is invalid."]})"},
      {R"({"role":"MEMBER"})", R"({"email":["The email field is required."]})"},
      {R"({"email":null,"role":"MEMBER"})", R"({"email":["The email field is required."]})"},
      {R"({"email":"not-an-email","role":"MEMBER"})",
       R"({"email":["The email field must be a valid email address."]})"},
      // Control characters and white space of any kind, ASCII or not.
      {R"({"email":"ctl\u0001\u000bx@x.local","role":"MEMBER"})",
       R"({"email":["The email field must be a valid email address."]})"},
      {R"({"email":"nb\u00a0sp@x.local","role":"MEMBER"})",
       R"({"email":["The email field must be a valid email address."]})"},
      {R"({"email":"del\u007f@x.local","role":"MEMBER"})",
       R"({"email":["The email field must be a valid email address."]})"},
      {R"({"email":"@x.local","role":"MEMBER"})",
       R"({"email":["The email field must be a valid email address."]})"},
      // Shorter than the users table allows: a 422, never the CHECK's 500.
      {R"({"email":"a@","role":"MEMBER"})",
       R"({"email":["The email field must be at least 3 characters."]})"},
      {R"({"email":")" + repeat("a", 250) + R"(@x.io","role":"MEMBER"})",
       R"({"email":["The email field must not be greater than 254 characters."]})"},
      {R"({"email":5,"role":["ADMIN"]})",
       R"({"email":["The email field must be a string."],"role":["The role field must be a string."]})"},
      {R"({"role":"BOSS"})",
       R"({"email":["The email field is required."],"role":["The selected role is invalid."]})"},
  };
  for (const Case& c : cases) {
    HttpResponse r = add(admin, t, c.body);
    EXPECT_EQ(r.status, 422) << c.body;
    EXPECT_TRUE(json_eq(r.json.get(), invalid(c.errors))) << c.body << " -> " << r.body;
  }
  // Nothing was written: no invitation, no account, no membership, no event.
  EXPECT_EQ(sql("SELECT count(*) FROM invitations WHERE tenant_id = " + to_string(t)),
            (std::vector<std::string>{"0"}));
  EXPECT_EQ(sql("SELECT count(*) FROM users WHERE lower(email) = lower('" + email + "')"),
            (std::vector<std::string>{"0"}));
  EXPECT_EQ(sql("SELECT count(*) FROM memberships WHERE tenant_id = " + to_string(t)),
            (std::vector<std::string>{"1"}));
  EXPECT_EQ(sql("SELECT count(*) FROM events WHERE tenant_id = " + to_string(t)),
            (std::vector<std::string>{"0"}));
}

TEST(TeamMembersTest, InviteIsAdminOnly) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Admins add"));
  TestUser member = add_user(admin, t, "MEMBER");
  std::string email = unique("blocked") + "@test.local";
  HttpResponse r = add(member.token, t, R"({"email":")" + email + R"(","role":"ADMIN"})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"error":"This action requires the ADMIN role"})");
  EXPECT_EQ(add(member.token, t, "garbage").status, 403);  // role before body
  EXPECT_EQ(sql("SELECT count(*) FROM invitations WHERE tenant_id = " + to_string(t) +
                " AND email = '" + email + "'"),
            (std::vector<std::string>{"0"}));
  HttpResponse missing = add(admin, 9223372036854775807, R"({"email":"a@b.c","role":"MEMBER"})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"Tenant not found"})");
  EXPECT_TRUE(is_unauthenticated(add("", t, R"({"email":"a@b.c","role":"MEMBER"})")));
}

// An ADMIN demoted while inviting: the invite waits for the demotion (which
// holds the tenant's member turn, as role changes do: a row of cap_locks,
// sql/064), asks again, and is refused; nothing is written.
TEST(TeamMembersTest, AnAdminDemotedDuringAnInviteIsRefused) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Demoted adder"));
  TestUser adder = add_user(admin, t, "ADMIN");
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "INSERT INTO cap_locks (tenant_id, collection) VALUES (" +
                                      to_string(t) +
                                      ", 'members') ON CONFLICT (tenant_id, collection) "
                                      "DO UPDATE SET collection = cap_locks.collection"));
  ASSERT_TRUE(exec_ok(conn.get(), "UPDATE memberships SET role = 'MEMBER' WHERE tenant_id = " +
                                      to_string(t) + " AND user_id = " + to_string(adder.id)));
  std::string email = unique("late") + "@test.local";
  std::future<HttpResponse> added = std::async(std::launch::async, [&] {
    return add(adder.token, t, R"({"email":")" + email + R"(","role":"ADMIN"})");
  });
  bool waiting = wait_for_lock_wait("%FROM ca_invitation_create(%");
  // EXPECT, not ASSERT: the add must be waited for before `conn` goes away.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the invite never waited for the demotion";
  HttpResponse r = added.get();
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"error":"This action requires the ADMIN role"})");
  EXPECT_EQ(sql("SELECT count(*) FROM invitations WHERE tenant_id = " + to_string(t) +
                " AND email = '" + email + "'"),
            (std::vector<std::string>{"0"}));
}

// --- role update --------------------------------------------------------------------------

TEST(TeamMembersTest, PromoteAndDemote) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Roles"));
  TestUser u = add_user(admin, t, "MEMBER");

  HttpResponse up = set_role(admin, t, u.id, "ADMIN");
  ASSERT_EQ(up.status, 200) << up.body;
  EXPECT_EQ(up.body, member_body("Role updated", t, u.id, "ADMIN", "Test User", u.email));
  EXPECT_EQ(sql("SELECT role FROM memberships WHERE tenant_id = " + to_string(t) +
                " AND user_id = " + to_string(u.id)),
            (std::vector<std::string>{"ADMIN"}));

  HttpResponse down = set_role(admin, t, u.id, "MEMBER");
  ASSERT_EQ(down.status, 200) << down.body;
  EXPECT_EQ(down.body, member_body("Role updated", t, u.id, "MEMBER", "Test User", u.email));

  // Setting the role a member already has is a no-op success: the same body,
  // and nothing written (no event, the membership untouched).
  std::string state =
      "SELECT m.role || ' ' || m.updated_at || ' ' || "
      "(SELECT count(*) FROM events e WHERE e.tenant_id = m.tenant_id) "
      "FROM memberships m WHERE m.tenant_id = " +
      to_string(t) + " AND m.user_id = " + to_string(u.id);
  std::vector<std::string> before = sql(state);
  for (int i = 0; i < 2; ++i) {
    HttpResponse same = set_role(admin, t, u.id, "MEMBER");
    EXPECT_EQ(same.status, 200) << same.body;
    EXPECT_EQ(same.body, member_body("Role updated", t, u.id, "MEMBER", "Test User", u.email));
  }
  EXPECT_EQ(sql(state), before);
}

TEST(TeamMembersTest, RoleUpdateValidation) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Role validation"));
  TestUser u = add_user(admin, t, "MEMBER");
  const std::string required = invalid(R"({"role":["The role field is required."]})");
  const std::string invalid_role = invalid(R"({"role":["The selected role is invalid."]})");
  struct Case {
    const char* body;
    const std::string& expected;
  };
  for (const Case& c : std::vector<Case>{{"{}", required},
                                         {R"({"role":null})", required},
                                         {R"({"role":""})", required},
                                         {R"({"role":"OWNER"})", invalid_role},
                                         {R"({"role":"admin"})", invalid_role},
                                         {R"({"role":"ADMIN "})", invalid_role}}) {
    HttpResponse r = http("POST", member_path(t, u.id), {.token = admin, .body = c.body});
    EXPECT_EQ(r.status, 422) << c.body;
    EXPECT_TRUE(json_eq(r.json.get(), c.expected)) << c.body;
  }
  HttpResponse number =
      http("POST", member_path(t, u.id), {.token = admin, .body = R"({"role":1})"});
  EXPECT_EQ(number.status, 422);
  EXPECT_TRUE(
      json_eq(number.json.get(), invalid(R"({"role":["The role field must be a string."]})")));
  HttpResponse not_object = http("POST", member_path(t, u.id), {.token = admin, .body = "[]"});
  EXPECT_EQ(not_object.status, 400);
  EXPECT_EQ(not_object.body, R"({"error":"Request body must be a JSON object"})");
  // Validation comes before existence: an invalid role for a missing user is 422.
  EXPECT_EQ(set_role(admin, t, 9223372036854775807, "KING").status, 422);
}

TEST(TeamMembersTest, RoleUpdateOfUnknownUserIs404AndOfNonMemberIs400) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Role targets"));
  TestUser elsewhere = add_user(admin, create_tenant(admin, unique("Elsewhere")), "MEMBER");

  HttpResponse missing = set_role(admin, t, 9223372036854775807, "ADMIN");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"User not found"})");

  HttpResponse not_member = set_role(admin, t, elsewhere.id, "ADMIN");
  EXPECT_EQ(not_member.status, 400);
  EXPECT_EQ(not_member.body, R"({"error":"The user is not a member of this tenant"})");
  EXPECT_EQ(sql("SELECT count(*) FROM memberships WHERE tenant_id = " + to_string(t) +
                " AND user_id = " + to_string(elsewhere.id)),
            (std::vector<std::string>{"0"}));
}

TEST(TeamMembersTest, RoleUpdateAndRemovalAreAdminOnly) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Member powers"));
  TestUser m1 = add_user(admin, t, "MEMBER");
  TestUser m2 = add_user(admin, t, "MEMBER");
  int64_t me = token_user_id(admin);
  const char* kNeedsAdmin = R"({"error":"This action requires the ADMIN role"})";

  for (const HttpResponse& r :
       {set_role(m1.token, t, m1.id, "ADMIN"), set_role(m1.token, t, m2.id, "ADMIN"),
        set_role(m1.token, t, me, "MEMBER"), remove(m1.token, t, m2.id), remove(m1.token, t, me),
        http("POST", member_path(t, m2.id), {.token = m1.token, .body = "{}"})}) {
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(r.body, kNeedsAdmin);
  }
  EXPECT_EQ(
      sql("SELECT string_agg(role, ',' ORDER BY user_id) FROM memberships WHERE tenant_id = " +
          to_string(t)),
      (std::vector<std::string>{"ADMIN,MEMBER,MEMBER"}));

  TestUser outsider = add_user(admin, create_tenant(admin, unique("Outsider")), "ADMIN");
  HttpResponse r = remove(outsider.token, t, m1.id);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"error":"You are not a member of this tenant"})");
  HttpResponse missing = remove(admin, 9223372036854775807, m1.id);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"Tenant not found"})");
  EXPECT_TRUE(is_unauthenticated(remove("", t, m1.id)));
  EXPECT_TRUE(is_unauthenticated(set_role("", t, m1.id, "ADMIN")));
}

// --- last admin ----------------------------------------------------------------------------

TEST(TeamMembersTest, TheLastAdminCannotBeDemotedOrRemoved) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Last admin"));
  int64_t me = token_user_id(admin);
  TestUser member = add_user(admin, t, "MEMBER");
  const char* kLastAdmin = R"({"error":"A tenant must keep at least one ADMIN"})";

  HttpResponse demote = set_role(admin, t, me, "MEMBER");
  EXPECT_EQ(demote.status, 400);
  EXPECT_EQ(demote.body, kLastAdmin);
  HttpResponse removal = remove(admin, t, me);
  EXPECT_EQ(removal.status, 400);
  EXPECT_EQ(removal.body, kLastAdmin);
  // Keeping the ADMIN role is fine.
  EXPECT_EQ(set_role(admin, t, me, "ADMIN").status, 200);

  // With a second ADMIN, the first may step down; then the second is the last.
  ASSERT_EQ(set_role(admin, t, member.id, "ADMIN").status, 200);
  HttpResponse step_down = set_role(admin, t, me, "MEMBER");
  ASSERT_EQ(step_down.status, 200) << step_down.body;
  HttpResponse now_last = set_role(member.token, t, member.id, "MEMBER");
  EXPECT_EQ(now_last.status, 400);
  EXPECT_EQ(now_last.body, kLastAdmin);
  HttpResponse remove_last = remove(member.token, t, member.id);
  EXPECT_EQ(remove_last.status, 400);
  EXPECT_EQ(remove_last.body, kLastAdmin);
  EXPECT_EQ(
      sql("SELECT count(*) FROM memberships WHERE role = 'ADMIN' AND tenant_id = " + to_string(t)),
      (std::vector<std::string>{"1"}));
}

TEST(TeamMembersTest, TwoAdminsDemotingOrRemovingEachOtherAtOnceLeaveOneAdmin) {
  std::string admin = admin_token();
  int64_t me = token_user_id(admin);
  for (int round = 0; round < 4; ++round) {
    int64_t t = create_tenant(admin, unique("Race"));
    TestUser other = add_user(admin, t, "ADMIN");
    bool removal = round % 2 == 1;
    auto results = http_concurrent(2, 2, [&](int i) {
      const std::string& token = i == 0 ? admin : other.token;
      int64_t target = i == 0 ? other.id : me;
      return removal ? remove(token, t, target) : set_role(token, t, target, "MEMBER");
    });
    int ok = 0, refused = 0;
    for (const HttpResponse& r : results) {
      if (r.status == 200) ++ok;
      // The loser either finds itself demoted/removed (403) or is the last admin (400).
      if (r.status == 400 || r.status == 403) ++refused;
    }
    EXPECT_EQ(ok, 1) << results[0].body << " / " << results[1].body;
    EXPECT_EQ(refused, 1) << results[0].body << " / " << results[1].body;
    EXPECT_EQ(sql("SELECT count(*) FROM memberships WHERE role = 'ADMIN' AND tenant_id = " +
                  to_string(t)),
              (std::vector<std::string>{"1"}))
        << (removal ? "removal" : "demotion") << " round " << round;
  }
}

TEST(TeamMembersTest, AnAdminMayRemoveThemselvesWhenAnotherAdminRemains) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Self removal"));
  TestUser other_admin = add_user(admin, t, "ADMIN");
  HttpResponse r = remove(admin, t, token_user_id(admin));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"message":"Team member removed"})");
  HttpResponse read = http("GET", "/api/v2/admin/tenants/" + to_string(t), {.token = admin});
  EXPECT_EQ(read.status, 403);
  EXPECT_EQ(
      http("GET", "/api/v2/admin/tenants/" + to_string(t), {.token = other_admin.token}).status,
      200);
}

// --- removal -------------------------------------------------------------------------------

TEST(TeamMembersTest, RemovalKeepsTheAccountAndItsOtherTenants) {
  auto [admin, first, second, u] = member_of_two_tenants("Leaving", "Staying");
  ASSERT_EQ(add(admin, first, R"({"email":")" + u.email + R"(","role":"MEMBER"})").status, 409);
  // The user's current tenant is the one last joined: `second`. Removing
  // the user from it (pointing at the removed tenant) falls back to their
  // newest other membership, `first`.
  HttpResponse r = remove(admin, second, u.id);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"message":"Team member removed"})");

  // The account is active, its token still works, it can log in again.
  EXPECT_EQ(my_tenant_ids(u.token), (std::vector<int64_t>{first}));
  HttpResponse login = login_response(u.email, u.password);
  ASSERT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(json_get_str(login["user"], "is_active").value_or(""), "1");
  EXPECT_EQ(json_get_int(login["user"], "tenant_id"), first);
  HttpResponse gone = http("GET", "/api/v2/admin/tenants/" + to_string(second), {.token = u.token});
  EXPECT_EQ(gone.status, 403);
  EXPECT_EQ(http("GET", "/api/v2/admin/tenants/" + to_string(first), {.token = u.token}).status,
            200);

  // Removing again: the user exists but is no longer a member.
  HttpResponse again = remove(admin, second, u.id);
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.body, R"({"error":"The user is not a member of this tenant"})");

  // Re-adding works, with the existing account, by a new invitation.
  HttpResponse readd = accept_as(u.token, invite_user(admin, second, u.email, "ADMIN").token);
  ASSERT_EQ(readd.status, 201) << readd.body;
  EXPECT_TRUE(json_eq(readd.json.get(), member_body("Invitation accepted", second, u.id, "ADMIN",
                                                    "Test User", u.email)));
  EXPECT_EQ(my_tenant_ids(u.token), (std::vector<int64_t>{first, second}));
}

TEST(TeamMembersTest, RemovingTheOnlyMembershipLeavesNoCurrentTenant) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Only one"));
  TestUser u = add_user(admin, t, "MEMBER");
  ASSERT_EQ(remove(admin, t, u.id).status, 200);
  HttpResponse login = login_response(u.email, u.password);
  ASSERT_EQ(login.status, 200) << login.body;
  EXPECT_TRUE(cJSON_IsNull(json_get(login["user"], "tenant_id"))) << login.body;
  EXPECT_EQ(sql("SELECT count(*) FROM users WHERE id = " + to_string(u.id)),
            (std::vector<std::string>{"1"}));
}

TEST(TeamMembersTest, RemovalOfUnknownUserIs404AndOfNonMemberIs400) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Removal targets"));
  TestUser elsewhere = add_user(admin, create_tenant(admin, unique("Not here")), "MEMBER");
  HttpResponse missing = remove(admin, t, 9223372036854775807);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"User not found"})");
  HttpResponse not_member = remove(admin, t, elsewhere.id);
  EXPECT_EQ(not_member.status, 400);
  EXPECT_EQ(not_member.body, R"({"error":"The user is not a member of this tenant"})");
}

TEST(TeamMembersTest, MembershipChangesApplyToExistingTokensAtOnce) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Live roles"));
  TestUser u = add_user(admin, t, "MEMBER");
  TestUser v = add_user(admin, t, "MEMBER");
  EXPECT_EQ(set_role(u.token, t, v.id, "ADMIN").status, 403);
  ASSERT_EQ(set_role(admin, t, u.id, "ADMIN").status, 200);
  EXPECT_EQ(set_role(u.token, t, v.id, "ADMIN").status, 200);
  ASSERT_EQ(remove(admin, t, u.id).status, 200);
  HttpResponse after = set_role(u.token, t, v.id, "MEMBER");
  EXPECT_EQ(after.status, 403);
  EXPECT_EQ(after.body, R"({"error":"You are not a member of this tenant"})");
}

}  // namespace
}  // namespace ca::test
