// Team invitations (docs/decisions/0238-team-invitations.md, issue 26): the invite answers
// the same whether or not the email has an account; only accepting adds the
// membership, sets users.tenant_id and emits user.registered; a token works
// once, and every token that cannot be accepted gives one and the same error.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <regex>
#include <string>

#include "mailbox.h"
#include "receiver.h"
#include "stack.h"

namespace ca::test {
namespace {

using namespace std::chrono_literals;

const char* kInvalid = R"({"error":"The invitation is invalid, used, revoked or expired"})";
const char* kNeedsAdmin = R"({"error":"This action requires the ADMIN role"})";
const char* kAccept = "/api/v2/admin/invitations/accept";

std::string invitations_path(int64_t tenant) { return members_path(tenant) + "/invitations"; }
std::string invitation_path(int64_t tenant, int64_t id) {
  return invitations_path(tenant) + "/" + to_string(id);
}

HttpResponse invite(const std::string& token, int64_t tenant, const std::string& email,
                    const std::string& role = "MEMBER") {
  return http("POST", members_path(tenant),
              {.token = token,
               .body = R"({"email":)" + json_text(email) + R"(,"role":")" + role + R"("})"});
}
HttpResponse revoke(const std::string& token, int64_t tenant, int64_t id) {
  return http("DELETE", invitation_path(tenant, id), {.token = token});
}
HttpResponse list(const std::string& token, int64_t tenant, const std::string& query = "") {
  return http("GET", invitations_path(tenant) + query, {.token = token});
}

std::string member_body(int64_t tenant, int64_t user, const std::string& role,
                        const std::string& name, const std::string& email) {
  return R"({"message":"Invitation accepted","member":{"tenant_id":)" + to_string(tenant) +
         R"(,"user_id":)" + to_string(user) + R"(,"role":")" + role + R"(","name":)" +
         json_text(name) + R"(,"email":)" + json_text(email) + "}}";
}

std::string count(const std::string& query) { return sql("SELECT count(*) " + query)[0]; }
std::string user_registered_count(int64_t tenant) {
  return count("FROM events WHERE type = 'user.registered' AND tenant_id = " + to_string(tenant));
}
std::string membership_count(int64_t tenant, int64_t user) {
  return count("FROM memberships WHERE tenant_id = " + to_string(tenant) +
               " AND user_id = " + to_string(user));
}
std::string invitation_status(int64_t tenant, int64_t id) {
  return sql("SELECT status FROM invitations WHERE tenant_id = " + to_string(tenant) +
             " AND id = " + to_string(id))[0];
}
// users.tenant_id as login reports it.
int64_t current_tenant(const TestUser& u) {
  HttpResponse r = login_response(u.email, u.password);
  EXPECT_EQ(r.status, 200) << r.body;
  return json_get_int(r["user"], "tenant_id").value_or(-1);
}

// The invite's answer with the parts that differ per call (ids, email,
// times, secret) replaced by placeholders.
std::string shape_of(const HttpResponse& r, int64_t tenant, const std::string& email) {
  std::string s = r.body;
  int64_t id = json_get_int(r["invitation"], "id").value_or(-1);
  s = std::regex_replace(
      s, std::regex("inv_" + to_string(tenant) + "_" + to_string(id) + "_[A-Za-z0-9_-]{43}\""),
      "TOKEN\"");
  s = std::regex_replace(s, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)"), "TIME");
  s = std::regex_replace(s, std::regex("\"id\":" + to_string(id) + ","), "\"id\":ID,");
  size_t at = s.find(email);
  if (at != std::string::npos) s.replace(at, email.size(), "EMAIL");
  return s;
}

// --- invite ------------------------------------------------------------------------------

TEST(InvitationsTest, InviteAnswersTheSameWhetherOrNotTheEmailHasAnAccount) {
  std::string admin = admin_token();
  int64_t home = create_tenant(admin, unique("Home"));
  TestUser existing = add_user(admin, home, "MEMBER");
  int64_t t = create_tenant(admin, unique("Inviting"));
  std::string fresh = unique("fresh") + "@test.local";

  HttpResponse a = invite(admin, t, existing.email);
  HttpResponse b = invite(admin, t, fresh);
  ASSERT_EQ(a.status, 201) << a.body;
  ASSERT_EQ(b.status, 201) << b.body;
  const std::string expected =
      R"({"invitation":{"id":ID,"email":"EMAIL","role":"MEMBER","status":"pending",)"
      R"("expires_at":"TIME","created_at":"TIME"}})";
  EXPECT_EQ(shape_of(a, t, existing.email), expected) << a.body;
  EXPECT_EQ(shape_of(b, t, fresh), expected) << b.body;
  EXPECT_EQ(a.headers["content-type"], b.headers["content-type"]);

  // Seven days by default.
  int64_t id = json_get_int(a["invitation"], "id").value_or(-1);
  EXPECT_EQ(sql("SELECT extract(epoch FROM expires_at - created_at)::bigint FROM invitations "
                "WHERE tenant_id = " +
                to_string(t) + " AND id = " + to_string(id)),
            (std::vector<std::string>{"604800"}));
  // With mail on (the stack's sink) the token went to the invitee's mailbox
  // only; the invitation keeps only the hash of its secret.
  std::string token = invitation_token_of(a, t);
  ASSERT_FALSE(token.empty());
  std::string secret = token.substr(token.size() - 43);
  EXPECT_EQ(sql("SELECT token_hash = sha256(convert_to('" + secret +
                "', 'UTF8')) FROM invitations WHERE tenant_id = " + to_string(t) +
                " AND id = " + to_string(id)),
            (std::vector<std::string>{"t"}));
  EXPECT_EQ(count("FROM invitations i WHERE position('" + secret + "' IN i::text) > 0"), "0");
  // Nothing happened to the existing account, nor was one created.
  EXPECT_EQ(membership_count(t, existing.id), "0");
  EXPECT_EQ(current_tenant(existing), home);
  EXPECT_EQ(count("FROM users WHERE lower(email) = lower('" + fresh + "')"), "0");
  EXPECT_EQ(user_registered_count(t), "0");
}

TEST(InvitationsTest, InvitingAgainReplacesThePendingInvitation) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Reinvite"));
  std::string email = unique("twice") + "@test.local";
  TestInvitation first = invite_user(admin, t, email, "ADMIN");
  TestInvitation second = invite_user(admin, t, email, "MEMBER");
  EXPECT_NE(first.token, second.token);
  EXPECT_EQ(invitation_status(t, first.id), "revoked");
  EXPECT_EQ(invitation_status(t, second.id), "pending");
  // The old token no longer works; the new one does, with its own role.
  HttpResponse old = accept_as_new_account(first.token, "Twice", "password-twice");
  EXPECT_EQ(old.status, 400);
  EXPECT_EQ(old.body, kInvalid);
  HttpResponse r = accept_as_new_account(second.token, "Twice", "password-twice");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json_get_str(r["member"], "role").value_or(""), "MEMBER");
}

