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
#include "json_rendered.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// Each write is one call of a function of sql/062, which Citus runs whole on
// the tenant's worker (docs/decisions/0138-writes-are-delegated-calls.md):
// the write, the list version, the audit entry and, when it publishes, the
// event with its deliveries (ca_write_recorded(), sql/061). A create's id
// and an event's id come from the coordinator's sequences in the first send.
const Statement kCreateIds{"announcements_create_ids",
                           "SELECT nextval('announcements_id_seq') AS announcement_id, "
                           "nextval('events_id_seq') AS event_id"};
const Statement kEventId{"announcements_event_id", "SELECT nextval('events_id_seq') AS event_id"};

// $1 tenant, $2 id, $3 event id, $4..$23 the writable columns
// (announcement_params), $24 creator, $25 the caller (audit_who()).
const Statement kCreate{
    "announcements_create",
    "SELECT json FROM ca_announcement_create(tenant_id => $1, announcement_id => $2, event_id => "
    "$3, title => $4::text, summary => $5::text, content => $6::text, type => $7::text, priority "
    "=> $8::smallint, status => $9::text, is_push_enabled => $10::boolean, is_public => "
    "$11::boolean, scheduled_at => $12::timestamptz, expires_at => $13::timestamptz, topic => "
    "$14::text, push_title => $15::text, push_body => $16::text, push_data => $17::jsonb, "
    "target_type => $18::text, target_value => $19::text, push_status => $20::text, "
    "attachment_type => $21::text, attachment_url => $22::text, attachment_metadata => $23::jsonb, "
    "created_by => $24, who => $25::jsonb)"};

// The record to merge an update into, locked until the update commits (the
// worker's claims skip it meanwhile).
const Statement kLoadForUpdate{"announcements_load_for_update",
                               "SELECT " CA_ANNOUNCEMENT_FIELDS
                               " FROM announcements a "
                               "WHERE a.tenant_id = $1 AND a.id = $2 FOR UPDATE"};

// $1 tenant, $2 id, $3 event id, $4..$23 the writable columns
// (announcement_params), $24 true when it was not published (a published
// result writes its event), $25 the caller (audit_who()). The record was
// locked by the first send (kLoadForUpdate).
const Statement kUpdate{
    "announcements_update",
    "SELECT json FROM ca_announcement_update(tenant_id => $1, announcement_id => $2::bigint, "
    "event_id => $3, title => $4::text, summary => $5::text, content => $6::text, type => "
    "$7::text, priority => $8::smallint, status => $9::text, is_push_enabled => $10::boolean, "
    "is_public => $11::boolean, scheduled_at => $12::timestamptz, expires_at => $13::timestamptz, "
    "topic => $14::text, push_title => $15::text, push_body => $16::text, push_data => $17::jsonb, "
    "target_type => $18::text, target_value => $19::text, push_status => $20::text, "
    "attachment_type => $21::text, attachment_url => $22::text, attachment_metadata => $23::jsonb, "
    "was_unpublished => $24::boolean, who => $25::jsonb)"};

// Every status may move to archived; archiving again changes nothing. A push
// that has not gone out yet never will. $3 the caller (audit_who()).
const Statement kArchive{"announcements_archive",
                         "SELECT archived FROM ca_announcement_archive(tenant_id => $1, "
                         "announcement_id => $2::bigint, who => $3::jsonb)"};

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
  auto params_for = [&](const Principal& who, const Rows& ids) {
    std::vector<Param> params{who.tenant_id, ids.int64(0, "announcement_id"),
                              ids.int64(0, "event_id")};
    announcement_params(fields, &params);
    params.emplace_back(who.user_id);
    params.emplace_back(audit_who(ctx, who));
    return params;
  };
  if (fields.target_type == "users" && fields.target_value) {
    // The members check and the ids first, with the session check; the call
    // with COMMIT: two round trips (common/request_tx.h).
    CA_TRY(w, send_first(ctx, Access::tenant_header(), [&](const Principal& who) {
             return Queries{{&kTargetsAreMembers, {who.tenant_id, *fields.target_value}},
                            {&kCreateIds, {}}};
           }));
    if (!w.results[0].rows().boolean(0, "all_members")) {
      errs.add("target_value", kTargetsNotMembers);
      return Error::invalid(errs);
    }
    CA_TRY(done, send_last(ctx, {{&kCreate, params_for(w.who, w.results[1].rows())}}));
    return Response::success(201, "Announcement created", json_rendered(done[0].rows(), 0));
  }
  // The session check with the ids, then the call: two round trips.
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [](const Principal&) {
           return Queries{{&kCreateIds, {}}};
         }));
  CA_TRY(w, send_call(ctx, {{&kCreate, params_for(ids.who, ids.results[0].rows())}}));
  return Response::success(201, "Announcement created", json_rendered(w[0].rows(), 0));
}

Result<Response> announcements_update(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  Result<Json> body = parse_json_object(ctx.req);
  if (!body.ok()) return refuse_before_write(ctx, Access::tenant_header(), body);
  // The record locked with the session check; the update and its event
  // with COMMIT (common/request_tx.h).
  CA_TRY(w, send_first(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kLoadForUpdate, {who.tenant_id, id}}, {&kEventId, {}}};
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

  std::vector<Param> params{tenant_id, id, w.results[1].rows().int64(0, "event_id")};
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
  if (!w.results[0].rows().boolean(0, "archived")) {
    return Error::not_found("Announcement not found");
  }
  return Response::success(200, "Announcement archived");
}

}  // namespace ca
