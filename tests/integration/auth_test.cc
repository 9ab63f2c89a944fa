// Login, logout and every way a request is refused with 401, over HTTP
// through nginx (docs/design/api-conventions.md, "Authentication").
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sodium.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <ctime>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "jwt.h"
#include "stack.h"

namespace ca::test {
namespace {

const char* kTenants = "/api/v2/admin/tenants";

// The claims inside a token the service issued.
TokenClaims claims_of(const std::string& token) {
  TokenClaims c;
  size_t d1 = token.find('.');
  size_t d2 = token.find('.', d1 + 1);
  EXPECT_NE(d2, std::string::npos) << token;
  if (d2 == std::string::npos) return c;
  auto payload = base64url_decode(token.substr(d1 + 1, d2 - d1 - 1));
  EXPECT_TRUE(payload.has_value()) << token;
  Json p = json_parse(payload.value_or(""));
  c.sub = json_get_int(p.get(), "sub").value_or(0);
  c.jti = std::string(json_get_str(p.get(), "jti").value_or(""));
  c.iat = json_get_int(p.get(), "iat").value_or(0);
  c.exp = json_get_int(p.get(), "exp").value_or(0);
  return c;
}

// header.payload.signature with the signature made by HMAC-SHA256 under `secret`.
std::string sign_raw(const std::string& header, const std::string& payload,
                     const std::string& secret) {
  std::string input = base64url_encode(header) + "." + base64url_encode(payload);
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(secret.data()),
                              secret.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(input.data()),
                                input.size());
  crypto_auth_hmacsha256_final(&st, mac);
  return input + "." + base64url_encode(std::string(reinterpret_cast<char*>(mac), sizeof mac));
}

std::string payload_json(const TokenClaims& c) {
  Json p = json_object();
  json_add_int(p.get(), "sub", c.sub);
  json_add_str(p.get(), "jti", c.jti);
  json_add_int(p.get(), "iat", c.iat);
  json_add_int(p.get(), "exp", c.exp);
  return json_dump(p.get());
}

class AuthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { crypto_init(); }
  // A new member of a new tenant named after `tenant_prefix`, logged in.
  static TestUser new_member(const std::string& tenant_prefix) {
    std::string admin = admin_token();
    return add_user(admin, create_tenant(admin, unique(tenant_prefix)));
  }
};

// --- login ---------------------------------------------------------------------------

TEST_F(AuthTest, LoginReturnsTokenAndTheFullUserObject) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("Login tenant"));
  TestUser u = add_user(admin, tenant);

  HttpResponse r = login_response(u.email, u.password);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"], "application/json; charset=utf-8");
  EXPECT_EQ(json_keys(r.json.get()), (std::vector<std::string>{"token", "user"}));

  const cJSON* user = r["user"];
  EXPECT_EQ(json_keys(user), (std::vector<std::string>{
                                 "country_code", "created_at", "email", "email_marketing",
                                 "email_system", "email_verified_at", "id", "is_active", "language",
                                 "name", "phone", "phone_verified_at", "photo_url", "push_system",
                                 "tenant_id", "theme", "timezone", "updated_at", "user_type"}));
  EXPECT_EQ(json_get_int(user, "id"), u.id);
  EXPECT_EQ(json_get_int(user, "tenant_id"), tenant);  // the tenant the user was added to
  EXPECT_EQ(json_get_str(user, "name").value_or(""), "Test User");
  EXPECT_EQ(json_get_str(user, "email").value_or(""), u.email);
  for (const char* null_key :
       {"phone", "country_code", "phone_verified_at", "photo_url", "timezone"}) {
    EXPECT_TRUE(cJSON_IsNull(json_get(user, null_key))) << null_key;
  }
  // Created by accepting an invitation that came by mail (the stack's sink):
  // the address is proven.
  EXPECT_TRUE(is_timestamp(json_get(user, "email_verified_at")));
  EXPECT_EQ(json_get_str(user, "user_type").value_or(""), "CONSUMER");
  EXPECT_EQ(json_get_str(user, "theme").value_or(""), "system");
  EXPECT_EQ(json_get_str(user, "language").value_or(""), "en");
  // Flags are the strings "0" / "1", not booleans or numbers.
  EXPECT_EQ(json_get_str(user, "email_marketing").value_or("<not a string>"), "0");
  EXPECT_EQ(json_get_str(user, "email_system").value_or("<not a string>"), "1");
  EXPECT_EQ(json_get_str(user, "push_system").value_or("<not a string>"), "1");
  EXPECT_EQ(json_get_str(user, "is_active").value_or("<not a string>"), "1");
  EXPECT_TRUE(is_timestamp(json_get(user, "created_at"))) << json_dump(user);
  EXPECT_TRUE(is_timestamp(json_get(user, "updated_at"))) << json_dump(user);

  // The token is an HS256 JWT for this user, backed by a live session row.
  std::string token = r.str("token");
  TokenClaims c = claims_of(token);
  EXPECT_EQ(c.sub, u.id);
  EXPECT_EQ(c.jti.size(), 36u);
  EXPECT_GE(c.iat, std::time(nullptr) - 60);
  EXPECT_EQ(c.exp - c.iat, 86400);  // TOKEN_TTL_SECONDS default
  EXPECT_EQ(sql("SELECT user_id FROM sessions WHERE id = '" + c.jti + "' AND revoked_at IS NULL"),
            (std::vector<std::string>{to_string(u.id)}));
  EXPECT_EQ(http("GET", kTenants, {.token = token}).status, 200);
}

