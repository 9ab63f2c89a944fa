#include "login.h"

#include <string>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "password.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// An email's key in login_failures (sql/021): sha256 of its lower-case form,
// lower-cased as users_email_key compares emails.
#define CA_LOGIN_EMAIL_KEY "sha256(convert_to(lower($1), 'UTF8'))"

// $1 email, $2 LOGIN_MAX_FAILURES, $3 LOGIN_FAILURE_WINDOW_SECONDS. Always
// one row: whether the email is locked (and for how many more seconds),
// whether it has failures on record, then the user, if any. The same work
// for an unknown email as for a known one.
//
// Locked: the $2-th newest failure is still inside the window (with $2 = 0
// the index is past the end, NULL: never). Retry-After is when it leaves.
const Statement kFindUser{
    "login_find_user",
    "SELECT (SELECT greatest(1, ceil(extract(epoch FROM "
    "                  f.failed_at[cardinality(f.failed_at) - $2::int + 1] "
    "                  + make_interval(secs => $3::int) - now())))::int "
    "        FROM login_failures f "
    "        WHERE f.email_key = " CA_LOGIN_EMAIL_KEY
    "          AND f.failed_at[cardinality(f.failed_at) - $2::int + 1] "
    "              > now() - make_interval(secs => $3::int)) AS retry_after, "
    "       EXISTS (SELECT 1 FROM login_failures f WHERE f.email_key = " CA_LOGIN_EMAIL_KEY
    ") AS has_failures, "
    "       u.id AS user_id, u.password_hash, u.is_active, u.tenant_id "
    "FROM (VALUES (1)) one (x) LEFT JOIN users u ON lower(u.email) = lower($1)"};

// $1 the user, $2 the tenant they last created or joined (users.tenant_id).
// The user as login answers it (docs/openapi.yaml "User", sql/030), with
// their current tenant: $2 while they are a member of it, else their newest
// membership, else null (docs/decisions/0142-a-users-current-tenant-is-
// answered-at-login.md). A user's memberships are on any shard: on Citus
// the one read of every shard a login makes, once its password is right.
const Statement kUser{
    "login_user",
    "SELECT ca_user_json(id => u.id, tenant_id => c.tenant_id, name => u.name, "
    "         email => u.email, phone => u.phone, country_code => u.country_code, "
    "         email_verified_at => u.email_verified_at, "
    "         phone_verified_at => u.phone_verified_at, user_type => u.user_type, "
    "         photo_url => u.photo_url, theme => u.theme, language => u.language, "
    "         timezone => u.timezone, email_marketing => u.email_marketing, "
    "         email_system => u.email_system, push_system => u.push_system, "
    "         is_active => u.is_active, created_at => u.created_at, "
    "         updated_at => u.updated_at) AS json "
    "FROM users u LEFT JOIN (SELECT m.tenant_id FROM memberships m WHERE m.user_id = $1 "
    "                        ORDER BY m.tenant_id IS NOT DISTINCT FROM $2::bigint DESC, "
    "                                 m.created_at DESC, m.tenant_id DESC LIMIT 1) c ON true "
    "WHERE u.id = $1"};

// $1 email, $2 LOGIN_MAX_FAILURES, $3 LOGIN_FAILURE_WINDOW_SECONDS. One
// more failure; the row keeps the newest $2.
const Statement kRecordFailure{
    "login_record_failure",
    "INSERT INTO login_failures AS f (email_key, failed_at, expires_at) "
    "VALUES (" CA_LOGIN_EMAIL_KEY
    ", ARRAY[now()], now() + make_interval(secs => $3::int)) "
    "ON CONFLICT (email_key) DO UPDATE SET "
    "  failed_at = (f.failed_at || now())[greatest(cardinality(f.failed_at) + 2 - $2::int, 1):], "
    "  expires_at = now() + make_interval(secs => $3::int)"};

// $1 email. A successful login forgets the email's failures.
const Statement kForgetFailures{"login_forget_failures",
                                "DELETE FROM login_failures WHERE email_key = " CA_LOGIN_EMAIL_KEY};

#undef CA_LOGIN_EMAIL_KEY

// Emails and passwords are bounded so a login cannot be made to hash megabytes.
constexpr size_t kMaxEmail = 254;
constexpr size_t kMaxPassword = 1024;

}  // namespace

// Steps: validate; one round trip for the user and the email's failures;
// a locked email is refused before any hashing; then a password slot (none
// free: 503); the password check (a dummy one for an unknown email); a
// failure is recorded; a success reads the user as answered (their current
// tenant from their memberships: kUser), then creates the session (and
// forgets the failures) in one round trip.
Result<Response> login_handler(Ctx& ctx) {
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto email = in.str("email", {.required = true, .trim = true, .max = kMaxEmail});
  auto password = in.str("password", {.required = true, .max = kMaxPassword});
  if (!errs.empty()) return Error::invalid(errs);
  // A password check is ~0.5 s of CPU and 64 MiB. When the client has
  // already gone (a flood of abandoned logins, or a load test stopping with
  // requests still queued), it would be spent for nobody.
  if (client_gone(ctx.req)) return Error::client_closed("Client closed the request");

  const Config& cfg = ctx.config;
  DbResult r = ctx.db.exec(kFindUser,
                           {email.value, cfg.login_max_failures, cfg.login_failure_window_seconds});
  if (!r.ok()) return Error::database(r.error());
  // Locked, whatever the password: were a right one let through, the lock
  // would answer whether a guess was right.
  if (!r->is_null(0, "retry_after")) {
    return Error::too_many_requests("Too many failed logins for this email; try again later",
                                    r->int64(0, "retry_after"));
  }
  bool known = !r->is_null(0, "user_id");
  bool ok = false;
  {
    std::optional<PasswordSlot> slot = PasswordSlot::try_take();
    if (!slot) {
      return Error::unavailable("Too many logins in progress; try again shortly", 1);
    }
    ok = known ? password_verify(r->text(0, "password_hash"), password.value) &&
                     r->boolean(0, "is_active")
               : password_verify_dummy(password.value);
  }
  if (!ok) {
    if (cfg.login_max_failures > 0) {
      DbResult recorded = ctx.db.exec(
          kRecordFailure, {email.value, cfg.login_max_failures, cfg.login_failure_window_seconds});
      if (!recorded.ok()) return Error::database(recorded.error());
    }
    return Error::bad_credentials("Invalid credentials");
  }

  const int64_t user_id = r->int64(0, "user_id");
  DbResult user = ctx.db.exec(kUser, {user_id, r->opt_int64(0, "tenant_id")});
  if (!user.ok()) return Error::database(user.error());
  // Deleted since its password was checked: as a wrong password.
  if (user->empty()) return Error::bad_credentials("Invalid credentials");
  std::optional<Db::Query> forget;
  if (r->boolean(0, "has_failures")) forget = Db::Query{&kForgetFailures, {email.value}};
  CA_TRY(token, issue_token(ctx, user_id, std::move(forget)));
  Json out = json_object();
  json_add_str(out.get(), "token", token);
  json_add(out.get(), "user", json_rendered(user.rows(), 0));
  return Response::json(200, out);
}

// The session check and the revoke: one round trip (common/request_tx.h). A
// token whose session is no longer live is refused (401) before the revoke.
Result<Response> logout_handler(Ctx& ctx) {
  CA_TRY(w, send_once(ctx, Access::session(),
                      [&](const Principal& who) { return Queries{revoke_session_query(who)}; }));
  (void)w;
  Json out = json_object();
  json_add_str(out.get(), "message", "Logged out");
  return Response::json(200, out);
}

}  // namespace ca
