// Caps on the collections a user or a tenant grows (issue 42; docs/security.md,
// "Resource limits"; docs/decisions/0030-caps-on-what-users-and-tenants-grow.md,
// 0031-idempotency-keys-cap.md): tenants a user created, pending invitations
// of a tenant, a user's addresses, a user's idempotency keys of the last 24
// hours in one tenant. At the cap the next create is 422 with one field
// error under "limit" and writes nothing; two creates at once never both
// take the last slot.
//
// Each test has users of its own. The rows below the cap are written with
// SQL (as many as the stack's setting allows, minus one or two), so that the
// tests run at any cap, the defaults included, in a few requests; every
// answer asserted comes through nginx from the handlers.
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mailbox.h"
#include "stack.h"

namespace ca::test {
namespace {

const std::string kTenants = "/api/v2/admin/tenants";
const std::string kAddresses = "/api/v2/admin/addresses";

// The stack's value of a cap (scripts/test may set one), or its default.
int64_t cap(const std::string& setting, int64_t fallback) {
  std::optional<std::string> v = stack_env(setting);
  return v ? std::stoll(*v) : fallback;
}

std::string limit_body(int64_t max, const std::string& what, const std::string& setting) {
  return R"({"message":"The given data was invalid.","errors":{"limit":["The limit of )" +
         to_string(max) + " " + what + " is reached (" + setting + ").\"]}}";
}

std::string count(const std::string& query) {
  auto rows = sql(query);
  return rows.empty() ? "<no row>" : rows[0];
}

std::string tenant_body(const std::string& name) { return R"({"name":)" + json_text(name) + "}"; }

std::string address_body(const std::string& street) {
  return R"({"street":)" + json_text(street) +
         R"(,"city":"Berlin","country":"DE","postal_code":"10115"})";
}

// A user of their own: a MEMBER of a tenant of the seeded admin, creator of nothing.
TestUser fresh_user(const std::string& admin) {
  return add_user(admin, create_tenant(admin, unique("caps-home")));
}

// --- tenants per user ----------------------------------------------------------------

std::string tenants_created_by(const TestUser& u) {
  return count("SELECT count(*) FROM tenants WHERE created_by = " + to_string(u.id));
}

// `n` tenants recorded as created by `u` (no members: only the count matters).
void prefill_tenants(const TestUser& u, int64_t n) {
  sql("INSERT INTO tenants (name, created_by) SELECT 'caps prefill', " + to_string(u.id) +
      " FROM generate_series(1, " + to_string(n) + ")");
}

TEST(Caps, TenantsOneUserCreatedStopAtTheCap) {
  const int64_t max = cap("TENANTS_MAX_PER_USER", 20);
  std::string admin = admin_token();
  TestUser u = fresh_user(admin);
  // Tenants the user joined do not count: only those they created.
  ASSERT_EQ(tenants_created_by(u), "0");
  prefill_tenants(u, max - 1);

  HttpResponse last = http("POST", kTenants, {.token = u.token, .body = tenant_body("Last one")});
  ASSERT_EQ(last.status, 201) << last.body;
  const int64_t last_id = last.integer("id");
  EXPECT_EQ(tenants_created_by(u), to_string(max));

  const std::string name = unique("over the cap");
  HttpResponse over = http("POST", kTenants, {.token = u.token, .body = tenant_body(name)});
  expect_body(over, 422, limit_body(max, "tenants created per user", "TENANTS_MAX_PER_USER"));
  // Nothing written: no tenant, no membership, the current tenant unchanged.
  EXPECT_EQ(count("SELECT count(*) FROM tenants WHERE name = '" + name + "'"), "0");
  EXPECT_EQ(tenants_created_by(u), to_string(max));
  EXPECT_EQ(count("SELECT count(*) FROM memberships WHERE user_id = " + to_string(u.id) +
                  " AND role = 'ADMIN'"),
            "1");
  EXPECT_EQ(count("SELECT tenant_id FROM users WHERE id = " + to_string(u.id)), to_string(last_id));
  // With an Idempotency-Key the same answer, and no key kept.
  HttpResponse keyed = http("POST", kTenants,
                            {.token = u.token,
                             .body = tenant_body(name),
                             .headers = {"Idempotency-Key: " + unique("caps-tenant")}});
  expect_body(keyed, 422, limit_body(max, "tenants created per user", "TENANTS_MAX_PER_USER"));
  EXPECT_EQ(count("SELECT count(*) FROM idempotency_keys WHERE user_id = " + to_string(u.id)), "0");

  // Another user is not held by this one's cap.
  TestUser other = fresh_user(admin);
  HttpResponse theirs =
      http("POST", kTenants, {.token = other.token, .body = tenant_body("Their own")});
  EXPECT_EQ(theirs.status, 201) << theirs.body;
}

// Creates at once for the last slot: the creator's row is locked before the
// count, so exactly one gets it.
TEST(Caps, ConcurrentTenantCreatesTakeTheLastSlotOnce) {
  const int64_t max = cap("TENANTS_MAX_PER_USER", 20);
  TestUser u = fresh_user(admin_token());
  prefill_tenants(u, max - 1);

  auto results = http_concurrent(8, 8, [&](int i) {
    return http("POST", kTenants, {.token = u.token, .body = tenant_body("Race " + to_string(i))});
  });
  int created = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 201) {
      ++created;
    } else {
      expect_body(r, 422, limit_body(max, "tenants created per user", "TENANTS_MAX_PER_USER"));
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(tenants_created_by(u), to_string(max));
}

// Creates of different users at once do not wait for each other's turn,
// and none is a deadlock's victim (on Citus, each create writes two
// reference tables, tenants and users: decision 0070).
TEST(Caps, ConcurrentTenantCreatesOfManyUsersAllSucceed) {
  std::string admin = admin_token();
  std::vector<TestUser> users;
  for (int i = 0; i < 8; ++i) users.push_back(fresh_user(admin));
  auto results = http_concurrent(8, 8, [&](int i) {
    return http("POST", kTenants, {.token = users[i].token, .body = tenant_body("Many")});
  });
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, 201) << i << " " << results[i].body;
    EXPECT_EQ(tenants_created_by(users[i]), "1");
  }
}