TEST_F(AuthTest, EachLoginIssuesADistinctSession) {
  std::string a = admin_token();
  std::string b = admin_token();
  EXPECT_NE(a, b);
  EXPECT_NE(claims_of(a).jti, claims_of(b).jti);
}

TEST_F(AuthTest, LoginEmailIsCaseInsensitiveAndTrimmed) {
  std::string email = admin_email();
  std::string upper;
  for (char c : email) upper.push_back(static_cast<char>(std::toupper(c)));
  HttpResponse r = login_response("  " + upper + " ", admin_password());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_get_str(r["user"], "email").value_or(""), email);
}

TEST_F(AuthTest, WrongPasswordIs401InvalidCredentials) {
  HttpResponse r = login_response(admin_email(), admin_password() + "x");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"error":"Invalid credentials"})");
  HttpResponse empty = login_response(admin_email(), "");
  EXPECT_EQ(empty.status, 422) << empty.body;  // an empty password is a missing one
}

TEST_F(AuthTest, UnknownEmailIs401WithTheSameBody) {
  HttpResponse r = login_response(unique("nobody") + "@test.local", "whatever-password");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"error":"Invalid credentials"})");
}

TEST_F(AuthTest, InactiveUserCannotLogInAndItsTokensStopWorking) {
  TestUser u = new_member("Inactive tenant");
  ASSERT_EQ(http("GET", kTenants, {.token = u.token}).status, 200);
  sql("SELECT ca_deactivate_user(" + to_string(u.id) + ")");  // sql/032

  HttpResponse r = login_response(u.email, u.password);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"error":"Invalid credentials"})");
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = u.token})));

  // Deactivation revoked the sessions: reactivating does not bring them back.
  sql("UPDATE users SET is_active = true WHERE id = " + to_string(u.id));
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = u.token})));
  HttpResponse again = login_response(u.email, u.password);
  ASSERT_EQ(again.status, 200) << again.body;
  std::string token(json_get_str(again.json.get(), "token").value_or(""));
  EXPECT_EQ(http("GET", kTenants, {.token = token}).status, 200);
}

