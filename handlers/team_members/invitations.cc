#include "invitations.h"

#include <optional>
#include <string>
#include <vector>

#include "audit.h"
#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "invitation_token.h"
#include "json_rendered.h"
#include "member_json.h"
#include "members.h"
#include "membership_cap.h"
#include "page_rows.h"
#include "password.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// The invitation as JSON (sql/030), for `invitations i`, with its id and
// status beside it. Reads show a pending invitation past its expiry as
// "expired".
#define CA_INVITATION_SHOWN_STATUS \
  "CASE WHEN i.status = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.status END"
#define CA_INVITATION_JSON_WITH(status)                                                \
  "i.id, " status                                                                      \
  " AS status, "                                                                       \
  "ca_invitation_json(id => i.id, email => i.email, role => i.role, status => " status \
  ", expires_at => i.expires_at, created_at => i.created_at) AS json"
#define CA_INVITATION_JSON CA_INVITATION_JSON_WITH(CA_INVITATION_SHOWN_STATUS)

// A create: the invitation's id from the coordinator's sequence with the
// session check (send_check(), send_call(): common/request_tx.h), then one
// call of ca_invitation_create() (sql/064), which Citus runs whole on the
// tenant's worker (docs/decisions/0140-member-and-key-writes-are-delegated-
// calls.md): the tenant's turn at its invitations and at its members
// (cap_locks), the caller asked again (one being demoted at this moment
// must not invite afterwards), the pending invitations counted against $8
// INVITATIONS_MAX_PENDING_PER_TENANT
// (docs/decisions/0030-caps-on-what-users-and-tenants-grow.md), whether the
// email is a member already, then the invitation (a live pending one of
// the same email is revoked: the new one replaces it, so there is at most
// one per email, and a lost token or a changed role is fixed by inviting
// again), with mail configured the invitee's mail in the outbox holding
// the token ($9 its secret, docs/decisions/0098-invitations-by-mail.md),
// and the audit entry member.invited. $4 the token's hash, $5 the inviter,
// $7 the lifetime in seconds, $10 the caller (audit_who()).
const Statement kCreateId{"invitations_create_id", "SELECT nextval('invitations_id_seq') AS id"};
const Statement kCreate{
    "invitations_create",
    "SELECT outcome, json FROM ca_invitation_create(tenant_id => $1, invitation_id => $2, "
    "email => $3::text, role => $4::text, token_hash => $5::bytea, invited_by => $6::bigint, "
    "ttl_seconds => $7::bigint, pending_max => $8::bigint, mail_secret => $9::text, "
    "who => $10::jsonb)"};

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
// is; another tenant's id or an unknown one gives `json` NULL. With an entry
// invitation.revoked when this call revoked it: one call of
// ca_invitation_revoke() (sql/062), which Citus runs whole on the tenant's
// worker (docs/decisions/0138-writes-are-delegated-calls.md). $3 audit_who().
const Statement kRevoke{"invitations_revoke",
                        "SELECT revoked, status, json FROM ca_invitation_revoke(tenant_id => $1, "
                        "invitation_id => $2::bigint, who => $3::jsonb)"};

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

