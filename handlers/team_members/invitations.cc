#include "invitations.h"

#include <optional>
#include <string>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "invitation_token.h"
#include "member_json.h"
#include "members.h"
#include "page_rows.h"
#include "password.h"
#include "validate.h"

namespace ca {
namespace {

// The invitation as every endpoint shows it: these columns, in this order,
// for `invitations i`, read by invitation_json(). A pending invitation past
// its expiry shows as "expired". RETURNING clauses use the stored status
// instead (Citus refuses now() there), which is what a row just written has.
#define CA_INVITATION_COLUMNS                                                              \
  "i.id, i.email, i.role, "                                                                \
  "CASE WHEN i.status = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.status " \
  "END AS status, i.expires_at, i.created_at"
#define CA_INVITATION_STORED_COLUMNS "i.id, i.email, i.role, i.status, i.expires_at, i.created_at"

Json invitation_json(const Rows& r, int row, int first) {
  Json out = json_object();
  json_add_int(out.get(), "id", r.int64(row, first));
  json_add_str(out.get(), "email", r.text(row, first + 1));
  json_add_str(out.get(), "role", r.text(row, first + 2));
  json_add_str(out.get(), "status", r.text(row, first + 3));
  json_add_str(out.get(), "expires_at", r.text(row, first + 4));
  json_add_str(out.get(), "created_at", r.text(row, first + 5));
  return out;
}

// $1 tenant, $2 email, $3 role, $4 token hash, $5 inviter, $6 lifetime in
// seconds. No row when the email is a member already. A live pending
// invitation of the same email is revoked: the new one replaces it (its
// token stops working), so there is at most one per email, and a lost
// token or a changed role is fixed by inviting again. The tenant row is
// locked by the caller, so two invites of one email cannot both replace.
const Statement kCreate{
    "invitations_create",
    "WITH replaced AS (UPDATE invitations SET status = 'revoked', revoked_at = now() "
    "    WHERE tenant_id = $1 AND lower(email) = lower($2) AND status = 'pending' "
    "      AND expires_at > now()) "
    "INSERT INTO invitations AS i (tenant_id, email, role, token_hash, invited_by, expires_at) "
    "SELECT $1, $2, $3, $4::bytea, $5, now() + make_interval(secs => $6) "
    "WHERE NOT EXISTS (SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id "
    "                  WHERE m.tenant_id = $1 AND lower(u.email) = lower($2)) "
    "RETURNING " CA_INVITATION_STORED_COLUMNS};

// The page and the total in one round trip, newest first.
const Statement kList{"invitations_list",
                      "WITH total AS (SELECT count(*) AS n FROM invitations WHERE tenant_id = $1), "
                      "page AS (SELECT " CA_INVITATION_COLUMNS
                      "         FROM invitations i WHERE i.tenant_id = $1 "
                      "         ORDER BY i.created_at DESC, i.id DESC LIMIT $2 OFFSET $3) "
                      "SELECT total.n, page.* FROM total LEFT JOIN page ON true "
                      "ORDER BY page.created_at DESC, page.id DESC"};

// Revokes a pending (or expired) invitation of the tenant; first column:
// whether this call revoked it. An accepted or revoked one comes back as it
// is; another tenant's id or an unknown one gives no row.
const Statement kRevoke{
    "invitations_revoke",
    "WITH r AS (UPDATE invitations i SET status = 'revoked', revoked_at = now() "
    "           WHERE i.tenant_id = $1 AND i.id = $2 AND i.status = 'pending' "
    "           RETURNING " CA_INVITATION_STORED_COLUMNS
    ") "
    "SELECT true, r.* FROM r "
    "UNION ALL "
    "SELECT false, " CA_INVITATION_COLUMNS
    " FROM invitations i "
    "WHERE i.tenant_id = $1 AND i.id = $2 AND NOT EXISTS (SELECT 1 FROM r)"};

// $1 tenant, $2 invitation, $3 token hash. For the new-account path, before
// the password is hashed: whether the token is good and its email has no
// account yet. Only a hint; the accept itself checks again.
const Statement kAcceptable{
    "invitations_acceptable",
    "SELECT NOT EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(i.email)) "
    "FROM invitations i "
    "WHERE i.tenant_id = $1 AND i.id = $2 AND i.token_hash = $3::bytea "
    "  AND i.status = 'pending' AND i.expires_at > now()"};

// The single use: a conditional update. Of two accepts of one token at once,
// the second waits for the first's row lock, then finds the row no longer
// pending and gets no row. $4 is the accepting account (its email must be
// the invited one), NULL when the account is being created.
const Statement kClaim{
    "invitations_claim",
    "UPDATE invitations i SET status = 'accepted', accepted_at = now() "
    "WHERE i.tenant_id = $1 AND i.id = $2 AND i.token_hash = $3::bytea "
    "  AND i.status = 'pending' AND i.expires_at > now() "
    "  AND ($4::bigint IS NULL "
    "       OR lower(i.email) = (SELECT lower(u.email) FROM users u WHERE u.id = $4)) "
    "RETURNING i.email, i.role, i.invited_by"};

// No row when an account with this email exists (or is being created).
const Statement kCreateUser{"invitations_create_user",
                            "INSERT INTO users (name, email, password_hash) VALUES ($1, $2, $3) "
                            "ON CONFLICT (lower(email)) DO NOTHING RETURNING id"};

// Adds the membership and makes this tenant the user's current one: the
// one place (with tenant creation, by the user themselves) that sets
// users.tenant_id. No row when the user is a member already.
const Statement kJoin{
    "invitations_join",
    "WITH m AS (INSERT INTO memberships (tenant_id, user_id, role) VALUES ($1, $2, $3) "
    "           ON CONFLICT DO NOTHING RETURNING user_id) "
    "UPDATE users u SET tenant_id = $1, updated_at = now() "
    "WHERE u.id IN (SELECT user_id FROM m) RETURNING u.name, u.email"};

constexpr size_t kMaxTokenLength = 200;

// One answer for every token that cannot be accepted: unknown, malformed,
// used, revoked, expired, for another account's email, or (creating an
// account) for an email that has one. Which of these it was is not said.
Error invalid_invitation() {
  return Error::bad_request("The invitation is invalid, used, revoked or expired");
}

}  // namespace

Result<Response> invitations_create(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  // 3..254 as the users table's CHECK: the account may be created from it.
  auto email = in.str("email", {.required = true, .trim = true, .min = 3, .max = 254});
  auto role = in.str("role", {.required = true, .one_of = {"ADMIN", "MEMBER"}});
  if (email.has_value() && !email_plausible(email.value)) {
    errs.add("email", "The email field must be a valid email address.");
  }
  if (!errs.empty()) return Error::invalid(errs);

  std::string secret = invitation_secret_generate();
  Transaction tx(ctx.db);
  if (!tx.began()) return Error::database(tx.begin_error());
  // One being demoted at this moment must not invite afterwards.
  CA_TRY(still_admin, lock_tenant_as_admin(ctx, tenant_id, who.user_id));
  (void)still_admin;
  DbResult r =
      ctx.db.exec(kCreate, {tenant_id, email.value, role.value, invitation_secret_hash(secret),
                            who.user_id, ctx.config.invitation_ttl_seconds});
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::conflict("The user is already a member of this tenant");
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());

