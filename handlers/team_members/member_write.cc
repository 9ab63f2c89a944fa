// Role update and removal. Both run in a transaction that first locks the
// tenant row, so two admins demoting each other at once cannot leave the
// tenant without an ADMIN.
#include "auth.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "member_json.h"
#include "members.h"
#include "validate.h"

namespace ca {
namespace {

const Statement kLockTenant{"members_lock_tenant",
                            "SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE"};

const Statement kCallerIsAdmin{
    "members_caller_is_admin",
    "SELECT 1 FROM memberships WHERE tenant_id = $1 AND user_id = $2 AND role = 'ADMIN'"};

// Columns: name, email, current role (NULL when not a member), ADMIN count,
// and whether the caller ($3) is still an ADMIN now that the tenant is locked.
const Statement kTarget{
    "members_target",
    "SELECT u.name, u.email, m.role, "
    "  (SELECT count(*) FROM memberships a WHERE a.tenant_id = $1 AND a.role = 'ADMIN'), "
    "  EXISTS (SELECT 1 FROM memberships c "
    "          WHERE c.tenant_id = $1 AND c.user_id = $3 AND c.role = 'ADMIN') "
    "FROM users u LEFT JOIN memberships m ON m.tenant_id = $1 AND m.user_id = u.id "
    "WHERE u.id = $2"};

const Statement kSetRole{"members_set_role",
                         "UPDATE memberships SET role = $3, updated_at = now() "
                         "WHERE tenant_id = $1 AND user_id = $2"};

// Removes the link; the user's current tenant falls back to their newest other one.
const Statement kRemove{
    "members_remove",
    "WITH d AS (DELETE FROM memberships WHERE tenant_id = $1 AND user_id = $2 RETURNING user_id) "
    "UPDATE users u SET tenant_id = (SELECT m.tenant_id FROM memberships m "
    "    WHERE m.user_id = u.id AND m.tenant_id <> $1 ORDER BY m.created_at DESC LIMIT 1), "
    "  updated_at = now() "
    "WHERE u.id IN (SELECT user_id FROM d) AND u.tenant_id = $1"};

struct Target {
  std::string name;
  std::string email;
  std::string role;
  int64_t admins = 0;
};

}  // namespace

Result<bool> lock_tenant_as_admin(Ctx& ctx, int64_t tenant_id, int64_t caller_id) {
  DbResult lock = ctx.db.exec(kLockTenant, {tenant_id});
  if (!lock.ok()) return Error::database(lock.error());
  DbResult admin = ctx.db.exec(kCallerIsAdmin, {tenant_id, caller_id});
  if (!admin.ok()) return Error::database(admin.error());
  if (admin->empty()) return Error::forbidden("This action requires the ADMIN role");
  return true;
}

namespace {

// Locks the tenant and loads the target: 403 when the caller stopped being an
// ADMIN before the lock (a concurrent demotion), 404 no such user, 400 not a member.
Result<Target> load_target(Ctx& ctx, int64_t tenant_id, int64_t user_id, int64_t caller_id) {
  DbResult lock = ctx.db.exec(kLockTenant, {tenant_id});
  if (!lock.ok()) return Error::database(lock.error());
  DbResult r = ctx.db.exec(kTarget, {tenant_id, user_id, caller_id});
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("User not found");
  if (!r->boolean(0, 4)) return Error::forbidden("This action requires the ADMIN role");
  if (r->is_null(0, 2)) return Error::bad_request("The user is not a member of this tenant");
  return Target{r->str(0, 0), r->str(0, 1), r->str(0, 2), r->int64(0, 3)};
}

Error last_admin() { return Error::bad_request("A tenant must keep at least one ADMIN"); }

}  // namespace

Result<Response> members_update_role(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t user_id = ctx.req.params[1];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto role = in.str("role", {.required = true, .one_of = {"ADMIN", "MEMBER"}});
  if (!errs.empty()) return Error::invalid(errs);

  Transaction tx(ctx.db);
  if (!tx.began()) return Error::database(tx.begin_error());
  CA_TRY(target, load_target(ctx, tenant_id, user_id, who.user_id));
  if (target.role == role.value) {
    // The role it already has: a 200 that writes nothing and emits no event.
    return member_response(200, "Role updated", tenant_id, user_id, role.value, target.name,
                           target.email);
  }
  if (target.role == "ADMIN" && role.value == "MEMBER" && target.admins <= 1) return last_admin();
  DbResult set = ctx.db.exec(kSetRole, {tenant_id, user_id, role.value});
  if (!set.ok()) return Error::database(set.error());
  Json event = member_json(tenant_id, user_id, role.value, target.name, target.email);
  json_add_str(event.get(), "previous_role", target.role);
  DbResult emitted = emit_event(ctx.db, tenant_id, "member.role_updated", event.get());
  if (!emitted.ok()) return Error::database(emitted.error());
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());
  return member_response(200, "Role updated", tenant_id, user_id, role.value, target.name,
                         target.email);
}

Result<Response> members_remove(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  int64_t user_id = ctx.req.params[1];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));

  Transaction tx(ctx.db);
  if (!tx.began()) return Error::database(tx.begin_error());
  CA_TRY(target, load_target(ctx, tenant_id, user_id, who.user_id));
  if (target.role == "ADMIN" && target.admins <= 1) return last_admin();
  DbResult removed = ctx.db.exec(kRemove, {tenant_id, user_id});
  if (!removed.ok()) return Error::database(removed.error());
  Json event = member_json(tenant_id, user_id, target.role, target.name, target.email);
  DbResult emitted = emit_event(ctx.db, tenant_id, "member.removed", event.get());
  if (!emitted.ok()) return Error::database(emitted.error());
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());

  Json out = json_object();
  json_add_str(out.get(), "message", "Team member removed");
  return Response::json(200, out);
}

}  // namespace ca