// A tenant create waits for the user's other create and then counts its
// tenant. The test's transaction plays the other create: it takes the
// user's turn (common/user_turn.h) and writes the last tenant the user
// created, which the waiting create cannot see until it commits.
TEST(Caps, ATenantCreateWaitsForTheUsersOtherCreateAndCountsItsTenant) {
  const int64_t max = cap("TENANTS_MAX_PER_USER", 20);
  TestUser u = fresh_user(admin_token());
  prefill_tenants(u, max - 1);
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT pg_advisory_xact_lock(6001, (" + to_string(u.id) +
                                      "::bigint & 2147483647)::int)"));
  ASSERT_TRUE(exec_ok(conn.get(), "INSERT INTO tenants (name, created_by) VALUES ('caps last', " +
                                      to_string(u.id) + ")"));
  const std::string name = unique("racing");
  std::future<HttpResponse> racing = std::async(std::launch::async, [&] {
    return http("POST", kTenants, {.token = u.token, .body = tenant_body(name)});
  });
  bool waiting = wait_for_lock_wait("SELECT pg_advisory_xact_lock(6001%");
  // EXPECT, not ASSERT: the create must be waited for before `conn` goes.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the create did not wait for the user's other create";
  expect_body(racing.get(), 422,
              limit_body(max, "tenants created per user", "TENANTS_MAX_PER_USER"));
  EXPECT_EQ(tenants_created_by(u), to_string(max));
  EXPECT_EQ(count("SELECT count(*) FROM tenants WHERE name = '" + name + "'"), "0");
}

// --- pending invitations per tenant ------------------------------------------------------

std::string invite_path(int64_t tenant) {
  return "/api/v2/admin/team-members/" + to_string(tenant);
}