  Json out = json_object();
  json_add(out.get(), "invitation", invitation_json(r.rows(), 0, 0));
  json_add_str(out.get(), "token", invitation_token_format(tenant_id, r->int64(0, 0), secret));
  return Response::json(201, out);
}

Result<Response> invitations_list(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  (void)who;
  CA_TRY(page, read_page_params(ctx.req, 15));
  DbResult r = ctx.db.exec(kList, {tenant_id, page.per_page, page.offset()});
  if (!r.ok()) return Error::database(r.error());
  return Response::json(200, paginated_rows(r.rows(), page, [](const Rows& rows, int i) {
                          return invitation_json(rows, i, 1);
                        }));
}

Result<Response> invitations_revoke(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t invitation_id = ctx.req.params[1];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  (void)who;
  DbResult r = ctx.db.exec(kRevoke, {tenant_id, invitation_id});
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Invitation not found");
  // Revoking a revoked invitation again is the same success; an accepted
  // one is a membership now, which removal ends.
  if (!r->boolean(0, 0) && r->text(0, 4) == "accepted") {
    return Error::bad_request("The invitation has been accepted; remove the member instead");
  }
  Json out = json_object();
  json_add_str(out.get(), "message", "Invitation revoked");
  json_add(out.get(), "invitation", invitation_json(r.rows(), 0, 1));
  return Response::json(200, out);
}