// The accept, one statement routed by the token's tenant ($1; every table
// of the tenant filtered by it, for Citus). $2 invitation, $3 token hash,
// $4 the accepting account (from its session; NULL: create one, named $5
// with password hash $6), $7 the answer to any token that cannot be
// accepted, $8 the answer when the account is a member already, $9 'now'
// when mail is configured (NULL otherwise), $10 the request (audit_who():
// the entry member.joined, whose actor is the account that joined).
//
// With mail ($9), the token travelled only to the invited mailbox, so
// accepting proves the address: the account gets email_verified_at
// (created, or joining with its bearer token), and on the create path an
// existing account of the email joins instead of a refusal that would say
// the email has one; its name and password stay, and its owner is told by
// mail (`joined_existing_account`).
//
// The single use is a conditional update (`accepted`): of two accepts of one token
// at once, the second waits for the first's row lock, then finds the row no
// longer pending. An existing account must have the invited email (`existing_user`); a
// new one is created with the tenant as its current one (`new_user`; none when an
// account with the email exists or is being created). Then the membership,
// the account's current tenant (the one place, with tenant creation by the
// user themselves, that sets users.tenant_id), the user.registered event and
// its deliveries. When the claim, the account or the membership failed, the
// statement raises (ca_refuse, CA400 or CA409: common/request_tx.h), so nothing
// of it stays and the invitation stays pending.
const Statement kAccept{
    "invitations_accept",
    "WITH accepted AS (UPDATE invitations i SET status = 'accepted', accepted_at = now() "
    "           WHERE i.tenant_id = $1 AND i.id = $2 AND i.token_hash = $3::bytea "
    "             AND i.status = 'pending' AND i.expires_at > now() "
    "           RETURNING i.email, i.role, i.invited_by), "
    "existing_user AS (SELECT u.id, u.name, u.email FROM users u JOIN accepted c ON lower(u.email) = lower(c.email) "
    "      WHERE u.id = $4::bigint OR ($4::bigint IS NULL AND $9::timestamptz IS NOT NULL)), "
    "new_user AS (INSERT INTO users (name, email, password_hash, tenant_id, email_verified_at) "
    "      SELECT $5, c.email, $6, $1, $9::timestamptz FROM accepted c "
    "      WHERE $4::bigint IS NULL AND NOT EXISTS (SELECT 1 FROM existing_user a) "
    "      ON CONFLICT (lower(email)) DO NOTHING RETURNING id, name, email), "
    "joining AS (SELECT id, name, email FROM existing_user a UNION ALL SELECT id, name, email FROM new_user n), "
    "membership AS (INSERT INTO memberships (tenant_id, user_id, role) SELECT $1, j.id, c.role FROM joining j, accepted c "
    "      ON CONFLICT DO NOTHING RETURNING user_id), "
    "current_tenant AS (UPDATE users u SET tenant_id = $1, updated_at = now(), "
    "          email_verified_at = COALESCE(u.email_verified_at, $9::timestamptz) FROM existing_user a, membership m "
    "        WHERE u.id = a.id AND m.user_id = a.id), "
    "told AS (INSERT INTO mails (tenant_id, kind, recipient, data) "
    "         SELECT $1, 'joined_existing_account', a.email, "
    "           jsonb_build_object('tenant_name', t.name, 'role', c.role) "
    "         FROM existing_user a, accepted c, membership m, tenants t WHERE $4::bigint IS NULL AND t.id = $1), "
    CA_AUDIT_CTE_AS("$1", "$10", "SELECT 'user', j.id, j.name FROM joining j",
        "SELECT 'member.joined', 'member', j.id, NULL FROM joining j, accepted c, membership m") ", "
    CA_EVENTS_CTE("$1",
        "SELECT $1::bigint, 'user.registered', "
        "ca_user_registered_json(user_id => j.id, name => j.name, email => j.email, "
        "  role => c.role, invited_by => c.invited_by)::jsonb "
        "FROM joining j, accepted c, membership m") " "
    "SELECT ca_member_json(tenant_id => $1, user_id => j.id, role => c.role, name => j.name, "
    "  email => j.email) AS member FROM joining j, accepted c, membership m "
    "UNION ALL "
    "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM joining j) THEN ca_refuse('CA400', $7) "
    "            ELSE ca_refuse('CA409', $8) END "
    "WHERE NOT EXISTS (SELECT 1 FROM membership m)"};

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
  if (!body.ok() || !errs.empty()) return refuse_before_write(ctx, access, body, errs);

  std::string secret = invitation_secret_generate();
  CA_TRY(ids, send_check(ctx, access, [](const Principal&) { return Queries{{&kCreateId, {}}}; }));
  const int64_t invitation_id = ids.results[0].rows().int64(0, "id");
  // With mail configured the token goes to the invitee's mailbox only (the
  // outbox row written with the invitation), never to the inviter.
  const bool mailed = ctx.config.mail_enabled();
  const int64_t max = ctx.config.invitations_max_pending_per_tenant;
  CA_TRY(done, send_call(ctx, {{&kCreate,
                                {tenant_id, invitation_id, email.value, role.value,
                                 invitation_secret_hash(secret), ids.who.user_id,
                                 ctx.config.invitation_ttl_seconds, max,
                                 mailed ? Param(secret) : Param(), audit_who(ctx, ids.who)}}}));
  Rows& r = done[0].rows();
  const std::string outcome = r.str(0, "outcome");
  if (outcome == "not_admin") return Error::forbidden("This action requires the ADMIN role");
  if (outcome == "limit") {
    return Error::limit_reached("pending invitations per tenant", max,
                                "INVITATIONS_MAX_PENDING_PER_TENANT");
  }
  if (outcome == "member") return Error::conflict("The user is already a member of this tenant");

  Json out = json_object();
  json_add(out.get(), "invitation", json_rendered(r, 0));
  if (!mailed) {
    json_add_str(out.get(), "token", invitation_token_format(tenant_id, invitation_id, secret));
  }
  return Response::json(201, out);
}

