// Role update and removal. Both first take the tenant's member turn (a row
// of cap_locks on the tenant's shard, sql/064: as an invitation's create
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

// A removal's turn: the tenant's member turn, then whether the caller ($2)
// is still an ADMIN (ca_member_turn_as_admin(), sql/064; a role change
// takes it in its call).
const Statement kTurnAsAdmin{"members_turn_as_admin",
                             "SELECT ca_member_turn_as_admin(tenant_id => $1, "
                             "caller_id => $2::bigint) AS caller_is_admin"};

// The member record as JSON (docs/design/api-conventions.md "Team members", sql/030) of
// `memberships m JOIN users u`.
#define CA_MEMBER_JSON                                                              \
  "ca_member_json(tenant_id => m.tenant_id, user_id => m.user_id, role => m.role, " \
  "name => u.name, email => u.email) AS json"

// The target user's role (NULL when not a member) and member record, and
// the tenant's ADMIN count, read after the turn. No row when the user does
// not exist.
const Statement kTarget{
    "members_target",
    "SELECT m.role, " CA_MEMBER_JSON
    ", (SELECT count(*) FROM memberships a WHERE a.tenant_id = $1 AND a.role = 'ADMIN') "
    "    AS admins "
    "FROM users u LEFT JOIN memberships m ON m.tenant_id = $1 AND m.user_id = u.id "
    "WHERE u.id = $2"};

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
const Statement kEventId{"members_event_id", "SELECT nextval('events_id_seq') AS event_id"};
const Statement kRoleIds{"members_role_ids",
                         "SELECT nextval('events_id_seq') AS event_id, "
                         "ARRAY(SELECT nextval('webhook_deliveries_id_seq') "
                         "      FROM generate_series(1, $1::integer)) AS delivery_ids"};
const Statement kUpdateRole{
    "members_update_role",
    "SELECT outcome, json FROM ca_member_role_update(tenant_id => $1, user_id => $2::bigint, "
    "event_id => $3, delivery_ids => $4::bigint[], role => $5::text, caller_id => $6::bigint, "
    "who => $7::jsonb)"};

// For a removal, after the target: the user's row locked, so that changes
// of one user's memberships take turns (another removal, an accept, a
// tenant created, which all update the row), then, in a statement of its
// own (a snapshot taken after the lock), the tenant the user's current one
// falls back to when it is $1: their newest other membership, or NULL. The
// memberships of a user are on any shard (the one multi-shard read here;
// Citus refuses it as a subquery of an UPDATE of users, a reference table).
const Statement kLockUser{"members_lock_user",
                          "SELECT u.id FROM users u WHERE u.id = $1 FOR NO KEY UPDATE OF u"};
// On Citus, a reference table (users) may not be written in a transaction
// after a parallel read of a distributed table that refers to it
// (memberships): the read is made sequential (one connection per node) for
// this transaction. Only a setting on a single PostgreSQL.
const Statement kSequential{"members_sequential",
                            "SELECT set_config('citus.multi_shard_modify_mode', 'sequential', "
                            "true) AS mode"};
const Statement kNextTenant{"members_next_tenant",
                            "SELECT (SELECT m.tenant_id FROM memberships m "
                            "        WHERE m.user_id = $2 AND m.tenant_id <> $1 "
                            "        ORDER BY m.created_at DESC LIMIT 1) AS next_tenant"};

// Removes the link, routed by the tenant.
const Statement kRemove{"members_remove",
                        "DELETE FROM memberships WHERE tenant_id = $1 AND user_id = $2"};

// $3: the next current tenant read by kNextTenant (NULL: none), set only
// when the removed tenant was the user's current one.
const Statement kFallBack{"members_fall_back",
                          "UPDATE users SET tenant_id = $3, updated_at = now() "
                          "WHERE id = $2 AND tenant_id = $1"};

// A removal's audit entry and event member.removed (the record removed,
// $5) with its deliveries: ca_write_recorded() (sql/061), called on the
// coordinator inside the removal's transaction (which writes `users`, a
// reference table: every node, two-phase, whatever the rest does), each a
// plain INSERT ... VALUES on the tenant's worker. $2 the event's id, taken
// with the checks; $4 audit_who().
const Statement kRecorded{
    "members_removed_recorded",
    "SELECT ca_write_recorded(tenant_id => $1, event_id => $2, action => 'member.removed', "
    "target_type => 'member', target_id => $3, changed => NULL, who => $4::jsonb, "
    "event_type => 'member.removed', payload => $5::jsonb) AS recorded"};

struct Target {
  std::string role;
  std::string json;  // the member record, with `role`
  int64_t admins = 0;
};

// The turn and the target (results[0] and [1] of the checks): 403 when the
// caller stopped being an ADMIN before the turn (a concurrent demotion),
// 404 no such user, 400 not a member. A missing user is said first, as
// before.
Result<Target> read_target(Sent& w) {
  Rows& r = w.results[1].rows();
  if (r.empty()) return Error::not_found("User not found");
  if (!w.results[0].rows().boolean(0, "caller_is_admin")) {
    return Error::forbidden("This action requires the ADMIN role");
  }
  if (r.is_null(0, "role")) return Error::bad_request("The user is not a member of this tenant");
  return Target{r.str(0, "role"), r.str(0, "json"), r.int64(0, "admins")};
}

Error last_admin() { return Error::bad_request("A tenant must keep at least one ADMIN"); }

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
  const std::string outcome = r.str(0, "outcome");
  if (outcome == "no_user") return Error::not_found("User not found");
  if (outcome == "not_admin") return Error::forbidden("This action requires the ADMIN role");
  if (outcome == "not_member") return Error::bad_request("The user is not a member of this tenant");
  if (outcome == "last_admin") return last_admin();
  // `unchanged`, the role it already has: a 200 that wrote nothing and
  // emitted no event.
  return member_response(200, "Role updated", r.str(0, "json"));
}

Result<Response> members_remove(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t user_id = ctx.req.params[1];
  // Round trip 1: the session check, the tenant's member turn, the target,
  // the user locked, their next current tenant, the event's id. 2: the
  // removal, the current tenant, the audit entry and the event, COMMIT.
  // Two statements, not one: on Citus an UPDATE of users (a reference
  // table) may not read memberships (distributed).
  CA_TRY(
      w, send_first(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal& who) {
        Queries checks{{&kTurnAsAdmin, {tenant_id, who.user_id}}, {&kTarget, {tenant_id, user_id}}};
        checks.push_back({&kLockUser, {user_id}});
        checks.push_back({&kSequential, {}});
        checks.push_back({&kNextTenant, {tenant_id, user_id}});
        checks.push_back({&kEventId, {}});
        return checks;
      }));
  CA_TRY(target, read_target(w));
  if (target.role == "ADMIN" && target.admins <= 1) return last_admin();
  const std::optional<int64_t> next = w.results[4].rows().opt_int64(0, "next_tenant");
  CA_TRY(done, send_last(ctx, {{&kRemove, {tenant_id, user_id}},
                               {&kFallBack, {tenant_id, user_id, next}},
                               {&kRecorded,
                                {tenant_id, w.results[5].rows().int64(0, "event_id"), user_id,
                                 audit_who(ctx, w.who), target.json}}}));
  (void)done;

  Json out = json_object();
  json_add_str(out.get(), "message", "Team member removed");
  return Response::json(200, out);
}

}  // namespace ca