// The worker deletes sessions once they expire (revoked or not) and keeps
// the live ones, revoked included until their expiry.
TEST_F(AuthTest, WorkerPurgesExpiredSessions) {
  TestUser u = new_member("Purge tenant");
  std::string uid = to_string(u.id);
  sql("INSERT INTO sessions (id, user_id, expires_at, revoked_at) VALUES "
      "(gen_random_uuid(), " +
      uid +
      ", now() - interval '1 second', NULL), "
      "(gen_random_uuid(), " +
      uid +
      ", now() - interval '2 days', now() - interval '3 days'), "
      "(gen_random_uuid(), " +
      uid + ", now() + interval '1 day', now())");
  const std::string count = "SELECT count(*) FROM sessions WHERE user_id = " + uid;
  ASSERT_EQ(sql(count), std::vector<std::string>{"4"});  // with the login's own
  std::vector<std::string> left;
  for (int i = 0; i < 300; ++i) {  // the stack's worker passes about every second
    left = sql(count);
    if (left == std::vector<std::string>{"2"}) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(left, std::vector<std::string>{"2"});
  EXPECT_EQ(sql("SELECT count(*) FROM sessions WHERE expires_at <= now() AND user_id = " + uid),
            std::vector<std::string>{"0"});
  EXPECT_EQ(http("GET", kTenants, {.token = u.token}).status, 200);
}

// A login that read the user as active while a deactivation was still
// uncommitted waits for it when creating the session, then creates none: a
// session never outlives its user's deactivation (sql/010).
TEST_F(AuthTest, LoginRacingADeactivationGetsNoSession) {
  TestUser u = new_member("Racing tenant");
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT ca_deactivate_user(" + to_string(u.id) + ")"));

  std::future<HttpResponse> login =
      std::async(std::launch::async, [&] { return login_response(u.email, u.password); });
  // The login sees the user still active, checks the password, then waits
  // for this transaction's row lock to create the session.
  bool waiting = wait_for_lock_wait("INSERT INTO sessions%");
  // EXPECT, not ASSERT: the login must be waited for before `conn` (and
  // its lock, were the COMMIT to fail) goes away.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the login never waited for the deactivation";
  HttpResponse r = login.get();
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"error":"Invalid credentials"})");
  EXPECT_EQ(sql("SELECT count(*) FROM sessions WHERE revoked_at IS NULL AND user_id = " +
                to_string(u.id)),
            std::vector<std::string>{"0"});
}

// In REPEATABLE READ the deactivation's revocation would not see a session
// a racing login committed meanwhile (sql/011, sql/032), so such a
// deactivation is refused and changes nothing.
TEST_F(AuthTest, DeactivationOutsideReadCommittedIsRefused) {
  TestUser u = new_member("Isolation tenant");
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  for (const char* level : {"REPEATABLE READ", "SERIALIZABLE"}) {
    std::string query = std::string("BEGIN ISOLATION LEVEL ") + level +
                        "; SELECT ca_deactivate_user(" + to_string(u.id) + ")" + "; COMMIT";
    PgResult r(PQexec(conn.get(), query.c_str()));
    EXPECT_EQ(PQresultStatus(r.get()), PGRES_FATAL_ERROR) << level;
    EXPECT_STREQ(PQresultErrorField(r.get(), PG_DIAG_MESSAGE_PRIMARY),
                 "deactivate users in a READ COMMITTED transaction")
        << level;
    PgResult end(PQexec(conn.get(), "ROLLBACK"));
  }
  EXPECT_EQ(sql("SELECT is_active FROM users WHERE id = " + to_string(u.id)),
            std::vector<std::string>{"t"});
  EXPECT_EQ(http("GET", kTenants, {.token = u.token}).status, 200);
}

TEST_F(AuthTest, LoginWithMissingFieldsIs422) {
  HttpResponse r = http("POST", "/api/v2/admin/login", {.body = "{}"});
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(json_eq(r.json.get(), R"({"message":"The given data was invalid.","errors":{
      "email":["The email field is required."],"password":["The password field is required."]}})"));

  HttpResponse nulls =
      http("POST", "/api/v2/admin/login", {.body = R"({"email":null,"password":"   "})"});
  EXPECT_EQ(nulls.status, 422);
  // A null email is a missing one; a password of spaces is a password (never trimmed).
  EXPECT_TRUE(json_eq(nulls.json.get(), R"({"message":"The given data was invalid.","errors":{
      "email":["The email field is required."]}})"));
}