// --- accept ------------------------------------------------------------------------------

TEST(InvitationsTest, AcceptingWithTheInviteesBearerAddsTheMembershipAndSetsTheTenant) {
  std::string admin = admin_token();
  int64_t home = create_tenant(admin, unique("Home"));
  TestUser u = add_user(admin, home, "MEMBER");
  int64_t t = create_tenant(admin, unique("Joining"));
  TestInvitation inv = invite_user(admin, t, u.email, "ADMIN");
  // Until accepted: no membership, the current tenant unchanged, no event.
  EXPECT_EQ(membership_count(t, u.id), "0");
  EXPECT_EQ(current_tenant(u), home);
  EXPECT_EQ(user_registered_count(t), "0");
  EXPECT_EQ(http("GET", "/api/v2/admin/tenants/" + to_string(t), {.token = u.token}).status, 403);

  // Name and password are ignored with a bearer token: the account keeps its own.
  HttpResponse r = http(
      "POST", kAccept,
      {.token = u.token,
       .body = R"({"token":")" + inv.token + R"(","name":"Other","password":"other-password"})"});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), member_body(t, u.id, "ADMIN", "Test User", u.email)));
  EXPECT_EQ(membership_count(t, u.id), "1");
  EXPECT_EQ(current_tenant(u), t);
  EXPECT_EQ(login_response(u.email, "other-password").status, 401);
  EXPECT_EQ(http("GET", "/api/v2/admin/tenants/" + to_string(t), {.token = u.token}).status, 200);
  EXPECT_EQ(invitation_status(t, inv.id), "accepted");

  // The event, in the accept's transaction, naming the inviter.
  std::vector<std::string> events =
      sql("SELECT payload::text FROM events WHERE type = 'user.registered' AND tenant_id = " +
          to_string(t));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(json_eq(json_parse(events[0]).get(),
                      R"({"user_id":)" + to_string(u.id) + R"(,"name":"Test User","email":)" +
                          json_text(u.email) + R"(,"role":"ADMIN","invited_by":)" +
                          to_string(token_user_id(admin)) + "}"));

  // The token works once.
  HttpResponse again = accept_as(u.token, inv.token);
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.body, kInvalid);
  EXPECT_EQ(user_registered_count(t), "1");
}

