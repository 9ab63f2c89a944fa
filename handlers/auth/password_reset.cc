#include "password_reset.h"

#include <sodium.h>

#include <optional>
#include <string>
#include <vector>

#include "audit.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "password.h"
#include "validate.h"

namespace ca {
namespace {

constexpr std::string_view kPrefix = "pwr_";
constexpr size_t kSecretChars = 43;  // 32 bytes, base64url without padding

constexpr const char* kForgotAnswer =
    "If an account has this email, a message with a link to choose a new password is on its way";
constexpr const char* kInvalidToken = "The token is invalid, used or expired";

// $1 email, $2 PASSWORD_FORGOT_MAX_PER_EMAIL, $3 PASSWORD_FORGOT_WINDOW_SECONDS.
// One more request of the email (sha256 of its lower-case form, as
// login_failures), recorded only when allowed: fewer than $2 on record, or
// the oldest of the newest $2 out of the window. A row comes back when it
// was allowed. Refused requests are not recorded, so a flood cannot keep an
// email from ever getting a token: its owner gets the mails that were let
// through, and any of those tokens works.
const Statement kForgotCount{
    "password_forgot_count",
    "INSERT INTO password_forgot_requests AS f (email_key, requested_at, expires_at) "
    "VALUES (sha256(convert_to(lower($1), 'UTF8')), ARRAY[now()], "
    "        now() + make_interval(secs => $3::int)) "
    "ON CONFLICT (email_key) DO UPDATE SET "
    "  requested_at = (f.requested_at || now())"
    "    [greatest(cardinality(f.requested_at) + 2 - $2::int, 1):], "
    "  expires_at = now() + make_interval(secs => $3::int) "
    "WHERE cardinality(f.requested_at) < $2::int "
    "   OR f.requested_at[cardinality(f.requested_at) - $2::int + 1] "
    "      <= now() - make_interval(secs => $3::int) "
    "RETURNING true AS allowed"};

// $1 token hash, $2 email, $3 lifetime in seconds.
const Statement kForgotToken{"password_forgot_token",
                             "INSERT INTO password_resets (token_hash, email, expires_at) "
                             "VALUES ($1::bytea, $2, now() + make_interval(secs => $3::int))"};

// $1 email, $2 token, $3 lifetime in seconds. The mail (tenant 0: no
// tenant's); the worker sends it only when an active account has the
// address, and removes the token from the row once it is done.
const Statement kForgotMail{
    "password_forgot_mail",
    "INSERT INTO mails (tenant_id, kind, recipient, data) "
    "VALUES (0, 'password_reset', $1, jsonb_build_object('token', $2::text, "
    "        'expires_at', ca_ts(now() + make_interval(secs => $3::int))))"};

// $1 token hash. The email of a usable token (before the password hash).
const Statement kResetFind{
    "password_reset_find",
    "SELECT email FROM password_resets "
    "WHERE token_hash = $1::bytea AND used_at IS NULL AND expires_at > now()"};

// The reset: one transaction (Db::write_pipeline) of four statements; one
// that finds nothing raises (ca_refuse, CA400: the one 400), and all of it
// rolls back.
// $1 token hash, $2 the answer. The single use: a second reset with the
// token waits for this row's lock, then finds it used.
const Statement kResetClaim{
    "password_reset_claim",
    "WITH claimed AS (UPDATE password_resets SET used_at = now() "
    "           WHERE token_hash = $1::bytea AND used_at IS NULL AND expires_at > now() "
    "           RETURNING email) "
    "SELECT email FROM claimed c UNION ALL "
    "SELECT ca_refuse('CA400', $2) WHERE NOT EXISTS (SELECT 1 FROM claimed c)"};
// $1 email, $2 password hash, $3 'now', $4 the answer. The mail proved
// the address: email_verified_at is set when it was not.
const Statement kResetPassword{
    "password_reset_password",
    "WITH changed AS (UPDATE users SET password_hash = $2, updated_at = now(), "
    "             email_verified_at = COALESCE(email_verified_at, $3::timestamptz) "
    "           WHERE lower(email) = lower($1) AND is_active RETURNING id) "
    "SELECT id::text FROM changed u UNION ALL "
    "SELECT ca_refuse('CA400', $4) WHERE NOT EXISTS (SELECT 1 FROM changed u)"};
// $1 email. Every live session of the account, at once: tokens get 401
// from the next request on.
const Statement kResetRevokeSessions{
    "password_reset_revoke_sessions",
    "UPDATE sessions SET revoked_at = now() "
    "WHERE revoked_at IS NULL "
    "  AND user_id = (SELECT id FROM users WHERE lower(email) = lower($1))"};
// $1 email.
const Statement kResetMail{"password_reset_mail",
                           "INSERT INTO mails (tenant_id, kind, recipient) "
                           "VALUES (0, 'password_changed', $1)"};

// $1 email, $2 the request (audit_who()). The audit entry of the reset,
// user.password_reset, by and of the account: an account belongs to no
// tenant, so it is kept under tenant 0, as its mails are (sql/056,
// decision 0112).
const Statement kResetAudit{
    "password_reset_audit",
    "WITH " CA_AUDIT_CTE_AS("0", "$2",
        "SELECT 'user', u.id, u.name FROM users u WHERE lower(u.email) = lower($1)",
        "SELECT 'user.password_reset', 'user', u.id, NULL FROM users u "
        "WHERE lower(u.email) = lower($1)") " "
    "SELECT count(*) AS written FROM audit_entries"};

Error not_available() {
  return Error::not_found("Password reset is not available: this service sends no mail");
}

}  // namespace

std::string password_reset_token_generate() {
  unsigned char bytes[32];
  randombytes_buf(bytes, sizeof bytes);
  char text[sodium_base64_ENCODED_LEN(32, sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
  sodium_bin2base64(text, sizeof text, bytes, sizeof bytes,
                    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  return std::string(kPrefix) + text;
}

bool password_reset_token_well_formed(std::string_view token) {
  if (token.size() != kPrefix.size() + kSecretChars || token.substr(0, kPrefix.size()) != kPrefix) {
    return false;
  }
  for (char c : token.substr(kPrefix.size())) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string password_reset_token_hash(std::string_view token) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(token.data()), token.size());
  char hex[2 * crypto_hash_sha256_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string("\\x") + hex;
}

// Steps: validate (422); the email's request counted (one round trip);
// when allowed, the token and the mail (one more, one transaction). Nothing
// here reads users: the answer and the work are the same for every email.
Result<Response> password_forgot_handler(Ctx& ctx) {
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto email = in.str("email", {.required = true, .trim = true, .min = 3, .max = 254});
  if (email.has_value() && !email_plausible(email.value)) {
    errs.add("email", "The email field must be a valid email address.");
  }
  if (!errs.empty()) return Error::invalid(errs);
  const Config& cfg = ctx.config;
  if (!cfg.mail_enabled()) return not_available();

  DbResult counted = ctx.db.exec(kForgotCount, {email.value, cfg.password_forgot_max_per_email,
                                                cfg.password_forgot_window_seconds});
  if (!counted.ok()) return Error::database(counted.error());
  if (!counted->empty()) {
    std::string token = password_reset_token_generate();
    std::vector<DbResult> done = ctx.db.write_pipeline(
        {{&kForgotToken,
          {password_reset_token_hash(token), email.value, cfg.password_reset_ttl_seconds}},
         {&kForgotMail, {email.value, token, cfg.password_reset_ttl_seconds}}});
    for (DbResult& each : done) {
      if (!each.ok()) return Error::database(each.error());
    }
  }
  Json out = json_object();
  json_add_str(out.get(), "message", kForgotAnswer);
  return Response::json(202, out);
}

// Steps: validate (422); a malformed token is the 400 at once; the token's
// email (one round trip; none: the 400); a password slot (none free: 503)
// and the hash; the reset in one transaction (one round trip).
Result<Response> password_reset_handler(Ctx& ctx) {
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto token = in.str("token", {.required = true, .max = 200});
  auto password = in.str("password", {.required = true, .min = 8, .max = 1024});
  if (!errs.empty()) return Error::invalid(errs);
  if (!ctx.config.mail_enabled()) return not_available();
  if (!password_reset_token_well_formed(token.value)) return Error::bad_request(kInvalidToken);

  const std::string hash = password_reset_token_hash(token.value);
  DbResult found = ctx.db.exec(kResetFind, {hash});
  if (!found.ok()) return Error::database(found.error());
  if (found->empty()) return Error::bad_request(kInvalidToken);
  const std::string email = found->str(0, "email");

  if (client_gone(ctx.req)) return Error::client_closed("Client closed the request");
  std::optional<std::string> hashed;
  {
    std::optional<PasswordSlot> slot = PasswordSlot::try_take();
    if (!slot) return Error::unavailable("Too many password changes in progress; try again", 1);
    hashed = password_hash(password.value);
  }
  if (!hashed) return Error::internal("password hashing failed");

  std::vector<DbResult> done = ctx.db.write_pipeline({
      {&kResetClaim, {hash, kInvalidToken}},
      {&kResetPassword, {email, *hashed, "now", kInvalidToken}},
      {&kResetRevokeSessions, {email}},
      {&kResetMail, {email}},
      {&kResetAudit, {email, audit_who(ctx, Principal{})}},
  });
  for (DbResult& each : done) {
    if (!each.ok()) return Error::database(each.error());
  }
  Json out = json_object();
  json_add_str(out.get(), "message", "Password changed; every session was signed out");
  return Response::json(200, out);
}

}  // namespace ca
