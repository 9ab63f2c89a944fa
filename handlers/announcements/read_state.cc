// The caller's read record: mark read and dismiss (docs/openapi.yaml, tag
// Announcements). Each is one INSERT ... ON CONFLICT DO UPDATE, so concurrent calls
// of the same user converge on one row without errors, and the SELECT inside
// it limits both to announcements of the caller's tenant.
#include "announcements.h"
#include "auth.h"
#include "db.h"
#include "error.h"
#include "request_tx.h"

namespace ca {
namespace {

// Each statement also moves the caller's read version in the tenant
// (announcement_read_versions: sql/019, sql/032) when the record is new or,
// for a dismissal, was not dismissed yet: a read repeated moves nothing.
// The record itself says which (`moved`): a new one has created_at =
// updated_at, a new dismissal dismissed_at = updated_at, all three being
// this transaction's now() (a repeat keeps created_at and dismissed_at and
// moves updated_at). Not a read of the record before the write: Citus runs
// an INSERT CTE as a step of its own before the others, which would then see
// the record written. Two transactions starting in the same microsecond
// could take a repeat for a new record: the version moves once more, which
// costs a kept list one more read, never a stale one. $1 tenant, $2
// announcement, $3 user.
#define CA_READ_VERSION_MOVED                                                                   \
  "read_version AS (INSERT INTO announcement_read_versions AS v (tenant_id, user_id, version) " \
  "  SELECT $1, $3, 1 FROM read_record r WHERE r.moved "                                        \
  "  ON CONFLICT (tenant_id, user_id) DO UPDATE SET version = v.version + 1) "

// read_at is the first read; marking read again keeps it.
const Statement kMarkRead{
    "announcements_mark_read",
    "WITH read_record AS (INSERT INTO announcement_reads AS r (tenant_id, announcement_id, "
    "user_id) "
    "SELECT a.tenant_id, a.id, $3 FROM announcements a WHERE a.tenant_id = $1 AND a.id = $2 "
    "ON CONFLICT (tenant_id, announcement_id, user_id) DO UPDATE SET updated_at = "
    "EXCLUDED.updated_at "
    "RETURNING r.created_at = r.updated_at AS moved), " CA_READ_VERSION_MOVED
    "SELECT 1 FROM read_record r"};

// Dismissing also marks read; dismissed_at is the first dismissal.
const Statement kDismiss{
    "announcements_dismiss",
    "WITH read_record AS (INSERT INTO announcement_reads AS r "
    "  (tenant_id, announcement_id, user_id, dismissed, dismissed_at) "
    "SELECT a.tenant_id, a.id, $3, true, now() FROM announcements a "
    "WHERE a.tenant_id = $1 AND a.id = $2 "
    "ON CONFLICT (tenant_id, announcement_id, user_id) DO UPDATE "
    "SET dismissed = true, dismissed_at = COALESCE(r.dismissed_at, EXCLUDED.dismissed_at), "
    "  updated_at = EXCLUDED.updated_at "
    "RETURNING r.dismissed_at = r.updated_at AS moved), " CA_READ_VERSION_MOVED
    "SELECT 1 FROM read_record r"};

Result<Response> record(Ctx& ctx, const Statement& stmt, const char* message) {
  // The session check and the write: one round trip (common/request_tx.h).
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&stmt, {who.tenant_id, ctx.req.params[0], who.user_id}}};
         }));
  if (w.results[0].rows().empty()) return Error::not_found("Announcement not found");
  return Response::success(200, message);
}

}  // namespace

Result<Response> announcements_mark_read(Ctx& ctx) {
  return record(ctx, kMarkRead, "Announcement marked as read");
}

Result<Response> announcements_dismiss(Ctx& ctx) {
  return record(ctx, kDismiss, "Announcement dismissed");
}

}  // namespace ca