TEST(InvitationsTest, AcceptingWithoutBearerCreatesTheInvitedAccount) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Hiring"));
  std::string email = unique("New.Person") + "@test.local";
  TestInvitation inv = invite_user(admin, t, email, "MEMBER");
  HttpResponse r =
      http("POST", kAccept,
           {.body = R"({"token":")" + inv.token +
                    R"(","name":"  Erika Musterfrau ","password":"s3cure-and-long"})"});
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t user = json_get_int(r["member"], "user_id").value_or(0);
  ASSERT_GT(user, 0);
  EXPECT_TRUE(json_eq(r.json.get(), member_body(t, user, "MEMBER", "Erika Musterfrau", email)));

  HttpResponse login = login_response(email, "s3cure-and-long");
  ASSERT_EQ(login.status, 200) << login.body;
  EXPECT_EQ(json_get_int(login["user"], "id"), user);
  EXPECT_EQ(json_get_int(login["user"], "tenant_id"), t);
  EXPECT_EQ(json_get_str(login["user"], "name").value_or(""), "Erika Musterfrau");
  EXPECT_EQ(json_get_str(login["user"], "email").value_or(""), email);

  std::vector<std::string> events =
      sql("SELECT payload::text FROM events WHERE type = 'user.registered' AND tenant_id = " +
          to_string(t));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(json_eq(json_parse(events[0]).get(), R"({"user_id":)" + to_string(user) +
                                                       R"(,"name":"Erika Musterfrau","email":)" +
                                                       json_text(email) +
                                                       R"(,"role":"MEMBER","invited_by":)" +
                                                       to_string(token_user_id(admin)) + "}"));

  HttpResponse again = accept_as_new_account(inv.token, "Erika", "s3cure-and-long");
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.body, kInvalid);
}