TEST_F(AuthTest, LoginWithWrongTypesIs422) {
  HttpResponse r =
      http("POST", "/api/v2/admin/login", {.body = R"({"email":5,"password":["secret"]})"});
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(json_eq(r.json.get(), R"({"message":"The given data was invalid.","errors":{
      "email":["The email field must be a string."],
      "password":["The password field must be a string."]}})"));
}

TEST_F(AuthTest, LoginWithOverlongFieldsIs422) {
  std::string long_email = std::string(250, 'a') + "@x.io";
  HttpResponse r = login_response(long_email, std::string(1025, 'p'));
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(json_eq(r.json.get(), R"({"message":"The given data was invalid.","errors":{
      "email":["The email field must not be greater than 254 characters."],
      "password":["The password field must not be greater than 1024 characters."]}})"));
}

TEST_F(AuthTest, LoginBodyThatIsNotAnObjectIs400) {
  for (const char* body : {"", "not json", "[]", R"(["admin@test.local","pw"])", "null"}) {
    HttpResponse r = http("POST", "/api/v2/admin/login", {.body = body});
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.body, R"({"error":"Request body must be a JSON object"})") << body;
  }
}

// --- login limits -------------------------------------------------------------------

// The stack runs with the defaults (README, configuration).
constexpr int kMaxFailures = 5;             // LOGIN_MAX_FAILURES
constexpr int kFailureWindowSeconds = 900;  // LOGIN_FAILURE_WINDOW_SECONDS
constexpr int kMaxSessions = 10;            // MAX_SESSIONS_PER_USER
constexpr const char* kLockedBody =
    R"({"error":"Too many failed logins for this email; try again later"})";

// The login_failures key of `email` (sql/021), as a SQL expression.
std::string failure_key(const std::string& email) {
  return "sha256(convert_to(lower('" + email + "'), 'UTF8'))";
}

// How many failures are on record for `email` ("0" when none).
std::string failures_of(const std::string& email) {
  std::vector<std::string> rows =
      sql("SELECT coalesce((SELECT cardinality(failed_at) FROM login_failures WHERE email_key = " +
          failure_key(email) + "), 0)");
  return rows.empty() ? "" : rows[0];
}

// Moves every recorded failure of `email` `seconds` into the past.
void age_failures(const std::string& email, int seconds) {
  sql("UPDATE login_failures SET failed_at = ARRAY(SELECT t - make_interval(secs => " +
      std::to_string(seconds) +
      ") FROM unnest(failed_at) t) WHERE email_key = " + failure_key(email));
}

// 429 with the locked body and a Retry-After of whole seconds in [lo, hi].
::testing::AssertionResult is_locked(const HttpResponse& r, int lo, int hi) {
  if (r.status != 429 || r.body != kLockedBody) {
    return ::testing::AssertionFailure() << r.status << " " << r.body;
  }
  auto retry = r.headers.find("retry-after");
  if (retry == r.headers.end()) return ::testing::AssertionFailure() << "no Retry-After";
  const std::string& v = retry->second;
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < lo ||
      std::stoi(v) > hi) {
    return ::testing::AssertionFailure()
           << "Retry-After '" << v << "' not in [" << lo << ", " << hi << "]";
  }
  return ::testing::AssertionSuccess();
}

TEST_F(AuthTest, RepeatedFailuresLockTheEmailEvenForTheRightPassword) {
  TestUser u = new_member("Lockout tenant");
  for (int i = 0; i < kMaxFailures; ++i) {
    HttpResponse r = login_response(u.email, "wrong-password-" + std::to_string(i));
    EXPECT_EQ(r.status, 401) << "failure " << i << ": " << r.body;
    EXPECT_EQ(r.body, R"({"error":"Invalid credentials"})");
  }
  EXPECT_EQ(failures_of(u.email), std::to_string(kMaxFailures));

  // Locked: a wrong password, the right one, and the email in another case
  // are all refused before the password is checked (no failure is added).
  EXPECT_TRUE(is_locked(login_response(u.email, "wrong-again"), 1, kFailureWindowSeconds));
  EXPECT_TRUE(is_locked(login_response(u.email, u.password), 1, kFailureWindowSeconds));
  std::string upper;
  for (char c : u.email) upper.push_back(static_cast<char>(std::toupper(c)));
  EXPECT_TRUE(is_locked(login_response(" " + upper, u.password), 1, kFailureWindowSeconds));
  EXPECT_EQ(failures_of(u.email), std::to_string(kMaxFailures));

  // The lock is the email's, not the client's: others log in, and the
  // user's existing session keeps working.
  EXPECT_EQ(login_response(admin_email(), admin_password()).status, 200);
  EXPECT_EQ(http("GET", kTenants, {.token = u.token}).status, 200);

  // Retry-After counts down to when the oldest failure leaves the window.
  age_failures(u.email, kFailureWindowSeconds - 100);
  EXPECT_TRUE(is_locked(login_response(u.email, u.password), 60, 100));
  // Once it has left, one attempt gets through, and a success forgets them all.
  age_failures(u.email, 101);
  HttpResponse ok = login_response(u.email, u.password);
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(failures_of(u.email), "0");
}

