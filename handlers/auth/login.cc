#include "login.h"

#include "auth.h"
#include "db.h"
#include "errors.h"
#include "password.h"
#include "user_json.h"
#include "validate.h"

namespace ca {
namespace {

const Statement kFindUser{"login_find_user", "SELECT u.password_hash, u.is_active, " CA_USER_COLUMNS
                                             " FROM users u WHERE lower(u.email) = lower($1)"};

// Emails and passwords are bounded so a login cannot be made to hash megabytes.
constexpr size_t kMaxEmail = 254;
constexpr size_t kMaxPassword = 1024;

}  // namespace

Response login_handler(Ctx& ctx) {
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto email = in.str("email", {.required = true, .trim = true, .max = kMaxEmail});
  auto password = in.str("password", {.required = true, .max = kMaxPassword});
  if (!errs.empty()) return errors::validation(errs);
  // A password check is ~0.5 s of CPU and 64 MiB. When the client has
  // already gone (a flood of abandoned logins, or a load test stopping with
  // requests still queued), it would be spent for nobody.
  if (client_gone(ctx.req)) return Response::error(499, "Client closed the request");

  DbResult r = ctx.db.exec(kFindUser, {email.value});
  if (!r.ok()) return errors::database(r.error());
  bool ok = r->empty() ? password_verify_dummy(password.value)
                       : password_verify(r->text(0, 0), password.value) && r->boolean(0, 1);
  if (!ok) return Response::error(401, "Invalid credentials");

  CA_TRY(token, issue_token(ctx, r->int64(0, 2)));
  Json out = json_object();
  json_add_str(out.get(), "token", token);
  json_add(out.get(), "user", user_json(r.rows(), 0, 2));
  return Response::json(200, out);
}

Response logout_handler(Ctx& ctx) {
  CA_TRY(who, authenticate(ctx));
  CA_TRY(revoked, revoke_session(ctx, who));
  (void)revoked;
  Json out = json_object();
  json_add_str(out.get(), "message", "Logged out");
  return Response::json(200, out);
}

}  // namespace ca