// With mail on, the token reached the invited mailbox only: accepting proves
// the address, so the create path lets an existing account of the email join
// (the same answer as a new account's; its name and password stay) and
// tells its owner by mail, instead of a refusal that would say the email has
// an account (docs/decisions/0098-invitations-by-mail.md).
TEST(InvitationsTest, CreatingAnAccountForAnEmailThatHasOneJoinsItAndMailsItsOwner) {
  std::string admin = admin_token();
  TestUser u = add_user(admin, create_tenant(admin, unique("Home")), "MEMBER");
  int64_t t = create_tenant(admin, unique("Joining"));
  std::string upper;
  for (char c : u.email) upper.push_back(static_cast<char>(std::toupper(c)));
  TestInvitation inv = invite_user(admin, t, upper, "ADMIN");

  HttpResponse r = accept_as_new_account(inv.token, "Mallory", "mallory-password");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), member_body(t, u.id, "ADMIN", "Test User", u.email)));
  EXPECT_EQ(login_response(u.email, "mallory-password").status, 401);
  EXPECT_EQ(login_response(u.email, u.password).status, 200);
  EXPECT_EQ(membership_count(t, u.id), "1");
  EXPECT_EQ(user_registered_count(t), "1");
  EXPECT_EQ(invitation_status(t, inv.id), "accepted");
  std::optional<CapturedMail> told = wait_for_mail(u.email, [](const CapturedMail& m) {
    return m.headers.count("subject") && m.headers.at("subject").rfind("You joined ", 0) == 0;
  });
  ASSERT_TRUE(told);
  EXPECT_NE(told->text.find("your password was not changed"), std::string::npos) << told->text;
  EXPECT_EQ(mail_token(*told), "");
  HttpResponse again = accept_as(u.token, inv.token);
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.body, kInvalid);
}

TEST(InvitationsTest, EveryUnusableTokenGivesTheSameError) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Dead tokens"));
  TestUser invitee = add_user(admin, create_tenant(admin, unique("Home")), "MEMBER");
  TestUser other = add_user(admin, create_tenant(admin, unique("Other")), "MEMBER");

  TestInvitation used = invite_user(admin, t, unique("used") + "@test.local");
  ASSERT_EQ(accept_as_new_account(used.token, "Used", "password-used").status, 201);
  TestInvitation revoked = invite_user(admin, t, unique("revoked") + "@test.local");
  ASSERT_EQ(revoke(admin, t, revoked.id).status, 200);
  TestInvitation expired = invite_user(admin, t, unique("expired") + "@test.local");
  sql("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE tenant_id = " +
      to_string(t) + " AND id = " + to_string(expired.id));
  // Revoked and expired invitations of the invitee's own email, tried below
  // with the invitee's own bearer token too.
  TestInvitation own_revoked = invite_user(admin, t, invitee.email);
  ASSERT_EQ(revoke(admin, t, own_revoked.id).status, 200);
  TestInvitation own_expired = invite_user(admin, t, invitee.email);
  sql("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE tenant_id = " +
      to_string(t) + " AND id = " + to_string(own_expired.id));
  TestInvitation for_invitee = invite_user(admin, t, invitee.email);
  std::string unknown_secret = used.token.substr(used.token.size() - 43);
  unknown_secret[0] = unknown_secret[0] == 'A' ? 'B' : 'A';
  const std::vector<std::pair<std::string, std::string>> tokens{
      {"used", used.token},
      {"revoked", revoked.token},
      {"expired", expired.token},
      {"own revoked", own_revoked.token},
      {"own expired", own_expired.token},
      {"wrong secret",
       "inv_" + to_string(t) + "_" + to_string(for_invitee.id) + "_" + unknown_secret},
      {"unknown id", "inv_" + to_string(t) + "_9223372036854775807_" + unknown_secret},
      {"unknown tenant",
       "inv_9223372036854775807_" + to_string(for_invitee.id) + "_" + unknown_secret},
      {"malformed", "not-a-token"},
      {"empty-ish", "inv_"},
  };
  for (const auto& [what, token] : tokens) {
    HttpResponse as_account = accept_as(invitee.token, token);
    EXPECT_EQ(as_account.status, 400) << what;
    EXPECT_EQ(as_account.body, kInvalid) << what;
    HttpResponse as_new = accept_as_new_account(token, "Someone", "password-someone");
    EXPECT_EQ(as_new.status, 400) << what;
    EXPECT_EQ(as_new.body, kInvalid) << what;
  }
  // Another account's bearer token on a good invitation: the same error,
  // and the invitation stays usable for the invitee.
  HttpResponse wrong = accept_as(other.token, for_invitee.token);
  EXPECT_EQ(wrong.status, 400);
  EXPECT_EQ(wrong.body, kInvalid);
  EXPECT_EQ(membership_count(t, other.id), "0");
  EXPECT_EQ(invitation_status(t, for_invitee.id), "pending");
  // The expired one shows as such, and nothing was added by any of it.
  EXPECT_EQ(count("FROM memberships WHERE tenant_id = " + to_string(t)), "2");  // admin + used
  EXPECT_EQ(user_registered_count(t), "1");
  EXPECT_EQ(accept_as(invitee.token, for_invitee.token).status, 201);
}