HttpResponse invite(const Scope& s, const std::string& email) {
  return http(
      "POST", invite_path(s.tenant),
      {.token = s.token, .body = R"({"email":)" + json_text(email) + R"(,"role":"MEMBER"})"});
}

std::string live_pending(const Scope& s) {
  return count("SELECT count(*) FROM invitations WHERE tenant_id = " + s.tid() +
               " AND status = 'pending' AND expires_at > now()");
}

// `n` live pending invitations of the tenant, and one of each kind that
// does not count: expired, revoked, accepted.
void prefill_invitations(const Scope& s, int64_t n) {
  const std::string admin_id = to_string(token_user_id(s.token));
  const std::string prefix = unique("prefill");
  auto insert = [&](const std::string& what, int64_t rows, const std::string& status,
                    const std::string& expires, const std::string& accepted,
                    const std::string& revoked) {
    sql("INSERT INTO invitations (tenant_id, email, role, token_hash, invited_by, expires_at, "
        "status, accepted_at, revoked_at) SELECT " +
        s.tid() + ", '" + prefix + what + "-' || i || '@test.local', 'MEMBER', sha256(('" + prefix +
        what + "' || i)::bytea), " + admin_id + ", " + expires + ", '" + status + "', " + accepted +
        ", " + revoked + " FROM generate_series(1, " + to_string(rows) + ") i");
  };
  insert("live", n, "pending", "now() + interval '1 day'", "NULL", "NULL");
  insert("expired", 1, "pending", "now() - interval '1 second'", "NULL", "NULL");
  insert("revoked", 1, "revoked", "now() + interval '1 day'", "NULL", "now()");
  insert("accepted", 1, "accepted", "now() + interval '1 day'", "now()", "NULL");
}

TEST(Caps, PendingInvitationsStopAtTheCapUntilOneIsRevokedAcceptedOrExpires) {
  const int64_t max = cap("INVITATIONS_MAX_PENDING_PER_TENANT", 100);
  const std::string over_body =
      limit_body(max, "pending invitations per tenant", "INVITATIONS_MAX_PENDING_PER_TENANT");
  Scope s = fresh_scope(admin_token());
  prefill_invitations(s, max - 2);

  const std::string a = unique("cap-a") + "@test.local";
  const std::string b = unique("cap-b") + "@test.local";
  const std::string c = unique("cap-c") + "@test.local";
  HttpResponse to_a = invite(s, a);
  ASSERT_EQ(to_a.status, 201) << to_a.body;
  HttpResponse to_b = invite(s, b);
  ASSERT_EQ(to_b.status, 201) << to_b.body;
  ASSERT_EQ(live_pending(s), to_string(max));

  expect_body(invite(s, c), 422, over_body);
  EXPECT_EQ(count("SELECT count(*) FROM invitations WHERE email = '" + c + "'"), "0");
  EXPECT_EQ(live_pending(s), to_string(max));
  // Inviting a pending email again replaces its invitation: no new slot needed.
  HttpResponse again = invite(s, b);
  ASSERT_EQ(again.status, 201) << again.body;
  const std::string b_token = invitation_token_of(again, s.tenant);
  EXPECT_EQ(live_pending(s), to_string(max));

  // A revoked invitation frees its slot.
  const int64_t a_id = json_get_int(to_a["invitation"], "id").value_or(-1);
  HttpResponse revoked =
      http("DELETE", invite_path(s.tenant) + "/invitations/" + to_string(a_id), {.token = s.token});
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  HttpResponse to_c = invite(s, c);
  ASSERT_EQ(to_c.status, 201) << to_c.body;
  expect_body(invite(s, unique("cap-d") + "@test.local"), 422, over_body);

  // So does an accepted one.
  HttpResponse accepted = accept_as_new_account(b_token, "Capped", "password-" + unique("pw"));
  ASSERT_EQ(accepted.status, 201) << accepted.body;
  HttpResponse to_d = invite(s, unique("cap-d") + "@test.local");
  ASSERT_EQ(to_d.status, 201) << to_d.body;
  expect_body(invite(s, unique("cap-e") + "@test.local"), 422, over_body);

  // And one that expires.
  sql("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE tenant_id = " +
      s.tid() + " AND email = '" + c + "'");
  HttpResponse to_e = invite(s, unique("cap-e") + "@test.local");
  EXPECT_EQ(to_e.status, 201) << to_e.body;
  EXPECT_EQ(live_pending(s), to_string(max));
}

