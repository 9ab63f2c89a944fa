// Create, update and archive. A change that makes an announcement published
// writes `announcement.published` to the outbox in the same transaction.
// Each write statement also moves the tenant's active list version (`list_version`,
// announcement_list_versions: sql/019, sql/032), so that the handlers'
// kept copies of the list are not used again. It moves with every write of
// a row, whether or not what the list shows changed: a kept list read once
// more costs a round trip, a stale one would be wrong.
#include "announcement_input.h"
#include "announcement_json.h"
#include "announcements.h"
#include "audit.h"
#include "auth.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "json_rendered.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// $1 tenant, $2..$21 the writable columns (announcement_params), $22 creator,
// $23 the caller (audit_who()). The insert, its audit entry (audit.h) and,
// when it is published, its event: one statement (events.h).
const Statement kCreate{
    "announcements_create",
    "WITH created AS (INSERT INTO announcements (tenant_id, title, summary, content, type, priority, "
    "  status, is_push_enabled, is_public, scheduled_at, expires_at, topic, push_title, "
    "  push_body, push_data, target_type, target_value, push_status, attachment_type, "
    "  attachment_url, attachment_metadata, created_by, published_at) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz, $11::timestamptz, $12, $13, "
    "  $14, $15::jsonb, $16, $17, $18, $19, $20, $21::jsonb, $22, "
    "  CASE WHEN $7 = 'published' THEN now() END) RETURNING *), "
    "list_version AS (INSERT INTO announcement_list_versions AS v (tenant_id, version) "
    "  SELECT $1, 1 FROM created a ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1), "
    "rendered AS (SELECT " CA_ANNOUNCEMENT_JSON ", a.id, a.tenant_id, a.status "
    "  FROM created a JOIN users u ON u.id = a.created_by), "
    CA_AUDIT_CTE("$1", "$23",
        "SELECT 'announcement.created', 'announcement', r.id, NULL FROM rendered r") ", "
    CA_AUDITED_EVENTS_CTE("$1",
        "SELECT r.tenant_id, 'announcement.published', r.json::jsonb FROM rendered r "
        "WHERE r.status = 'published'") " "
    "SELECT r.json FROM rendered r"};

// The fields of an announcement an update may change (the audit entry's
// `changed` names those whose value differs).
#define CA_ANNOUNCEMENT_WRITABLE                                                          \
  "'{title,summary,content,type,priority,status,is_push_enabled,is_public,scheduled_at,"  \
  "expires_at,topic,push_title,push_body,push_data,target_type,target_value,push_status," \
  "attachment_type,attachment_url,attachment_metadata}'"

// The record to merge an update into, locked until the update commits (the
// worker's claims skip it meanwhile).
const Statement kLoadForUpdate{"announcements_load_for_update",
                               "SELECT " CA_ANNOUNCEMENT_FIELDS
                               " FROM announcements a "
                               "WHERE a.tenant_id = $1 AND a.id = $2 FOR UPDATE"};

