#include "invitations.h"

#include <optional>
#include <string>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "invitation_token.h"
#include "json_rendered.h"
#include "member_json.h"
#include "members.h"
#include "page_rows.h"
#include "password.h"
#include "validate.h"
#include "write.h"

namespace ca {
namespace {

// The invitation as JSON (sql/030), for `invitations i`, with its id and
// status beside it. Reads show a pending invitation past its expiry as
// "expired"; RETURNING clauses show the stored status instead (Citus
// refuses now() there), which is what a row just written has.
#define CA_INVITATION_SHOWN_STATUS \
  "CASE WHEN i.status = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.status END"
#define CA_INVITATION_JSON_WITH(status) \
  "i.id, " status                       \
  " AS status, "                        \
  "ca_invitation_json(i.id, i.email, i.role, " status ", i.expires_at, i.created_at) AS json"
#define CA_INVITATION_JSON CA_INVITATION_JSON_WITH(CA_INVITATION_SHOWN_STATUS)
#define CA_INVITATION_STORED_JSON CA_INVITATION_JSON_WITH("i.status")

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
    "RETURNING " CA_INVITATION_STORED_JSON};

// The page and the total in one round trip, newest first.
const Statement kList{"invitations_list",
                      "WITH total AS (SELECT count(*) AS n FROM invitations WHERE tenant_id = $1), "
                      "page AS (SELECT i.created_at, " CA_INVITATION_JSON
                      "         FROM invitations i WHERE i.tenant_id = $1 "
                      "         ORDER BY i.created_at DESC, i.id DESC LIMIT $2 OFFSET $3) "
                      "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "
                      "ORDER BY page.created_at DESC, page.id DESC"};

// Revokes a pending (or expired) invitation of the tenant; `revoked`:
// whether this call revoked it. An accepted or revoked one comes back as it
// is; another tenant's id or an unknown one gives no row.
const Statement kRevoke{
    "invitations_revoke",
    "WITH r AS (UPDATE invitations i SET status = 'revoked', revoked_at = now() "
    "           WHERE i.tenant_id = $1 AND i.id = $2 AND i.status = 'pending' "
    "           RETURNING " CA_INVITATION_STORED_JSON
    ") "
    "SELECT true AS revoked, r.status, r.json FROM r "
    "UNION ALL "
    "SELECT false, " CA_INVITATION_SHOWN_STATUS
    ", ca_invitation_json(i.id, i.email, i.role, " CA_INVITATION_SHOWN_STATUS
    ", i.expires_at, i.created_at)"
    " FROM invitations i "
    "WHERE i.tenant_id = $1 AND i.id = $2 AND NOT EXISTS (SELECT 1 FROM r)"};

// $1 tenant, $2 invitation, $3 token hash. For the new-account path, before
// the password is hashed: whether the token is good and its email has no
// account yet. Only a hint; the accept itself checks again.
const Statement kAcceptable{
    "invitations_acceptable",
    "SELECT NOT EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(i.email)) "
    "  AS email_free "
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
// users.tenant_id. Returns the member record and the user.registered
// event's data ($4: who invited); no row when the user is a member already.
const Statement kJoin{
    "invitations_join",
    "WITH m AS (INSERT INTO memberships (tenant_id, user_id, role) VALUES ($1, $2, $3) "
    "           ON CONFLICT DO NOTHING RETURNING user_id) "
    "UPDATE users u SET tenant_id = $1, updated_at = now() "
    "WHERE u.id IN (SELECT user_id FROM m) "
    "RETURNING ca_member_json($1, u.id, $3, u.name, u.email) AS member, "
    "  ca_user_registered_json(u.id, u.name, u.email, $3, $4) AS event"};

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
  const Access access = Access::path_tenant(tenant_id, Role::kAdmin);
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> email, role;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    // 3..254 as the users table's CHECK: the account may be created from it.
    email = in.str("email", {.required = true, .trim = true, .min = 3, .max = 254});
    role = in.str("role", {.required = true, .one_of = {"ADMIN", "MEMBER"}});
    if (email.has_value() && !email_plausible(email.value)) {
      errs.add("email", "The email field must be a valid email address.");
    }
  }
  if (!body.ok() || !errs.empty()) {
    // A token, tenant or role refused comes before a bad body.
    CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
    (void)who;
    if (!body.ok()) return std::move(body.error());
    return Error::invalid(errs);
  }

  std::string secret = invitation_secret_generate();
  // Round trip 1: the session check, the tenant locked and the caller asked
  // again (one being demoted at this moment must not invite afterwards).
  // 2: the invitation, COMMIT.
  CA_TRY(w, WriteTx::begin(ctx, access, [&](const Principal& who) {
           return lock_tenant_as_admin(tenant_id, who.user_id);
         }));
  CA_TRY(admin, still_admin(w, 0));
  (void)admin;
  CA_TRY(done, w.commit({{&kCreate,
                          {tenant_id, email.value, role.value, invitation_secret_hash(secret),
                           w.who().user_id, ctx.config.invitation_ttl_seconds}}}));
  Rows& r = done[0].rows();
  if (r.empty()) return Error::conflict("The user is already a member of this tenant");

  Json out = json_object();
  json_add(out.get(), "invitation", json_rendered(r, 0));
  json_add_str(out.get(), "token", invitation_token_format(tenant_id, r.int64(0, "id"), secret));
  return Response::json(201, out);
}

Result<Response> invitations_list(Ctx& ctx) { return path_tenant_page(ctx, kList, Role::kAdmin); }

Result<Response> invitations_revoke(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t invitation_id = ctx.req.params[1];
  // The session check and the revoke: one round trip (common/write.h).
  CA_TRY(w, write_once(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal&) {
           return Queries{{&kRevoke, {tenant_id, invitation_id}}};
         }));
  Rows& r = w.results[0].rows();
  if (r.empty()) return Error::not_found("Invitation not found");
  // Revoking a revoked invitation again is the same success; an accepted
  // one is a membership now, which removal ends.
  if (!r.boolean(0, "revoked") && r.text(0, "status") == "accepted") {
    return Error::bad_request("The invitation has been accepted; remove the member instead");
  }
  Json out = json_object();
  json_add_str(out.get(), "message", "Invitation revoked");
  json_add(out.get(), "invitation", json_rendered(r, 0));
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
    if (acceptable->empty() || !acceptable->boolean(0, "email_free")) return invalid_invitation();
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
  const std::string role = claim->str(0, "role");
  const int64_t invited_by = claim->int64(0, "invited_by");

  int64_t user_id = 0;
  if (who) {
    user_id = who->user_id;
  } else {
    DbResult created =
        ctx.db.exec(kCreateUser, {name.value, claim->str(0, "email"), *password_hashed});
    if (!created.ok()) return Error::database(created.error());
    // An account with this email was made meanwhile: as for any bad token
    // (the transaction rolls back, so the invitation stays pending).
    if (created->empty()) return invalid_invitation();
    user_id = created->int64(0, "id");
  }
  DbResult joined = ctx.db.exec(kJoin, {tenant_id, user_id, role, invited_by});
  if (!joined.ok()) return Error::database(joined.error());
  if (joined->empty()) return Error::conflict("You are already a member of this tenant");

  Json event = json_rendered(joined.rows(), 0, joined->col("event"));
  DbResult emitted = emit_event(ctx.db, tenant_id, "user.registered", event.get());
  if (!emitted.ok()) return Error::database(emitted.error());
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());

  return member_response(201, "Invitation accepted", joined->text(0, "member"));
}

}  // namespace ca
