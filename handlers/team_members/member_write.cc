// Role update and removal, each one call of a function run where the
// tenant's rows are (sql/064, sql/066). Both first take the tenant's member
// turn (a row of cap_locks on the tenant's shard: as an invitation's create
// does), so two admins demoting or removing each other at once cannot
// leave the tenant without an ADMIN.
#include "audit.h"
#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "json_rendered.h"
#include "member_json.h"
#include "members.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// A role change: the event's id from the coordinator's sequence with the
// session check (send_check(), send_call(): common/request_tx.h), then one
// call of ca_member_role_update() (sql/064), which Citus runs whole on the
// tenant's worker (docs/decisions/0140-member-and-key-writes-are-delegated-
// calls.md): the turn, the checks, the change, its event
// member.role_updated with its deliveries and its audit entry. $5 the
// caller's user id, $6 audit_who().
// The deliveries' ids too, one per live subscription the tenant may have
// ($1 WEBHOOKS_MAX_PER_TENANT; the spare ones unused): a delivery id taken
// on the worker would be of its range, above every later one of the
// coordinator's (ca_write_recorded_ids(), sql/064).
const Statement kRoleIds{"members_role_ids",
                         "SELECT nextval('events_id_seq') AS event_id, "
                         "ARRAY(SELECT nextval('webhook_deliveries_id_seq') "
                         "      FROM generate_series(1, $1::integer)) AS delivery_ids"};
const Statement kUpdateRole{
    "members_update_role",
    "SELECT outcome, json FROM ca_member_role_update(tenant_id => $1, user_id => $2::bigint, "
    "event_id => $3, delivery_ids => $4::bigint[], role => $5::text, caller_id => $6::bigint, "
    "who => $7::jsonb)"};

// A removal: the event's id from the coordinator's sequence with the
// session check, then one call of ca_member_remove() (sql/066), which Citus
// runs whole on the tenant's worker: the turn, the checks, the removal, its
// event member.removed with its deliveries and its audit entry. It writes
// nothing of `users`: the user's current tenant is answered at login
// (docs/decisions/0142-a-users-current-tenant-is-answered-at-login.md). $4
// the caller's user id, $5 audit_who().
const Statement kEventId{"members_event_id", "SELECT nextval('events_id_seq') AS event_id"};
const Statement kRemove{"members_remove",
                        "SELECT ca_member_remove(tenant_id => $1, user_id => $2::bigint, "
                        "event_id => $3, caller_id => $4::bigint, who => $5::jsonb) AS outcome"};

// A call's refusal (ca_member_role_update(), ca_member_remove()), in the
// order they judge them; nullopt for a write that went through.
std::optional<Error> refusal(const std::string& outcome) {
  if (outcome == "no_user") return Error::not_found("User not found");
  if (outcome == "not_admin") return Error::forbidden("This action requires the ADMIN role");
  if (outcome == "not_member") return Error::bad_request("The user is not a member of this tenant");
  if (outcome == "last_admin") return Error::bad_request("A tenant must keep at least one ADMIN");
  return std::nullopt;
}

}  // namespace

Result<Response> members_update_role(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t user_id = ctx.req.params[1];
  const Access access = Access::path_tenant(tenant_id, Role::kAdmin);
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> role;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    role = in.str("role", {.required = true, .one_of = {"ADMIN", "MEMBER"}});
  }
  if (!body.ok() || !errs.empty()) return refuse_before_write(ctx, access, body, errs);

  // Round trip 1: the session check, the event's and deliveries' ids. 2:
  // the call.
  CA_TRY(ids, send_check(ctx, access, [&](const Principal&) {
           return Queries{{&kRoleIds, {ctx.config.webhooks_max_per_tenant}}};
         }));
  const Rows& id_rows = ids.results[0].rows();
  CA_TRY(w, send_call(ctx, {{&kUpdateRole,
                             {tenant_id, user_id, id_rows.int64(0, "event_id"),
                              id_rows.str(0, "delivery_ids"), role.value, ids.who.user_id,
                              audit_who(ctx, ids.who)}}}));
  Rows& r = w[0].rows();
  if (std::optional<Error> refused = refusal(r.str(0, "outcome"))) return *refused;
  // `unchanged`, the role it already has: a 200 that wrote nothing and
  // emitted no event.
  return member_response(200, "Role updated", r.str(0, "json"));
}

Result<Response> members_remove(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t user_id = ctx.req.params[1];
  // Round trip 1: the session check and the event's id. 2: the call.
  CA_TRY(ids, send_check(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal&) {
           return Queries{{&kEventId, {}}};
         }));
  CA_TRY(w, send_call(ctx, {{&kRemove,
                             {tenant_id, user_id, ids.results[0].rows().int64(0, "event_id"),
                              ids.who.user_id, audit_who(ctx, ids.who)}}}));
  if (std::optional<Error> refused = refusal(w[0].rows().str(0, "outcome"))) return *refused;

  Json out = json_object();
  json_add_str(out.get(), "message", "Team member removed");
  return Response::json(200, out);
}

}  // namespace ca