// $1 tenant, $2 id, $3..$22 the writable columns (announcement_params), $23
// true when it was not published: a published result writes its event; $24
// the caller (audit_who()). `previous` is the record before, for the audit entry's
// `changed` (locked since the first round trip; the update joins it, so
// it is read first on Citus too, where a CTE may run as a step of its own).
// ca_pick (sql/033) rather than CASE around now(), which Citus refuses.
const Statement kUpdate{
    "announcements_update",
    "WITH previous AS (SELECT a.id AS id_before, " CA_ANNOUNCEMENT_JSON " FROM announcements a "
    "  JOIN users u ON u.id = a.created_by WHERE a.tenant_id = $1 AND a.id = $2 "
    "  FOR UPDATE OF a), "
    "updated AS (UPDATE announcements SET title = $3, summary = $4, content = $5, type = $6, "
    "  priority = $7, status = $8, is_push_enabled = $9, is_public = $10, "
    "  scheduled_at = $11::timestamptz, expires_at = $12::timestamptz, topic = $13, "
    "  push_title = $14, push_body = $15, push_data = $16::jsonb, target_type = $17, "
    "  target_value = $18, push_status = $19, attachment_type = $20, attachment_url = $21, "
    "  attachment_metadata = $22::jsonb, "
    "  published_at = ca_pick($8 = 'published' AND status <> 'published', now(), "
    "                         published_at), "
    "  updated_at = now() "
    "FROM previous o WHERE tenant_id = $1 AND id = o.id_before RETURNING announcements.*), "
    "list_version AS (INSERT INTO announcement_list_versions AS v (tenant_id, version) "
    "  SELECT $1, 1 FROM updated a ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1), "
    "rendered AS (SELECT " CA_ANNOUNCEMENT_JSON ", a.id, a.tenant_id, a.status "
    "  FROM updated a JOIN users u ON u.id = a.created_by), "
    CA_AUDIT_CTE("$1", "$24",
        "SELECT 'announcement.updated', 'announcement', r.id, "
        "  ca_changed(o.json::jsonb, r.json::jsonb, " CA_ANNOUNCEMENT_WRITABLE ") FROM rendered r, previous o") ", "
    CA_AUDITED_EVENTS_CTE("$1",
        "SELECT r.tenant_id, 'announcement.published', r.json::jsonb FROM rendered r "
        "WHERE $23::boolean AND r.status = 'published'") " "
    "SELECT r.json FROM rendered r"};

// Every status may move to archived; archiving again changes nothing. A push
// that has not gone out yet never will. $3 the caller (audit_who()). `previous`,
// the row before, locked first (the update joins it): the audit entry's
// `changed` ([] when it was archived already).
const Statement kArchive{
    "announcements_archive",
    "WITH previous AS (SELECT id AS archived_id, status AS status_before, "
    "  push_status AS push_status_before FROM announcements "
    "  WHERE tenant_id = $1 AND id = $2 FOR UPDATE), "
    "archived AS (UPDATE announcements SET status = 'archived', "
    "  push_status = CASE WHEN push_status = 'pending' THEN 'skipped' ELSE push_status END, "
    "  updated_at = ca_pick(status = 'archived', updated_at, now()) "
    "FROM previous o WHERE tenant_id = $1 AND id = o.archived_id "
    "RETURNING id, status, push_status, o.status_before, o.push_status_before), "
    CA_AUDIT_CTE("$1", "$3",
        "SELECT 'announcement.archived', 'announcement', a.id, ca_changed("
        "  jsonb_build_object('status', a.status_before, 'push_status', a.push_status_before), "
        "  jsonb_build_object('status', a.status, 'push_status', a.push_status), "
        "  '{status,push_status}') FROM archived a") ", "
    "list_version AS (INSERT INTO announcement_list_versions AS v (tenant_id, version) "
    "  SELECT $1, 1 FROM archived a ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1) "
    "SELECT id FROM archived a"};

// Every user id of a `users` target must be a member of the tenant: a push
// must not reach people outside it.
const Statement kTargetsAreMembers{
    "announcements_targets_are_members",
    "SELECT NOT EXISTS (SELECT 1 FROM unnest(string_to_array($2, ',')::bigint[]) AS t (id) "
    "  WHERE NOT EXISTS (SELECT 1 FROM memberships m WHERE m.tenant_id = $1 AND m.user_id = "
    "t.id)) AS all_members"};

constexpr const char* kTargetsNotMembers =
    "The target_value field must list members of this tenant.";

Result<bool> check_targets(Ctx& ctx, int64_t tenant_id, const AnnouncementFields& fields,
                           FieldErrors& errs) {
  if (fields.target_type != "users" || !fields.target_value || errs.has("target_value")) {
    return true;
  }
  DbResult r = ctx.db.exec(kTargetsAreMembers, {tenant_id, *fields.target_value});
  if (!r.ok()) return Error::database(r.error());
  if (!r->boolean(0, "all_members")) {
    errs.add("target_value", kTargetsNotMembers);
  }
  return true;
}

}  // namespace

