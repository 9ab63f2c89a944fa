#include "tenants.h"

#include "auth.h"
#include "db.h"
#include "error.h"
#include "settings.h"
#include "validate.h"

namespace ca {
namespace {

#define CA_TENANT_COLUMNS "t.id, t.name, t.settings::text, t.created_at, t.updated_at"

const Statement kList{"tenants_list",
                      "SELECT " CA_TENANT_COLUMNS
                      ", m.role FROM memberships m JOIN tenants t ON t.id = m.tenant_id "
                      "WHERE m.user_id = $1 ORDER BY t.id"};

// One statement, so tenant, membership and the user's current tenant change together.
const Statement kCreate{
    "tenants_create",
    "WITH t AS (INSERT INTO tenants (name) VALUES ($1) RETURNING *), "
    "m AS (INSERT INTO memberships (tenant_id, user_id, role) SELECT id, $2, 'ADMIN' FROM t), "
    "u AS (UPDATE users SET tenant_id = (SELECT id FROM t), updated_at = now() WHERE id = $2) "
    "SELECT " CA_TENANT_COLUMNS " FROM t"};

const Statement kRead{"tenants_read",
                      "SELECT " CA_TENANT_COLUMNS " FROM tenants t WHERE t.id = $1"};

const Statement kTimezoneExists{"tenants_timezone_exists",
                                "SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1)"};

// $2 name or NULL (keep), $3 keys to set, $4 keys to remove.
const Statement kUpdate{"tenants_update",
                        "UPDATE tenants t SET name = COALESCE($2, t.name), "
                        "  settings = (t.settings || $3::jsonb) - $4::text[], updated_at = now() "
                        "WHERE t.id = $1 RETURNING " CA_TENANT_COLUMNS};

Json tenant_json(const Rows& r, int row) {
  Json t = json_object();
  json_add_int(t.get(), "id", r.int64(row, 0));
  json_add_str(t.get(), "name", r.text(row, 1));
  Json settings = json_parse(r.text(row, 2));
  json_add(t.get(), "settings", settings ? std::move(settings) : json_object());
  json_add_str(t.get(), "created_at", r.text(row, 3));
  json_add_str(t.get(), "updated_at", r.text(row, 4));
  return t;
}

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

Result<Response> tenants_list(Ctx& ctx) {
  CA_TRY(who, authenticate(ctx));
  DbResult r = ctx.db.exec(kList, {who.user_id});
  if (!r.ok()) return Error::database(r.error());
  Json list = json_array();
  for (int i = 0; i < r->size(); ++i) {
    Json t = tenant_json(r.rows(), i);
    json_add_str(t.get(), "role", r->text(i, 5));
    json_append(list.get(), std::move(t));
  }
  Json out = json_object();
  json_add(out.get(), "tenants", std::move(list));
  return Response::json(200, out);
}

Result<Response> tenants_create(Ctx& ctx) {
  CA_TRY(who, authenticate(ctx));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto name = in.str("name", {.required = true, .trim = true, .max = 255});
  if (!errs.empty()) return Error::invalid(errs);
  DbResult r = ctx.db.exec(kCreate, {name.value, who.user_id});
  if (!r.ok()) return Error::database(r.error());
  return Response::json(201, tenant_json(r.rows(), 0));
}

Result<Response> tenants_read(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, id));
  (void)who;
  DbResult r = ctx.db.exec(kRead, {id});
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Tenant not found");
  return Response::json(200, tenant_json(r.rows(), 0));
}

Result<Response> tenants_update(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, id, Role::kAdmin));
  (void)who;
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto name = in.str("name", {.trim = true, .min = 1, .max = 255});
  auto settings = in.object("settings", {});
  if (!in.present("name") && !in.present("settings")) {
    errs.add("name", "The name field is required when settings is not present.");
  }
  SettingsPatch patch;
  if (settings.has_value()) settings_validate(settings.value, errs, &patch);
  if (!patch.timezone.empty() && !errs.has("settings.timezone")) {
    DbResult tz = ctx.db.exec(kTimezoneExists, {patch.timezone});
    if (!tz.ok()) return Error::database(tz.error());
    if (!tz->boolean(0, 0)) {
      errs.add("settings.timezone",
               "The settings.timezone field must be an IANA time zone such as Europe/Paris.");
    }
  }
  if (!errs.empty()) return Error::invalid(errs);

  std::string set = patch.set ? json_dump(patch.set.get()) : "{}";
  std::optional<std::string> new_name;
  if (name.has_value()) new_name = name.value;
  DbResult r = ctx.db.exec(kUpdate, {id, new_name, set, text_array(patch.remove)});
  // Settings over the size limit once merged are a 422 (common/error.cc).
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Tenant not found");
  return Response::json(200, tenant_json(r.rows(), 0));
}

}  // namespace ca