TEST(InvitationsTest, AcceptChecksItsInput) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Accept input"));
  TestUser u = add_user(admin, create_tenant(admin, unique("Home")), "MEMBER");
  TestInvitation inv = invite_user(admin, t, unique("input") + "@test.local");
  auto invalid = [](const std::string& errors) {
    return R"({"message":"The given data was invalid.","errors":)" + errors + "}";
  };
  struct Case {
    std::string body;
    std::string errors;
  };
  const std::string tok = R"("token":")" + inv.token + R"(")";
  for (const Case& c : std::vector<Case>{
           {"{}",
            R"({"token":["The token field is required."],"name":["The name field is required."],
                      "password":["The password field is required."]})"},
           {"{" + tok + R"(,"name":"   ","password":"password1"})",
            R"({"name":["The name field is required."]})"},
           {"{" + tok + R"(,"name":")" + repeat("n", 256) + R"(","password":"password1"})",
            R"({"name":["The name field must not be greater than 255 characters."]})"},
           {"{" + tok + R"(,"name":"N","password":"short"})",
            R"({"password":["The password field must be at least 8 characters."]})"},
           {"{" + tok + R"(,"name":"N","password":")" + repeat("p", 1025) + R"("})",
            R"({"password":["The password field must not be greater than 1024 characters."]})"},
           {R"({"token":5,"name":"N","password":"password1"})",
            R"({"token":["The token field must be a string."]})"},
       }) {
    HttpResponse r = http("POST", kAccept, {.body = c.body});
    EXPECT_EQ(r.status, 422) << c.body;
    EXPECT_TRUE(json_eq(r.json.get(), invalid(c.errors))) << c.body << " -> " << r.body;
  }
  // With a bearer token only the token is needed.
  HttpResponse bearer_empty = http("POST", kAccept, {.token = u.token, .body = "{}"});
  EXPECT_EQ(bearer_empty.status, 422);
  EXPECT_TRUE(
      json_eq(bearer_empty.json.get(), invalid(R"({"token":["The token field is required."]})")));
  HttpResponse not_object = http("POST", kAccept, {.body = "[]"});
  EXPECT_EQ(not_object.status, 400);
  EXPECT_EQ(not_object.body, R"({"error":"Request body must be a JSON object"})");
  // A bearer token that is not a live session is a 401, before anything else.
  EXPECT_TRUE(is_unauthenticated(accept_as("garbage", inv.token)));
  ASSERT_EQ(http("POST", "/api/v2/admin/logout", {.token = u.token}).status, 200);
  EXPECT_TRUE(is_unauthenticated(accept_as(u.token, inv.token)));
  EXPECT_EQ(invitation_status(t, inv.id), "pending");
  // GET is not a route.
  HttpResponse get = http("GET", kAccept);
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.headers["allow"], "POST");
}