TEST_F(AuthTest, UnknownEmailsAreLockedTheSameWay) {
  std::string email = unique("nobody") + "@test.local";
  for (int i = 0; i < kMaxFailures; ++i) {
    HttpResponse r = login_response(email, "whatever-password");
    EXPECT_EQ(r.status, 401) << "failure " << i;
    EXPECT_EQ(r.body, R"({"error":"Invalid credentials"})");
  }
  EXPECT_TRUE(is_locked(login_response(email, "whatever-password"), 1, kFailureWindowSeconds));
  // The key is a hash: the address people tried is not stored.
  EXPECT_EQ(sql("SELECT count(*) FROM login_failures WHERE email_key = " + failure_key(email)),
            std::vector<std::string>{"1"});
  EXPECT_EQ(sql("SELECT count(*) FROM login_failures WHERE position(convert_to('" + email +
                "', 'UTF8') IN email_key) > 0"),
            std::vector<std::string>{"0"});
}

TEST_F(AuthTest, SuccessfulLoginResetsTheFailureCount) {
  TestUser u = new_member("Reset tenant");
  for (int i = 0; i < kMaxFailures - 1; ++i) {
    EXPECT_EQ(login_response(u.email, "wrong-password").status, 401);
  }
  EXPECT_EQ(login_response(u.email, u.password).status, 200);
  EXPECT_EQ(failures_of(u.email), "0");
  // A whole new allowance.
  for (int i = 0; i < kMaxFailures; ++i) {
    EXPECT_EQ(login_response(u.email, "wrong-password").status, 401) << "failure " << i;
  }
  EXPECT_TRUE(is_locked(login_response(u.email, u.password), 1, kFailureWindowSeconds));
}

