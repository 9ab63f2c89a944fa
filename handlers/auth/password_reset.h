// Password reset by mail (issue 37; docs/decisions/0099-password-reset.md).
//
// POST /api/v2/admin/password/forgot {email}: 202 {message}, the same body
// and the same statements whether or not an account has the email (the
// worker, not the request, skips the mail of an email without an active
// account). Past PASSWORD_FORGOT_MAX_PER_EMAIL requests of one email in
// PASSWORD_FORGOT_WINDOW_SECONDS nothing more is written (the same 202).
//
// POST /api/v2/admin/password/reset {token, password}: 200 {message}; the
// password changes, every session of the account is revoked and a
// "password changed" mail goes out, in one transaction. Any token that
// cannot reset (malformed, unknown, used, expired, its account gone or
// inactive): one and the same 400 {error}.
//
// Tokens: `pwr_` + 43 base64url characters (32 random bytes); only SHA-256
// of the whole token is stored (password_resets, sql/041), valid
// PASSWORD_RESET_TTL_SECONDS, single use. Without mail configured both
// routes answer 404: the token could reach nobody.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "router.h"

namespace ca {

Result<Response> password_forgot_handler(Ctx& ctx);
Result<Response> password_reset_handler(Ctx& ctx);

// A new token (`pwr_` + 43 base64url characters).
std::string password_reset_token_generate();
// Whether `token` has the form of one (the prefix and 43 base64url characters).
bool password_reset_token_well_formed(std::string_view token);
// SHA-256 of the token as a bytea parameter in text form ("\x" + 64 hex digits).
std::string password_reset_token_hash(std::string_view token);

}  // namespace ca