// Two accepts of one token at once: one adds, the other gets the bad-token
// error; one membership, one event (the claim is a conditional UPDATE).
TEST(InvitationsTest, ConcurrentAcceptsOfOneTokenAddOnce) {
  std::string admin = admin_token();
  TestUser u = add_user(admin, create_tenant(admin, unique("Home")), "MEMBER");
  for (int round = 0; round < 4; ++round) {
    int64_t t = create_tenant(admin, unique("Race"));
    bool create = round % 2 == 1;
    std::string email = create ? unique("racer") + "@test.local" : u.email;
    TestInvitation inv = invite_user(admin, t, email);
    auto results = http_concurrent(2, 2, [&](int i) {
      return create
                 ? accept_as_new_account(inv.token, "Racer " + std::to_string(i), "password-racer")
                 : accept_as(u.token, inv.token);
    });
    int ok = 0, refused = 0;
    for (const HttpResponse& r : results) {
      if (r.status == 201) ++ok;
      if (r.status == 400 && r.body == kInvalid) ++refused;
    }
    EXPECT_EQ(ok, 1) << results[0].body << " / " << results[1].body;
    EXPECT_EQ(refused, 1) << results[0].body << " / " << results[1].body;
    EXPECT_EQ(count("FROM memberships WHERE tenant_id = " + to_string(t)), "2");
    EXPECT_EQ(user_registered_count(t), "1");
    EXPECT_EQ(count("FROM users WHERE lower(email) = lower('" + email + "')"), "1");
  }
}

// --- list and revoke ---------------------------------------------------------------------

TEST(InvitationsTest, ListShowsEveryStatusNewestFirstAndPaginates) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Listing"));
  TestInvitation accepted = invite_user(admin, t, unique("a") + "@test.local", "ADMIN");
  ASSERT_EQ(accept_as_new_account(accepted.token, "A", "password-a").status, 201);
  TestInvitation revoked = invite_user(admin, t, unique("r") + "@test.local");
  ASSERT_EQ(revoke(admin, t, revoked.id).status, 200);
  TestInvitation expired = invite_user(admin, t, unique("e") + "@test.local");
  sql("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE tenant_id = " +
      to_string(t) + " AND id = " + to_string(expired.id));
  std::string pending_email = unique("p") + "@test.local";
  TestInvitation pending = invite_user(admin, t, pending_email);

  HttpResponse r = list(admin, t);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_keys(r.json.get()),
            (std::vector<std::string>{"current_page", "data", "last_page", "per_page", "total"}));
  EXPECT_EQ(r.integer("total"), 4);
  EXPECT_EQ(r.integer("per_page"), 15);
  ASSERT_EQ(cJSON_GetArraySize(r["data"]), 4);
  std::vector<std::pair<int64_t, std::string>> seen;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, r["data"]) {
    seen.emplace_back(json_get_int(item, "id").value_or(-1),
                      std::string(json_get_str(item, "status").value_or("")));
  }
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, std::string>>{{pending.id, "pending"},
                                                                {expired.id, "expired"},
                                                                {revoked.id, "revoked"},
                                                                {accepted.id, "accepted"}}));
  const cJSON* first = cJSON_GetArrayItem(r["data"], 0);
  EXPECT_EQ(json_keys(first), (std::vector<std::string>{"created_at", "email", "expires_at", "id",
                                                        "role", "status"}));
  EXPECT_EQ(json_get_str(first, "email").value_or(""), pending_email);
  EXPECT_EQ(json_get_str(first, "role").value_or(""), "MEMBER");
  EXPECT_TRUE(is_timestamp(json_get(first, "expires_at")));
  EXPECT_TRUE(is_timestamp(json_get(first, "created_at")));
  EXPECT_EQ(r.body.find("token"), std::string::npos);

  HttpResponse p2 = list(admin, t, "?page=2&per_page=3");
  ASSERT_EQ(p2.status, 200) << p2.body;
  ASSERT_EQ(cJSON_GetArraySize(p2["data"]), 1);
  EXPECT_EQ(json_get_int(cJSON_GetArrayItem(p2["data"], 0), "id"), accepted.id);
  EXPECT_EQ(p2.integer("last_page"), 2);
  HttpResponse past = list(admin, t, "?page=9&per_page=3");
  EXPECT_TRUE(json_eq(past.json.get(),
                      R"({"data":[],"current_page":9,"last_page":2,"per_page":3,"total":4})"));
  HttpResponse bad = list(admin, t, "?page=0");
  EXPECT_EQ(bad.status, 422);
}