// Logins flooding the auth processes with password checks (each a fresh
// unknown email, from four client addresses of their own so nginx's
// per-address limit lets them through) never take the last thread: /healthz,
// polled meanwhile, answers 200 every time, and the logins beyond the
// processes' bound are shed at once with 503 and Retry-After instead of
// queueing.
TEST_F(AuthTest, LoginFloodShedsWith503AndHealthzKeepsAnswering) {
  std::atomic<bool> flooding{true};
  std::vector<long> health;
  std::vector<double> health_seconds;
  std::thread poller([&] {
    while (flooding.load()) {
      auto start = std::chrono::steady_clock::now();
      HttpResponse r = http("GET", "/healthz");
      health.push_back(r.status);
      health_seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::vector<HttpResponse> logins;
  int shed = 0;
  for (int round = 0; round < 5 && shed == 0; ++round) {
    auto results = http_concurrent(48, 16, [&](int i) {
      Json body = json_object();
      json_add_str(body.get(), "email", unique("flood") + "@test.local");
      json_add_str(body.get(), "password", "flood-password");
      return http(
          "POST", "/api/v2/admin/login",
          {.body = json_dump(body.get()), .source_ip = "127.0.0." + std::to_string(3 + i % 4)});
    });
    for (HttpResponse& r : results) {
      if (r.status == 503) ++shed;
      logins.push_back(std::move(r));
    }
  }
  flooding.store(false);
  poller.join();

  EXPECT_GT(shed, 0) << logins.size() << " concurrent logins and none was shed";
  for (const HttpResponse& r : logins) {
    if (r.status == 503) {
      EXPECT_EQ(r.body, R"({"error":"Too many logins in progress; try again shortly"})");
      EXPECT_EQ(r.headers.count("retry-after") ? r.headers.at("retry-after") : "", "1");
    } else {
      EXPECT_EQ(r.status, 401) << r.body;
      EXPECT_EQ(r.body, R"({"error":"Invalid credentials"})");
    }
  }
  ASSERT_FALSE(health.empty());
  for (size_t i = 0; i < health.size(); ++i) {
    EXPECT_EQ(health[i], 200) << "probe " << i;
    EXPECT_LT(health_seconds[i], 5.0) << "probe " << i;  // generous: it takes milliseconds
  }
  // Once the flood is over, logins are served again.
  EXPECT_TRUE(wait_for_login());
}

// --- sessions per user --------------------------------------------------------------

TEST_F(AuthTest, LoginsBeyondTheSessionCapRevokeTheOldest) {
  TestUser u = new_member("Session cap tenant");  // its login is the first session
  std::vector<std::string> tokens{u.token};
  for (int i = 0; i < kMaxSessions; ++i) tokens.push_back(login(u.email, u.password));
  ASSERT_EQ(tokens.size(), static_cast<size_t>(kMaxSessions + 1));

  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = tokens[0]})));
  for (size_t i = 1; i < tokens.size(); ++i) {
    EXPECT_EQ(http("GET", kTenants, {.token = tokens[i]}).status, 200) << "token " << i;
  }
  EXPECT_EQ(sql("SELECT count(*) FROM sessions WHERE revoked_at IS NULL AND user_id = " +
                to_string(u.id)),
            std::vector<std::string>{std::to_string(kMaxSessions)});
  EXPECT_EQ(sql("SELECT revoked_at IS NOT NULL FROM sessions WHERE id = '" +
                claims_of(tokens[0]).jti + "'"),
            std::vector<std::string>{"t"});

  // Logging out frees a place: the next login revokes nothing.
  ASSERT_EQ(http("POST", "/api/v2/admin/logout", {.token = tokens[1]}).status, 200);
  std::string next = login(u.email, u.password);
  EXPECT_EQ(http("GET", kTenants, {.token = tokens[2]}).status, 200);
  EXPECT_EQ(http("GET", kTenants, {.token = next}).status, 200);
  // Another user's sessions are not touched.
  EXPECT_EQ(http("GET", kTenants, {.token = admin_token()}).status, 200);
}

// Two logins of one user take turns on the user row, so the second one's
// cap counts the first one's session even when both overlap. Here the
// "first login" is this test's transaction, which adds a session while
// holding the row only FOR SHARE (the weakest lock a login ever took: if
// the login waits even for that, it waits for another login); the real
// login waits for it, then keeps the cap.
TEST_F(AuthTest, ConcurrentLoginsOfOneUserStillKeepTheCap) {
  TestUser u = new_member("Session race tenant");
  std::string uid = to_string(u.id);
  for (int i = 1; i < kMaxSessions; ++i) {
    sql("INSERT INTO sessions (id, user_id, expires_at) VALUES (gen_random_uuid(), " + uid +
        ", now() + interval '1 day')");
  }
  const std::string live =
      "SELECT count(*) FROM sessions WHERE revoked_at IS NULL AND user_id = " + uid;
  ASSERT_EQ(sql(live), std::vector<std::string>{std::to_string(kMaxSessions)});

  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT 1 FROM users WHERE id = " + uid + " FOR SHARE"));
  ASSERT_TRUE(exec_ok(conn.get(),
                      "INSERT INTO sessions (id, user_id, expires_at) VALUES "
                      "(gen_random_uuid(), " +
                          uid + ", now() + interval '1 day')"));
  std::future<HttpResponse> login =
      std::async(std::launch::async, [&] { return login_response(u.email, u.password); });
  bool waiting = wait_for_lock_wait("INSERT INTO sessions%");
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the login did not wait for the other login of its user";
  HttpResponse r = login.get();
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(sql(live), std::vector<std::string>{std::to_string(kMaxSessions)});
  EXPECT_EQ(http("GET", kTenants, {.token = r.str("token")}).status, 200);
  // The oldest live one went: the login's own first session.
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = u.token})));
}

