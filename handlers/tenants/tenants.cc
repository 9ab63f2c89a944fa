#include "tenants.h"

#include <string>

#include "audit.h"
#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "membership_cap.h"
#include "page_rows.h"
#include "request_tx.h"
#include "settings.h"
#include "validate.h"

namespace ca {
namespace {

// The Tenant as JSON (docs/design/api-conventions.md "Tenants", sql/030), with the caller's role
// in the list of their tenants.
#define CA_TENANT_JSON_WITH(role)                                       \
  "ca_tenant_json(id => t.id, name => t.name, settings => t.settings, " \
  "created_at => t.created_at, updated_at => t.updated_at, role => " role ") AS json"
#define CA_TENANT_JSON CA_TENANT_JSON_WITH("NULL")

const Statement kList{"tenants_list",
                      "SELECT " CA_TENANT_JSON_WITH("m.role")
                      " FROM memberships m JOIN tenants t ON t.id = m.tenant_id "
                      "WHERE m.user_id = $1 ORDER BY t.id"};

// $1 the caller, $2 the cap, $3 the refusal's message. Raises CA422
// (Error::database(): 422 `limit`) when the caller has created $2 tenants
// already (sql/037's created_by), which rolls back the create sent after
// it (TENANTS_MAX_PER_USER; docs/decisions/0030-caps-on-what-users-and-
// tenants-grow.md). A statement of its own after the user's turn (taken
// by membership_cap_checks(), common/user_turn.h): its snapshot sees every
// create of the caller committed before. By tenants_created_by_idx.
const Statement kUnderCap{"tenants_under_cap",
                          "SELECT CASE WHEN count(*) >= $2::bigint THEN ca_refuse('CA422', $3) "
                          "END AS refused FROM tenants WHERE created_by = $1"};

// One statement, so tenant, membership and the user's current tenant change
// together. A plain insert, not one conditional on a count: on Citus an
// insert whose subquery reads a reference table takes an exclusive Citus
// lock of it after its own weaker one, and two such inserts at once
// deadlock.
const Statement kCreate{
    "tenants_create",
    "WITH created AS (INSERT INTO tenants (name, created_by) VALUES ($1, $2) RETURNING *), "
    "membership AS (INSERT INTO memberships (tenant_id, user_id, role) SELECT id, $2, 'ADMIN' FROM "
    "created t), "
    "current_tenant AS (UPDATE users SET tenant_id = (SELECT id FROM created t), updated_at = "
    "now() WHERE id = $2) "
    "SELECT " CA_TENANT_JSON " FROM created t"};

const Statement kRead{"tenants_read", "SELECT " CA_TENANT_JSON " FROM tenants t WHERE t.id = $1"};

const Statement kTimezoneExists{
    "tenants_timezone_exists",
    "SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS known"};

// $2 name or NULL (keep), $3 keys to set, $4 keys to remove, $5 the caller
// (audit_who()): one call of ca_tenant_update() (sql/064), the row before
// locked, the update and the audit entry tenant.updated, whose `changed`
// names `name` and each settings key as `settings.<key>` whose value
// differs between before and after. `json` NULL: no such tenant. On Citus
// the tenant's row is on its shard (sql/067), and Citus runs the call
// whole there (docs/decisions/0143-a-tenants-row-on-its-shard.md).
const Statement kUpdate{"tenants_update",
                        "SELECT json FROM ca_tenant_update(tenant_id => $1, name => $2::text, "
                        "settings_set => $3::jsonb, settings_remove => $4::text[], "
                        "who => $5::jsonb)"};

// A text[] literal of plain keys: each is quoted and escaped.
std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

}  // namespace

Result<Response> tenants_list(Ctx& ctx) { return own_list(ctx, kList, "tenants"); }

Result<Response> tenants_create(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> name;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    name = in.str("name", {.required = true, .trim = true, .max = 255});
  }
  if (!body.ok() || !errs.empty()) return refuse_before_write(ctx, Access::session(), body, errs);
  // The session check, the memberships cap (the creator becomes a member:
  // membership_cap.h, the user's turn first), the count of the tenants the
  // caller created and the insert: one round trip (common/request_tx.h).
  const std::string refusal = Error::limit_message(
      "tenants created per user", ctx.config.tenants_max_per_user, "TENANTS_MAX_PER_USER");
  CA_TRY(w, send_once(ctx, Access::session(), [&](const Principal& who) {
           Queries q = membership_cap_checks(who.user_id, std::nullopt,
                                             ctx.config.memberships_max_per_user);
           q.push_back({&kUnderCap, {who.user_id, ctx.config.tenants_max_per_user, refusal}});
           q.push_back({&kCreate, {name.value, who.user_id}});
           return q;
         }));
  const Rows& created = w.results.back().rows();
  return Response::json(201, json_rendered(created, 0));
}