TEST(InvitationsTest, RevokeIsForThisTenantsInvitationsOnly) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Revoking"));
  int64_t other = create_tenant(admin, unique("Other"));
  TestInvitation inv = invite_user(admin, t, unique("rv") + "@test.local", "ADMIN");

  // Another tenant's id, through a tenant the caller administers: 404.
  HttpResponse foreign = revoke(admin, other, inv.id);
  EXPECT_EQ(foreign.status, 404);
  EXPECT_EQ(foreign.body, R"({"error":"Invitation not found"})");
  EXPECT_EQ(revoke(admin, t, 9223372036854775807).status, 404);
  EXPECT_EQ(invitation_status(t, inv.id), "pending");

  HttpResponse r = revoke(admin, t, inv.id);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_get_str(r.json.get(), "message").value_or(""), "Invitation revoked");
  EXPECT_EQ(json_get_int(r["invitation"], "id"), inv.id);
  EXPECT_EQ(json_get_str(r["invitation"], "status").value_or(""), "revoked");
  EXPECT_EQ(json_get_str(r["invitation"], "role").value_or(""), "ADMIN");
  // Again: the same answer, nothing changes.
  HttpResponse again = revoke(admin, t, inv.id);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, r.body);
  EXPECT_EQ(accept_as_new_account(inv.token, "Late", "password-late").body, kInvalid);

  // An accepted invitation is a membership: removal ends it, not revocation.
  TestInvitation taken = invite_user(admin, t, unique("taken") + "@test.local");
  ASSERT_EQ(accept_as_new_account(taken.token, "Taken", "password-taken").status, 201);
  HttpResponse late = revoke(admin, t, taken.id);
  EXPECT_EQ(late.status, 400);
  EXPECT_EQ(late.body,
            R"({"error":"The invitation has been accepted; remove the member instead"})");
  EXPECT_EQ(invitation_status(t, taken.id), "accepted");
}

TEST(InvitationsTest, InviteListAndRevokeAreAdminOnly) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Admins only"));
  TestUser member = add_user(admin, t, "MEMBER");
  TestUser outsider = add_user(admin, create_tenant(admin, unique("Outside")), "ADMIN");
  TestInvitation inv = invite_user(admin, t, unique("x") + "@test.local");

  for (const HttpResponse& r : {invite(member.token, t, unique("m") + "@test.local"),
                                list(member.token, t), revoke(member.token, t, inv.id)}) {
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(r.body, kNeedsAdmin);
  }
  for (const HttpResponse& r : {invite(outsider.token, t, unique("o") + "@test.local"),
                                list(outsider.token, t), revoke(outsider.token, t, inv.id)}) {
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(r.body, R"({"error":"You are not a member of this tenant"})");
  }
  EXPECT_TRUE(is_unauthenticated(list("", t)));
  EXPECT_TRUE(is_unauthenticated(revoke("", t, inv.id)));
  EXPECT_EQ(list(admin, 9223372036854775807).status, 404);
  EXPECT_EQ(invitation_status(t, inv.id), "pending");
  EXPECT_EQ(count("FROM invitations WHERE tenant_id = " + to_string(t)), "2");
}

// --- events and the current tenant -------------------------------------------------------