// Invites at once for the last slot: the tenant row is locked before the
// count, so exactly one gets it.
TEST(Caps, ConcurrentInvitesTakeTheLastSlotOnce) {
  const int64_t max = cap("INVITATIONS_MAX_PENDING_PER_TENANT", 100);
  Scope s = fresh_scope(admin_token());
  prefill_invitations(s, max - 1);

  const std::string prefix = unique("race");
  auto results = http_concurrent(
      8, 8, [&](int i) { return invite(s, prefix + "-" + to_string(i) + "@test.local"); });
  int created = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 201) {
      ++created;
    } else {
      expect_body(
          r, 422,
          limit_body(max, "pending invitations per tenant", "INVITATIONS_MAX_PENDING_PER_TENANT"));
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(live_pending(s), to_string(max));
}

// An invite waits for the tenant's other invite and then counts its row.
// The test's transaction plays the other invite: it takes the same turn
// (sql/039; taken in ca_invitation_create(), sql/064) and writes the last
// pending invitation, which the waiting invite cannot see until it
// commits. On Citus the turn is on the tenant's shard, released by the
// commit that makes that row visible there.
TEST(Caps, AnInviteWaitsForTheTenantsOtherInviteAndCountsItsInvitation) {
  const int64_t max = cap("INVITATIONS_MAX_PENDING_PER_TENANT", 100);
  Scope s = fresh_scope(admin_token());
  prefill_invitations(s, max - 1);
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  const std::string last = unique("last") + "@test.local";
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(
      exec_ok(conn.get(), "INSERT INTO cap_locks (tenant_id, collection) VALUES (" + s.tid() +
                              ", 'pending invitations') ON CONFLICT (tenant_id, collection) "
                              "DO UPDATE SET collection = cap_locks.collection"));
  ASSERT_TRUE(exec_ok(conn.get(),
                      "INSERT INTO invitations (tenant_id, email, role, token_hash, invited_by, "
                      "expires_at) VALUES (" +
                          s.tid() + ", '" + last + "', 'MEMBER', sha256('" + last + "'::bytea), " +
                          to_string(token_user_id(s.token)) + ", now() + interval '1 day')"));
  std::future<HttpResponse> racing =
      std::async(std::launch::async, [&] { return invite(s, unique("racing") + "@test.local"); });
  bool waiting = wait_for_lock_wait("%FROM ca_invitation_create(%");
  // EXPECT, not ASSERT: the invite must be waited for before `conn` goes.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the invite did not wait for the tenant's other invite";
  expect_body(
      racing.get(), 422,
      limit_body(max, "pending invitations per tenant", "INVITATIONS_MAX_PENDING_PER_TENANT"));
  EXPECT_EQ(live_pending(s), to_string(max));
}

// --- memberships per user ---------------------------------------------------------------

const std::string kAcceptPath = "/api/v2/admin/invitations/accept";

std::string memberships_of(const TestUser& u) {
  return count("SELECT count(*) FROM memberships WHERE user_id = " + to_string(u.id));
}

std::string member_of(int64_t tenant, const TestUser& u) {
  return count("SELECT count(*) FROM memberships WHERE tenant_id = " + to_string(tenant) +
               " AND user_id = " + to_string(u.id));
}