// --- 401 paths -----------------------------------------------------------------------------

TEST_F(AuthTest, MissingAuthorizationIs401) {
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants)));
  EXPECT_TRUE(is_unauthenticated(http("POST", kTenants, {.body = R"({"name":"x"})"})));
  EXPECT_TRUE(is_unauthenticated(http("POST", "/api/v2/admin/logout")));
  EXPECT_TRUE(is_unauthenticated(http("GET", "/api/v2/admin/tenants/1")));
  EXPECT_TRUE(is_unauthenticated(http("GET", "/api/v2/admin/team-members/1")));
  EXPECT_TRUE(is_unauthenticated(http("DELETE", "/api/v2/admin/team-members/1/2")));
}

TEST_F(AuthTest, EmptyOrNonBearerAuthorizationIs401) {
  std::string token = admin_token();
  for (const std::string& header :
       {std::string("Authorization: Bearer "), std::string("Authorization: Bearer"),
        std::string("Authorization: Bearer  "), "Authorization: Basic " + token,
        "Authorization: " + token, "Authorization: Token " + token,
        "Authorization: Bearer  " + token,  // two spaces: the token would start with a space
        "Authorization: Bearer " + token + " extra"}) {
    EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.headers = {header}}))) << header;
  }
}

TEST_F(AuthTest, BearerSchemeIsCaseInsensitive) {
  std::string token = admin_token();
  EXPECT_EQ(http("GET", kTenants, {.headers = {"Authorization: bearer " + token}}).status, 200);
  EXPECT_EQ(http("GET", kTenants, {.headers = {"Authorization: BEARER " + token}}).status, 200);
}

TEST_F(AuthTest, GarbageTokensAre401) {
  for (const char* token : {"garbage", "a.b.c", "a.b", "...", "eyJhbGciOiJIUzI1NiJ9..",
                            "eyJhbGciOiJIUzI1NiJ9.e30.", "\xff\xfe"}) {
    EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = token}))) << token;
  }
}

TEST_F(AuthTest, AlgNoneTokenIs401) {
  std::string real = admin_token();
  std::string payload = payload_json(claims_of(real));
  std::string unsigned_token =
      base64url_encode(R"({"alg":"none","typ":"JWT"})") + "." + base64url_encode(payload) + ".";
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = unsigned_token})));
  // Even correctly HMAC-signed with the real key: the header never picks the algorithm.
  std::string signed_none = sign_raw(R"({"alg":"none","typ":"JWT"})", payload, token_secret());
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = signed_none})));
  std::string hs512 = sign_raw(R"({"alg":"HS512","typ":"JWT"})", payload, token_secret());
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = hs512})));
  std::string no_alg = sign_raw(R"({"typ":"JWT"})", payload, token_secret());
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = no_alg})));
  // The control: the same payload with the HS256 header is accepted.
  std::string hs256 = sign_raw(R"({"alg":"HS256","typ":"JWT"})", payload, token_secret());
  EXPECT_EQ(http("GET", kTenants, {.token = hs256}).status, 200);
}

TEST_F(AuthTest, TamperedPayloadIs401) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("Tamper tenant"));
  TestUser u = add_user(admin, tenant);
  // The member swaps `sub` for the admin's id and keeps the signature.
  TokenClaims c = claims_of(u.token);
  c.sub = claims_of(admin).sub;
  size_t d1 = u.token.find('.');
  size_t d2 = u.token.find('.', d1 + 1);
  std::string tampered =
      u.token.substr(0, d1 + 1) + base64url_encode(payload_json(c)) + u.token.substr(d2);
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = tampered})));
  // The untouched token still works.
  EXPECT_EQ(http("GET", kTenants, {.token = u.token}).status, 200);
}