Result<Response> invitations_accept(Ctx& ctx) {
  // With a bearer token it must be a live one (401 first, as everywhere);
  // without one the account is to be created.
  std::optional<Principal> who;
  if (!ctx.req.authorization.empty()) {
    CA_TRY(caller, authenticate(ctx));
    who = std::move(caller);
  }
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto token = in.str("token", {.required = true, .max = kMaxTokenLength});
  Field<std::string> name, password;
  // An existing account keeps its name and password: these are only read
  // when creating one. The rules are the CLI's `user create` (and login's).
  if (!who) {
    name = in.str("name", {.required = true, .trim = true, .min = 1, .max = 255});
    password = in.str("password", {.required = true, .min = 8, .max = 1024});
  }
  if (!errs.empty()) return Error::invalid(errs);

  std::optional<InvitationToken> parsed = invitation_token_parse(token.value);
  if (!parsed) return invalid_invitation();
  const std::string hash = invitation_secret_hash(parsed->secret);
  const int64_t tenant_id = parsed->tenant_id;
  const std::vector<Param> key{tenant_id, parsed->invitation_id, hash};

  std::optional<std::string> password_hashed;
  if (!who) {
    // Refuse a bad token, or an email that has an account, before the
    // costly hash (the accept checks both again).
    DbResult acceptable = ctx.db.exec(kAcceptable, key);
    if (!acceptable.ok()) return Error::database(acceptable.error());
    if (acceptable->empty() || !acceptable->boolean(0, 0)) return invalid_invitation();
    if (client_gone(ctx.req)) return Error::client_closed("Client closed the request");
    password_hashed = password_hash(password.value);
    if (!password_hashed) return Error::internal("password hashing failed");
  }

  Transaction tx(ctx.db);
  if (!tx.began()) return Error::database(tx.begin_error());
  DbResult claim = ctx.db.exec(
      kClaim, {tenant_id, parsed->invitation_id, hash, who ? Param(who->user_id) : Param()});
  if (!claim.ok()) return Error::database(claim.error());
  if (claim->empty()) return invalid_invitation();
  const std::string role = claim->str(0, 1);
  const int64_t invited_by = claim->int64(0, 2);

  int64_t user_id = 0;
  if (who) {
    user_id = who->user_id;
  } else {
    DbResult created = ctx.db.exec(kCreateUser, {name.value, claim->str(0, 0), *password_hashed});
    if (!created.ok()) return Error::database(created.error());
    // An account with this email was made meanwhile: as for any bad token
    // (the transaction rolls back, so the invitation stays pending).
    if (created->empty()) return invalid_invitation();
    user_id = created->int64(0, 0);
  }
  DbResult joined = ctx.db.exec(kJoin, {tenant_id, user_id, role});
  if (!joined.ok()) return Error::database(joined.error());
  if (joined->empty()) return Error::conflict("You are already a member of this tenant");
  const std::string user_name = joined->str(0, 0);
  const std::string user_email = joined->str(0, 1);

  Json event = json_object();
  json_add_int(event.get(), "user_id", user_id);
  json_add_str(event.get(), "name", user_name);
  json_add_str(event.get(), "email", user_email);
  json_add_str(event.get(), "role", role);
  json_add_int(event.get(), "invited_by", invited_by);
  DbResult emitted = emit_event(ctx.db, tenant_id, "user.registered", event.get());
  if (!emitted.ok()) return Error::database(emitted.error());
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());

  return member_response(201, "Invitation accepted", tenant_id, user_id, role, user_name,
                         user_email);
}

}  // namespace ca