// `n` more memberships of `u`, in tenants of their own written with SQL.
void prefill_memberships(const TestUser& u, int64_t n) {
  const std::string marker = unique("caps memberships");
  sql("INSERT INTO tenants (name) SELECT '" + marker + "' FROM generate_series(1, " + to_string(n) +
      ")");
  sql("INSERT INTO memberships (tenant_id, user_id, role) SELECT id, " + to_string(u.id) +
      ", 'MEMBER' FROM tenants WHERE name = '" + marker + "'");
}

// A new tenant of `admin` with a pending invitation of `u`; its token.
std::pair<int64_t, std::string> tenant_inviting(const std::string& admin, const TestUser& u) {
  const int64_t tenant = create_tenant(admin, unique("caps-joinable"));
  HttpResponse r =
      http("POST", invite_path(tenant),
           {.token = admin, .body = R"({"email":)" + json_text(u.email) + R"(,"role":"MEMBER"})"});
  EXPECT_EQ(r.status, 201) << r.body;
  return {tenant, invitation_token_of(r, tenant)};
}

HttpResponse accept(const TestUser& u, const std::string& invitation_token) {
  return http("POST", kAcceptPath,
              {.token = u.token, .body = R"({"token":)" + json_text(invitation_token) + "}"});
}

std::string memberships_limit(int64_t max) {
  return limit_body(max, "memberships per user", "MEMBERSHIPS_MAX_PER_USER");
}

// However a user joins a tenant (an invitation accepted, a tenant created),
// the tenants they belong to stop at the cap; leaving one frees a slot.
TEST(Caps, MembershipsOfOneUserStopAtTheCapForAcceptsAndCreates) {
  const int64_t max = cap("MEMBERSHIPS_MAX_PER_USER", 100);
  std::string admin = admin_token();
  TestUser u = fresh_user(admin);  // a member of one tenant
  prefill_memberships(u, max - 2);
  ASSERT_EQ(memberships_of(u), to_string(max - 1));

  auto [last, last_token] = tenant_inviting(admin, u);
  HttpResponse joined = accept(u, last_token);
  ASSERT_EQ(joined.status, 201) << joined.body;
  ASSERT_EQ(memberships_of(u), to_string(max));

  // An invitation accepted over the cap: nothing written, the invitation
  // still pending, the user's current tenant unchanged, no event.
  auto [over, over_token] = tenant_inviting(admin, u);
  expect_body(accept(u, over_token), 422, memberships_limit(max));
  EXPECT_EQ(member_of(over, u), "0");
  EXPECT_EQ(count("SELECT status FROM invitations WHERE tenant_id = " + to_string(over)),
            "pending");
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE tenant_id = " + to_string(over) +
                  " AND type = 'user.registered'"),
            "0");
  EXPECT_EQ(count("SELECT tenant_id FROM users WHERE id = " + to_string(u.id)), to_string(last));

  // A tenant created over the cap (its creator would be its member): none.
  const std::string name = unique("over the memberships cap");
  expect_body(http("POST", kTenants, {.token = u.token, .body = tenant_body(name)}), 422,
              memberships_limit(max));
  EXPECT_EQ(count("SELECT count(*) FROM tenants WHERE name = '" + name + "'"), "0");
  EXPECT_EQ(memberships_of(u), to_string(max));

  // Removed from a tenant, the user may join one more, and no second.
  ASSERT_EQ(http("DELETE", invite_path(last) + "/" + to_string(u.id), {.token = admin}).status,
            200);
  HttpResponse again = accept(u, over_token);
  EXPECT_EQ(again.status, 201) << again.body;
  EXPECT_EQ(member_of(over, u), "1");
  expect_body(http("POST", kTenants, {.token = u.token, .body = tenant_body(name)}), 422,
              memberships_limit(max));
  EXPECT_EQ(memberships_of(u), to_string(max));
}