Result<Response> invitations_list(Ctx& ctx) { return path_tenant_page(ctx, kList, Role::kAdmin); }

Result<Response> invitations_revoke(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t invitation_id = ctx.req.params[1];
  // The session check and the revoke: one round trip (common/request_tx.h).
  CA_TRY(w, send_once(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal& who) {
           return Queries{{&kRevoke, {tenant_id, invitation_id, audit_who(ctx, who)}}};
         }));
  Rows& r = w.results[0].rows();
  if (r.is_null(0, "json")) return Error::not_found("Invitation not found");
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
  // With a bearer token it must be a live one (401 first, as everywhere:
  // the accept's session check, or the refusals' authenticate_for());
  // without one the account is to be created.
  const bool has_account = !ctx.req.authorization.empty();
  const Access access = has_account ? Access::session() : Access::anyone();
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> token, name, password;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    token = in.str("token", {.required = true, .max = kMaxTokenLength});
    // An existing account keeps its name and password: these are only read
    // when creating one. The rules are the CLI's `user create` (and login's).
    if (!has_account) {
      name = in.str("name", {.required = true, .trim = true, .min = 1, .max = 255});
      password = in.str("password", {.required = true, .min = 8, .max = 1024});
    }
  }
  if (!body.ok() || !errs.empty()) return refuse_before_write(ctx, access, body, errs);

  std::optional<InvitationToken> parsed = invitation_token_parse(token.value);
  if (!parsed) {
    CA_TRY(who, authenticate_for(ctx, access));
    (void)who;
    return invalid_invitation();
  }
  const std::string hash = invitation_secret_hash(parsed->secret);
  const int64_t tenant_id = parsed->tenant_id;

  std::optional<std::string> password_hashed;
  if (!has_account) {
    // Refuse a bad token, or an email that has an account, before the
    // costly hash (the accept checks both again).
    DbResult acceptable = ctx.db.exec(kAcceptable, {tenant_id, parsed->invitation_id, hash});
    if (!acceptable.ok()) return Error::database(acceptable.error());
    // With mail, an existing account joins instead (kAccept): the same
    // answer, after the same hash, whether the email has one or not.
    if (acceptable->empty() ||
        (!acceptable->boolean(0, "email_free") && !ctx.config.mail_enabled())) {
      return invalid_invitation();
    }
    if (client_gone(ctx.req)) return Error::client_closed("Client closed the request");
    password_hashed = password_hash(password.value);
    if (!password_hashed) return Error::internal("password hashing failed");
  }

  // An existing account: its session check, its memberships cap (the
  // tenants it belongs to besides this one; membership_cap.h) and the
  // accept, one round trip; a new one (no membership yet): the accept alone
  // (Access::anyone(), common/request_tx.h), after the check above. The
  // refusals come from the statements (the cap's 422, kAccept's).
  CA_TRY(w, send_once(ctx, access, [&](const Principal& who) {
           Queries q;
           if (has_account) {
             q = membership_cap_checks(who.user_id, tenant_id, ctx.config.memberships_max_per_user);
           }
           q.push_back(
               {&kAccept,
                {tenant_id, parsed->invitation_id, hash, has_account ? Param(who.user_id) : Param(),
                 has_account ? Param() : Param(name.value), password_hashed,
                 invalid_invitation().message, "You are already a member of this tenant",
                 ctx.config.mail_enabled() ? Param("now") : Param(), audit_who(ctx, who)}});
           return q;
         }));
  return member_response(201, "Invitation accepted", w.results.back().rows().text(0, "member"));
}

}  // namespace ca