TEST_F(AuthTest, TokenSignedWithAnotherSecretIs401) {
  TokenClaims c = claims_of(admin_token());  // a live session
  std::string forged = jwt_sign(c, "an attacker's guess at the secret, 32+ bytes long");
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = forged})));
  // The same claims under the real secret pass: only the key differed.
  EXPECT_EQ(http("GET", kTenants, {.token = jwt_sign(c, token_secret())}).status, 200);
}

TEST_F(AuthTest, ExpiredTokenIs401) {
  TokenClaims c = claims_of(admin_token());  // a live, unrevoked session
  c.iat = std::time(nullptr) - 7200;
  c.exp = std::time(nullptr) - 60;
  std::string expired = jwt_sign(c, token_secret());
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = expired})));
  EXPECT_TRUE(is_unauthenticated(http("POST", "/api/v2/admin/logout", {.token = expired})));
}

TEST_F(AuthTest, ValidSignatureWithoutALiveSessionIs401) {
  std::string secret = token_secret();
  TokenClaims real = claims_of(admin_token());
  // A session id that was never issued.
  TokenClaims unknown = real;
  unknown.jti = random_uuid();
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = jwt_sign(unknown, secret)})));
  // A jti that is not a UUID at all.
  TokenClaims not_uuid = real;
  not_uuid.jti = "not-a-uuid'; DROP TABLE sessions; --";
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = jwt_sign(not_uuid, secret)})));
  // A user's own id with someone else's session id (the session is the admin's).
  TestUser u = new_member("Session tenant");
  TokenClaims borrowed = claims_of(u.token);
  borrowed.jti = real.jti;
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = jwt_sign(borrowed, secret)})));
  // A session whose own expiry passed, though the token's exp is still ahead.
  sql("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = '" + real.jti + "'");
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = jwt_sign(real, secret)})));
}

// --- logout ---------------------------------------------------------------------------------

TEST_F(AuthTest, LogoutRevokesOnlyThatTokenInEveryProcessAtOnce) {
  std::string revoked = admin_token();
  std::string kept = admin_token();

  HttpResponse out = http("POST", "/api/v2/admin/logout", {.token = revoked});
  ASSERT_EQ(out.status, 200) << out.body;
  EXPECT_EQ(out.body, R"({"message":"Logged out"})");

  // Concurrent requests spread over every handler process and thread; not one
  // may still accept the revoked token, and every one accepts the other.
  auto revoked_runs =
      http_concurrent(20, 8, [&](int) { return http("GET", kTenants, {.token = revoked}); });
  auto kept_runs =
      http_concurrent(20, 8, [&](int) { return http("GET", kTenants, {.token = kept}); });
  for (const HttpResponse& r : revoked_runs) EXPECT_TRUE(is_unauthenticated(r));
  for (const HttpResponse& r : kept_runs) EXPECT_EQ(r.status, 200) << r.body;

  // Other executables see the revocation too.
  EXPECT_TRUE(is_unauthenticated(http("GET", "/api/v2/admin/team-members/1", {.token = revoked})));
  EXPECT_TRUE(is_unauthenticated(http("POST", "/api/v2/admin/logout", {.token = revoked})));

  EXPECT_EQ(sql("SELECT revoked_at IS NOT NULL FROM sessions WHERE id = '" +
                claims_of(revoked).jti + "'"),
            (std::vector<std::string>{"t"}));
  EXPECT_EQ(sql("SELECT revoked_at IS NULL FROM sessions WHERE id = '" + claims_of(kept).jti + "'"),
            (std::vector<std::string>{"t"}));
}

TEST_F(AuthTest, LogoutIgnoresABody) {
  std::string token = admin_token();
  HttpResponse r = http("POST", "/api/v2/admin/logout", {.token = token, .body = "not json"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = token})));
}

TEST_F(AuthTest, LoggingInAgainAfterLogoutWorks) {
  std::string first = admin_token();
  ASSERT_EQ(http("POST", "/api/v2/admin/logout", {.token = first}).status, 200);
  std::string second = admin_token();
  EXPECT_EQ(http("GET", kTenants, {.token = second}).status, 200);
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, {.token = first})));
}

}  // namespace
}  // namespace ca::test