// Accepts and creates of one user at once for the last slot: each takes the
// user's turn before counting, so exactly one gets it.
TEST(Caps, ConcurrentJoinsOfOneUserTakeTheLastSlotOnce) {
  const int64_t max = cap("MEMBERSHIPS_MAX_PER_USER", 100);
  std::string admin = admin_token();
  TestUser u = fresh_user(admin);
  prefill_memberships(u, max - 2);
  std::vector<std::string> tokens;
  for (int i = 0; i < 4; ++i) tokens.push_back(tenant_inviting(admin, u).second);

  auto results = http_concurrent(8, 8, [&](int i) {
    if (i % 2 == 0) return accept(u, tokens[i / 2]);
    return http("POST", kTenants, {.token = u.token, .body = tenant_body("Join race")});
  });
  int joined = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 201) {
      ++joined;
    } else {
      expect_body(r, 422, memberships_limit(max));
    }
  }
  EXPECT_EQ(joined, 1);
  EXPECT_EQ(memberships_of(u), to_string(max));
}

// An accept waits for the user's other join and then counts its
// membership. The test's transaction plays the other join: it takes the
// user's turn (membership_cap.cc: an advisory lock of the coordinator, held
// until every node committed) and writes the last membership, which the
// waiting accept cannot see until it commits. On Citus that membership is
// on another shard than the counting accept's tenant.
TEST(Caps, AnAcceptWaitsForTheUsersOtherJoinAndCountsItsMembership) {
  const int64_t max = cap("MEMBERSHIPS_MAX_PER_USER", 100);
  std::string admin = admin_token();
  TestUser u = fresh_user(admin);
  prefill_memberships(u, max - 2);
  auto [tenant, invitation] = tenant_inviting(admin, u);
  const int64_t other = create_tenant(admin, unique("caps-other-join"));
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT pg_advisory_xact_lock(6001, (" + to_string(u.id) +
                                      "::bigint & 2147483647)::int)"));
  ASSERT_TRUE(exec_ok(conn.get(), "INSERT INTO memberships (tenant_id, user_id, role) VALUES (" +
                                      to_string(other) + ", " + to_string(u.id) + ", 'MEMBER')"));
  std::future<HttpResponse> racing =
      std::async(std::launch::async, [&, token = invitation] { return accept(u, token); });
  bool waiting = wait_for_lock_wait("SELECT pg_advisory_xact_lock(6001%");
  // EXPECT, not ASSERT: the accept must be waited for before `conn` goes.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the accept did not wait for the user's other join";
  expect_body(racing.get(), 422, memberships_limit(max));
  EXPECT_EQ(member_of(tenant, u), "0");
  EXPECT_EQ(memberships_of(u), to_string(max));
}

// --- addresses per user ------------------------------------------------------------------

std::string addresses_of(const TestUser& u) {
  return count("SELECT count(*) FROM addresses WHERE user_id = " + to_string(u.id));
}

std::string prefill_addresses_sql(const TestUser& u, int64_t n) {
  return "INSERT INTO addresses (user_id, street, city, country, postal_code) SELECT " +
         to_string(u.id) + ", 'Prefill ' || i, 'Berlin', 'DE', '10115' FROM generate_series(1, " +
         to_string(n) + ") i";
}

void prefill_addresses(const TestUser& u, int64_t n) { sql(prefill_addresses_sql(u, n)); }

TEST(Caps, AddressesPerUserStopAtTheCap) {
  const int64_t max = cap("ADDRESSES_MAX_PER_USER", 100);
  std::string admin = admin_token();
  TestUser u = fresh_user(admin);
  prefill_addresses(u, max - 1);

  HttpResponse last = http("POST", kAddresses, {.token = u.token, .body = address_body("Last 1")});
  ASSERT_EQ(last.status, 201) << last.body;
  expect_body(http("POST", kAddresses, {.token = u.token, .body = address_body("Over 1")}), 422,
              limit_body(max, "addresses per user", "ADDRESSES_MAX_PER_USER"));
  EXPECT_EQ(addresses_of(u), to_string(max));
  EXPECT_EQ(count("SELECT count(*) FROM addresses WHERE user_id = " + to_string(u.id) +
                  " AND street = 'Over 1'"),
            "0");

  // Deleting one frees its slot (a deleted address an order keeps counts
  // no more than a removed one: OrderCreate's AddressDelete tests).
  ASSERT_EQ(
      http("DELETE", kAddresses + "/" + to_string(last.integer("id")), {.token = u.token}).status,
      200);
  HttpResponse again = http("POST", kAddresses, {.token = u.token, .body = address_body("Again")});
  EXPECT_EQ(again.status, 201) << again.body;

  // Another user's addresses are theirs: not held by this cap.
  TestUser other = fresh_user(admin);
  HttpResponse theirs =
      http("POST", kAddresses, {.token = other.token, .body = address_body("Their 1")});
  EXPECT_EQ(theirs.status, 201) << theirs.body;
}