Result<Response> tenants_read(Ctx& ctx) {
  CA_TRY(id, path_tenant_for(ctx));
  DbResult r = ctx.db.exec(kRead, {id});
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Tenant not found");
  return Response::json(200, json_rendered(r.rows(), 0));
}

Result<Response> tenants_update(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  const Access access = Access::path_tenant(id, Role::kAdmin);
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> name;
  SettingsPatch patch;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    name = in.str("name", {.trim = true, .min = 1, .max = 255});
    auto settings = in.object("settings", {});
    if (!in.present("name") && !in.present("settings")) {
      errs.add("name", "The name field is required when settings is not present.");
    }
    if (settings.has_value()) settings_validate(settings.value, errs, &patch);
  }
  // A time zone is a known one when PostgreSQL knows it; asked only when
  // the body sets one.
  const bool check_timezone = !patch.timezone.empty() && !errs.has("settings.timezone");
  auto timezone_known = [&](const Rows& tz) {
    if (tz.boolean(0, "known")) return true;
    errs.add("settings.timezone",
             "The settings.timezone field must be an IANA time zone such as Europe/Paris.");
    return false;
  };
  if (!body.ok() || !errs.empty()) {
    // The caller's 401/404/403 first; the time zone is reported with the
    // other fields (a round trip of its own, on this path only).
    if (!body.ok() || !check_timezone) return refuse_before_write(ctx, access, body, errs);
    CA_TRY(who, authenticate_for(ctx, access));
    (void)who;
    DbResult tz = ctx.db.exec(kTimezoneExists, {patch.timezone});
    if (!tz.ok()) return Error::database(tz.error());
    timezone_known(tz.rows());
    return Error::invalid(errs);
  }

  std::string set = patch.set ? json_dump(patch.set.get()) : "{}";
  std::optional<std::string> new_name;
  if (name.has_value()) new_name = name.value;
  auto update_by = [&](const Principal& who) {
    return Db::Query{&kUpdate, {id, new_name, set, text_array(patch.remove), audit_who(ctx, who)}};
  };
  std::vector<DbResult> done;
  if (!check_timezone) {
    // The session check and the call: one round trip, the pipeline's
    // implicit transaction (common/request_tx.h).
    CA_TRY(w,
           send_once(ctx, access, [&](const Principal& who) { return Queries{update_by(who)}; }));
    done = std::move(w.results);
  } else {
    // The time zone asked with the session check, then the call, a write of
    // its own: two round trips.
    CA_TRY(w, send_check(ctx, access, [&](const Principal&) {
             return Queries{{&kTimezoneExists, {patch.timezone}}};
           }));
    if (!timezone_known(w.results[0].rows())) return Error::invalid(errs);
    CA_TRY(written, send_call(ctx, {update_by(w.who)}));
    done = std::move(written);
  }
  // Settings over the size limit once merged are a 422 (common/error.cc).
  const Rows& r = done[0].rows();
  if (r.is_null(0, "json")) return Error::not_found("Tenant not found");
  return Response::json(200, json_rendered(r, 0));
}

}  // namespace ca