Result<Response> announcements_create(Ctx& ctx) {
  Result<Json> body = parse_json_object(ctx.req);
  if (!body.ok()) return refuse_before_write(ctx, Access::tenant_header(), body);
  FieldErrors errs;
  AnnouncementFields fields;
  announcement_read_body(body->get(), InputMode::kCreate, &fields, errs);
  announcement_check(body->get(), "", "pending", &fields, errs);
  if (!errs.empty()) {
    CA_TRY(who, authenticate_tenant_header(ctx));
    CA_TRY(targets_checked, check_targets(ctx, who.tenant_id, fields, errs));
    (void)targets_checked;
    return Error::invalid(errs);
  }
  auto params_for = [&](const Principal& who) {
    std::vector<Param> params{who.tenant_id};
    announcement_params(fields, &params);
    params.emplace_back(who.user_id);
    params.emplace_back(audit_who(ctx, who));
    return params;
  };
  if (fields.target_type == "users" && fields.target_value) {
    // The members check first, with the session check; the insert with
    // COMMIT: two round trips (common/request_tx.h).
    CA_TRY(w, send_first(ctx, Access::tenant_header(), [&](const Principal& who) {
             return Queries{{&kTargetsAreMembers, {who.tenant_id, *fields.target_value}}};
           }));
    if (!w.results[0].rows().boolean(0, "all_members")) {
      errs.add("target_value", kTargetsNotMembers);
      return Error::invalid(errs);
    }
    CA_TRY(done, send_last(ctx, {{&kCreate, params_for(w.who)}}));
    return Response::success(201, "Announcement created", json_rendered(done[0].rows(), 0));
  }
  // The session check, the insert and its event: one round trip.
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kCreate, params_for(who)}};
         }));
  return Response::success(201, "Announcement created", json_rendered(w.results[0].rows(), 0));
}

Result<Response> announcements_update(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  Result<Json> body = parse_json_object(ctx.req);
  if (!body.ok()) return refuse_before_write(ctx, Access::tenant_header(), body);
  // The record locked with the session check; the update and its event
  // with COMMIT (common/request_tx.h).
  CA_TRY(w, send_first(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kLoadForUpdate, {who.tenant_id, id}}};
         }));
  const int64_t tenant_id = w.who.tenant_id;
  FieldErrors errs;
  const Rows& current = w.results[0].rows();
  if (current.empty()) {
    // Validation comes before existence (docs/design/api-conventions.md): a bad body is a
    // 422 even here.
    AnnouncementFields ignored;
    announcement_read_body(body->get(), InputMode::kUpdate, &ignored, errs);
    if (!errs.empty()) return Error::invalid(errs);
    return Error::not_found("Announcement not found");
  }
  AnnouncementFields fields = announcement_fields_from_row(current, 0);
  const std::string previous_status = fields.status;
  const std::string previous_push_status = fields.push_status;
  announcement_read_body(body->get(), InputMode::kUpdate, &fields, errs);
  announcement_check(body->get(), previous_status, previous_push_status, &fields, errs);
  // In the open transaction: a round trip more, only for a users target.
  CA_TRY(targets_checked, check_targets(ctx, tenant_id, fields, errs));
  (void)targets_checked;
  if (!errs.empty()) return Error::invalid(errs);

  std::vector<Param> params{tenant_id, id};
  announcement_params(fields, &params);
  params.emplace_back(previous_status != "published");
  params.emplace_back(audit_who(ctx, w.who));
  CA_TRY(done, send_last(ctx, {{&kUpdate, params}}));
  return Response::success(200, "Announcement updated", json_rendered(done[0].rows(), 0));
}

Result<Response> announcements_archive(Ctx& ctx) {
  // The session check and the archiving: one round trip (common/request_tx.h).
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kArchive, {who.tenant_id, ctx.req.params[0], audit_who(ctx, who)}}};
         }));
  if (w.results[0].rows().empty()) return Error::not_found("Announcement not found");
  return Response::success(200, "Announcement archived");
}

}  // namespace ca