TEST(Caps, ConcurrentAddressCreatesTakeTheLastSlotOnce) {
  const int64_t max = cap("ADDRESSES_MAX_PER_USER", 100);
  TestUser u = fresh_user(admin_token());
  prefill_addresses(u, max - 1);

  auto results = http_concurrent(8, 8, [&](int i) {
    return http("POST", kAddresses,
                {.token = u.token, .body = address_body("Race " + to_string(i))});
  });
  int created = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 201) {
      ++created;
    } else {
      expect_body(r, 422, limit_body(max, "addresses per user", "ADDRESSES_MAX_PER_USER"));
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(addresses_of(u), to_string(max));
}

// An address create waits for the user's other create and then counts its
// address. The test's transaction plays the other create: it takes the
// user's turn (common/user_turn.h: an advisory lock of the coordinator,
// held until every node committed) and writes the last address, which the
// waiting create cannot see until it commits.
TEST(Caps, AnAddressCreateWaitsForTheUsersOtherCreateAndCountsItsAddress) {
  const int64_t max = cap("ADDRESSES_MAX_PER_USER", 100);
  TestUser u = fresh_user(admin_token());
  prefill_addresses(u, max - 1);
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT pg_advisory_xact_lock(6001, (" + to_string(u.id) +
                                      "::bigint & 2147483647)::int)"));
  ASSERT_TRUE(exec_ok(conn.get(), prefill_addresses_sql(u, 1)));
  std::future<HttpResponse> racing = std::async(std::launch::async, [&] {
    return http("POST", kAddresses, {.token = u.token, .body = address_body("Racing")});
  });
  bool waiting = wait_for_lock_wait("SELECT pg_advisory_xact_lock(6001%");
  // EXPECT, not ASSERT: the create must be waited for before `conn` goes.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the create did not wait for the user's other create";
  expect_body(racing.get(), 422, limit_body(max, "addresses per user", "ADDRESSES_MAX_PER_USER"));
  EXPECT_EQ(addresses_of(u), to_string(max));
}

// --- idempotency keys per user -------------------------------------------------------------

// Addresses are keyed in tenant 0 (routes without a tenant, sql/023).
void prefill_keys(const TestUser& u, int64_t n) {
  sql("INSERT INTO idempotency_key_counts (tenant_id, user_id, hour, n) VALUES (0, " +
      to_string(u.id) + ", floor(extract(epoch FROM now()) / 3600)::bigint, " + to_string(n) + ")");
}

std::string keys_of(const TestUser& u) {
  return count("SELECT count(*) FROM idempotency_keys WHERE user_id = " + to_string(u.id));
}

HttpResponse keyed_address(const TestUser& u, const std::string& key, const std::string& street) {
  return http(
      "POST", kAddresses,
      {.token = u.token, .body = address_body(street), .headers = {"Idempotency-Key: " + key}});
}

