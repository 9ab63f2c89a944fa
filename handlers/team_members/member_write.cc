// Role update and removal. Both run in a transaction that first locks the
// tenant row, so two admins demoting each other at once cannot leave the
// tenant without an ADMIN.
#include "audit.h"
#include "auth.h"
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

const Statement kLockTenant{"members_lock_tenant",
                            "SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE"};

const Statement kCallerIsAdmin{
    "members_caller_is_admin",
    "SELECT 1 FROM memberships WHERE tenant_id = $1 AND user_id = $2 AND role = 'ADMIN'"};

// The member record as JSON (docs/design/api-conventions.md "Team members", sql/030) of
// `memberships m JOIN users u`.
#define CA_MEMBER_JSON                                                              \
  "ca_member_json(tenant_id => m.tenant_id, user_id => m.user_id, role => m.role, " \
  "name => u.name, email => u.email) AS json"

// The target user's role (NULL when not a member) and member record, the
// record with the role $4 (`json_new`, NULL without one), the tenant's
// ADMIN count, and whether the caller ($3) is still an ADMIN now that the
// tenant is locked. No row when the user does not exist.
const Statement kTarget{
    "members_target",
    "SELECT m.role, " CA_MEMBER_JSON
    ", CASE WHEN $4::text IS NOT NULL THEN ca_member_json(tenant_id => $1, user_id => u.id, "
    "  role => $4::text, name => u.name, email => u.email) END AS json_new, "
    "  (SELECT count(*) FROM memberships a WHERE a.tenant_id = $1 AND a.role = 'ADMIN') "
    "    AS admins, "
    "  EXISTS (SELECT 1 FROM memberships c "
    "          WHERE c.tenant_id = $1 AND c.user_id = $3 AND c.role = 'ADMIN') "
    "    AS caller_is_admin "
    "FROM users u LEFT JOIN memberships m ON m.tenant_id = $1 AND m.user_id = u.id "
    "WHERE u.id = $2"};

const Statement kSetRole{"members_set_role",
                         "UPDATE memberships SET role = $3, updated_at = now() "
                         "WHERE tenant_id = $1 AND user_id = $2"};

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

struct Target {
  std::string role;
  std::string json;      // the member record, with `role`
  std::string json_new;  // the member record with the new role, if any
  int64_t admins = 0;
};

}  // namespace

Queries lock_tenant_as_admin(int64_t tenant_id, int64_t caller_id) {
  return Queries{{&kLockTenant, {tenant_id}}, {&kCallerIsAdmin, {tenant_id, caller_id}}};
}

Result<bool> still_admin(Sent& w, size_t first) {
  if (w.results[first + 1].rows().empty()) {
    return Error::forbidden("This action requires the ADMIN role");
  }
  return true;
}

namespace {

// The checks of a membership change, sent with the session check
// (common/request_tx.h): the tenant locked, then the target (`new_role` for the
// record it would have).
Queries target_checks(int64_t tenant_id, int64_t user_id, const Principal& who,
                      std::optional<std::string> new_role) {
  return Queries{{&kLockTenant, {tenant_id}},
                 {&kTarget, {tenant_id, user_id, who.user_id, std::move(new_role)}}};
}

// The target the checks loaded: 403 when the caller stopped being an ADMIN
// before the lock (a concurrent demotion), 404 no such user, 400 not a member.
Result<Target> read_target(Sent& w) {
  Rows& r = w.results[1].rows();
  if (r.empty()) return Error::not_found("User not found");
  if (!r.boolean(0, "caller_is_admin")) {
    return Error::forbidden("This action requires the ADMIN role");
  }
  if (r.is_null(0, "role")) return Error::bad_request("The user is not a member of this tenant");
  return Target{r.str(0, "role"), r.str(0, "json"), r.opt_str(0, "json_new").value_or(""),
                r.int64(0, "admins")};
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

  // Round trip 1: the session check, the tenant locked, the target. 2: the
  // change, its event, COMMIT.
  CA_TRY(w, send_first(ctx, access, [&](const Principal& who) {
           return target_checks(tenant_id, user_id, who, role.value);
         }));
  CA_TRY(target, read_target(w));
  if (target.role == role.value) {
    // The role it already has: a 200 that writes nothing and emits no event.
    return member_response(200, "Role updated", target.json);
  }
  if (target.role == "ADMIN" && role.value == "MEMBER" && target.admins <= 1) return last_admin();
  // Roles are ADMIN or MEMBER: nothing to escape.
  const std::string previous = "\"" + target.role + "\"";
  Json event = json_raw(json_object_with(target.json_new, {{"previous_role", previous}}));
  CA_TRY(done, send_last(ctx, {{&kSetRole, {tenant_id, user_id, role.value}},
                               event_query(tenant_id, "member.role_updated", event.get()),
                               audit_query(ctx, w.who, "member.role_updated", "member", user_id,
                                           audit_fields({"role"}))}));
  (void)done;
  return member_response(200, "Role updated", target.json_new);
}

Result<Response> members_remove(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t user_id = ctx.req.params[1];
  // Round trip 1: the session check, the tenant locked, the target, the
  // user locked and their next current tenant. 2: the removal, the current
  // tenant, the event, COMMIT. Two statements, not one: on Citus an UPDATE
  // of users (a reference table) may not read memberships (distributed).
  CA_TRY(w,
         send_first(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal& who) {
           Queries checks = target_checks(tenant_id, user_id, who, std::nullopt);
           checks.push_back({&kLockUser, {user_id}});
           checks.push_back({&kSequential, {}});
           checks.push_back({&kNextTenant, {tenant_id, user_id}});
           return checks;
         }));
  CA_TRY(target, read_target(w));
  if (target.role == "ADMIN" && target.admins <= 1) return last_admin();
  const std::optional<int64_t> next = w.results[4].rows().opt_int64(0, "next_tenant");
  CA_TRY(done,
         send_last(ctx, {{&kRemove, {tenant_id, user_id}},
                         {&kFallBack, {tenant_id, user_id, next}},
                         event_query(tenant_id, "member.removed", json_raw(target.json).get()),
                         audit_query(ctx, w.who, "member.removed", "member", user_id)}));
  (void)done;

  Json out = json_object();
  json_add_str(out.get(), "message", "Team member removed");
  return Response::json(200, out);
}

}  // namespace ca