TEST(InvitationsTest, UserRegisteredIsDeliveredOnAcceptNotOnInvite) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Hooked"));
  Receiver receiver;
  HttpResponse hook =
      http("POST", "/api/v2/admin/webhooks/" + to_string(t),
           {.token = admin,
            .body = R"({"url":")" + receiver.url() + R"(","events":["user.registered"]})"});
  ASSERT_EQ(hook.status, 201) << hook.body;
  std::string email = unique("hooked") + "@test.local";
  TestInvitation inv = invite_user(admin, t, email, "MEMBER");
  // No event, and a whole worker pass begun after the invite sends nothing.
  EXPECT_EQ(count("FROM events WHERE tenant_id = " + to_string(t)), "0");
  ASSERT_TRUE(run_worker_once());
  EXPECT_EQ(receiver.requests().size(), 0u) << "the invite emitted something";
  EXPECT_EQ(count("FROM webhook_deliveries WHERE tenant_id = " + to_string(t)), "0");

  HttpResponse r = accept_as_new_account(inv.token, "Hooked", "password-hooked");
  ASSERT_EQ(r.status, 201) << r.body;
  ASSERT_TRUE(receiver.wait_for(1, 30s)) << "no delivery after the accept";
  std::vector<ReceivedRequest> got = receiver.requests();
  ASSERT_EQ(got.size(), 1u);
  Json body = json_parse(got[0].body);
  EXPECT_EQ(json_get_str(body.get(), "event").value_or(""), "user.registered");
  const cJSON* data = json_get(body.get(), "data");
  EXPECT_EQ(json_get_str(data, "email").value_or(""), email);
  EXPECT_EQ(json_get_int(data, "user_id"), json_get_int(r["member"], "user_id"));
  EXPECT_EQ(json_get_int(data, "invited_by"), token_user_id(admin));
}

// Removal changes the removed user's current tenant only when it was the
// removed tenant; another tenant's admin cannot move it otherwise.
TEST(InvitationsTest, OnlyTheUsersOwnActsChangeTheirCurrentTenant) {
  auto [admin, first, second, u] = member_of_two_tenants("First", "Second");
  ASSERT_EQ(current_tenant(u), second);
  // An invitation to a third tenant, and removal from a tenant that is not
  // the current one, leave it.
  int64_t third = create_tenant(admin, unique("Third"));
  TestInvitation pending = invite_user(admin, third, u.email);
  ASSERT_EQ(http("DELETE", members_path(first) + "/" + to_string(u.id), {.token = admin}).status,
            200);
  EXPECT_EQ(current_tenant(u), second);
  // Accepting moves it.
  ASSERT_EQ(accept_as(u.token, pending.token).status, 201);
  EXPECT_EQ(current_tenant(u), third);
}

// --- configuration -----------------------------------------------------------------------

// INVITATION_TTL_SECONDS is read at start-up like every setting: a bad value
// stops the handler with one line naming it (exit 2); a good one gets as far
// as the socket.
TEST(InvitationsConfig, ABadInvitationTtlStopsTheHandlerWithOneLine) {
  const std::string handler = "commerce-admin-team-members";
  auto start = [&](const std::string& ttl) {
    Outcome r = run_with_stack_env(handler, {{"INVITATION_TTL_SECONDS", ttl}});
    return std::pair<int, std::string>{r.status, r.err};
  };
  for (const char* bad : {"abc", "59", "31622401", "-1", "7d"}) {
    auto [status, err] = start(bad);
    EXPECT_EQ(status, 2) << bad;
    EXPECT_EQ(err, handler +
                       ": INVITATION_TTL_SECONDS must be an integer from 60 to 31622400, got '" +
                       bad + "'\n");
  }
  auto [status, err] = start("120");
  EXPECT_EQ(status, 2);
  EXPECT_EQ(err, handler +
                     ": fd 0 is not a listening socket; start it with spawn-fcgi or systemd "
                     "socket activation, or pass --socket PATH\n");
}

// --- nginx -------------------------------------------------------------------------------

// Accepting is limited per client address like login (it may hash a
// password). From an address of its own, so other tests keep their budget.
TEST(ZzInvitationRateLimit, AcceptStormFromOneAddressGets429) {
  const std::string storm_ip = "127.0.0.3";
  expect_storm_limited(
      [&](int) {
        return http("POST", kAccept, {.body = R"({"token":"inv_1_1_x"})", .source_ip = storm_ip});
      },
      422);  // no name or password
  // Logins from that address have their own budget.
  Json login = json_object();
  json_add_str(login.get(), "email", admin_email());
  json_add_str(login.get(), "password", admin_password());
  EXPECT_EQ(
      http("POST", "/api/v2/admin/login", {.body = json_dump(login.get()), .source_ip = storm_ip})
          .status,
      200);
}

}  // namespace
}  // namespace ca::test