TEST(Caps, IdempotencyKeysPerUserStopAtTheCapAndStoredOnesStillReplay) {
  const int64_t max = cap("IDEMPOTENCY_KEYS_MAX_PER_USER", 10000);
  const std::string over_body = limit_body(max, "idempotency keys per user and tenant in 24 hours",
                                           "IDEMPOTENCY_KEYS_MAX_PER_USER");
  TestUser u = fresh_user(admin_token());
  prefill_keys(u, max - 1);

  const std::string k1 = unique("cap-key-1");
  HttpResponse first = keyed_address(u, k1, "Keyed 1");
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(keys_of(u), "1");

  const std::string k2 = unique("cap-key-2");
  expect_body(keyed_address(u, k2, "Keyed 2"), 422, over_body);
  // Nothing written: neither the address nor the key nor its count.
  EXPECT_EQ(addresses_of(u), "1");
  EXPECT_EQ(keys_of(u), "1");
  EXPECT_EQ(count("SELECT sum(n) FROM idempotency_key_counts WHERE tenant_id = 0 AND user_id = " +
                  to_string(u.id)),
            to_string(max));
  // Without a key the same create is not capped by keys.
  HttpResponse unkeyed =
      http("POST", kAddresses, {.token = u.token, .body = address_body("Plain")});
  EXPECT_EQ(unkeyed.status, 201) << unkeyed.body;

  // A stored key still replays at the cap.
  HttpResponse replay = keyed_address(u, k1, "Keyed 1");
  EXPECT_EQ(replay.status, 201) << replay.body;
  EXPECT_EQ(replay.body, first.body);
  EXPECT_EQ(replay.headers["idempotent-replayed"], "true");
  EXPECT_EQ(addresses_of(u), "2");

  // Keys older than 24 hours no longer count.
  sql("UPDATE idempotency_key_counts SET hour = hour - 25 WHERE tenant_id = 0 AND user_id = " +
      to_string(u.id) + " AND hour > 0");
  HttpResponse later = keyed_address(u, k2, "Keyed 2");
  EXPECT_EQ(later.status, 201) << later.body;
  EXPECT_EQ(keys_of(u), "2");
}

// New keys at once for the last slot: the user's lock row is taken before
// the sum, so exactly one gets it; the others' writes are rolled back.
TEST(Caps, ConcurrentNewKeysTakeTheLastSlotOnce) {
  const int64_t max = cap("IDEMPOTENCY_KEYS_MAX_PER_USER", 10000);
  TestUser u = fresh_user(admin_token());
  prefill_keys(u, max - 1);

  const std::string prefix = unique("race-key");
  auto results = http_concurrent(8, 8, [&](int i) {
    return keyed_address(u, prefix + "-" + to_string(i), "Race " + to_string(i));
  });
  int created = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 201) {
      ++created;
    } else {
      expect_body(r, 422,
                  limit_body(max, "idempotency keys per user and tenant in 24 hours",
                             "IDEMPOTENCY_KEYS_MAX_PER_USER"));
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(addresses_of(u), "1");
  EXPECT_EQ(keys_of(u), "1");
}

// --- configuration -----------------------------------------------------------------------

// Each cap is read at start-up like every setting: a value out of range
// stops the handler with one line naming it (exit 2).
TEST(CapsConfig, ACapOutOfRangeStopsTheHandlerWithOneLine) {
  const std::string handler = "commerce-admin-tenants";
  auto start = [&](const std::string& setting, const std::string& value) {
    Outcome r = run_with_stack_env(handler, {{setting, value}});
    return std::pair<int, std::string>{r.status, r.err};
  };
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"TENANTS_MAX_PER_USER", "1 to 100000"},
      {"INVITATIONS_MAX_PENDING_PER_TENANT", "1 to 100000"},
      {"ADDRESSES_MAX_PER_USER", "1 to 100000"},
      {"IDEMPOTENCY_KEYS_MAX_PER_USER", "1 to 10000000"},
      {"MEMBERSHIPS_MAX_PER_USER", "1 to 100000"},
  };
  for (const auto& [setting, range] : settings) {
    for (const char* bad : {"0", "-1", "abc", "20000000"}) {
      auto [status, err] = start(setting, bad);
      EXPECT_EQ(status, 2) << setting << "=" << bad;
      EXPECT_EQ(err, handler + ": " + setting + " must be an integer from " + range + ", got '" +
                         bad + "'\n");
    }
  }
}

}  // namespace
}  // namespace ca::test
