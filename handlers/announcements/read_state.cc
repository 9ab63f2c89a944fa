// The caller's read record: mark read and dismiss (SPEC "Announcement read
// state"). Each is one INSERT ... ON CONFLICT DO UPDATE, so concurrent calls
// of the same user converge on one row without errors, and the SELECT inside
// it limits both to announcements of the caller's tenant.
#include "announcements.h"
#include "auth.h"
#include "db.h"
#include "error.h"
#include "write.h"

namespace ca {
namespace {

// read_at is the first read; marking read again keeps it.
const Statement kMarkRead{
    "announcements_mark_read",
    "INSERT INTO announcement_reads AS r (tenant_id, announcement_id, user_id) "
    "SELECT a.tenant_id, a.id, $3 FROM announcements a WHERE a.tenant_id = $1 AND a.id = $2 "
    "ON CONFLICT (tenant_id, announcement_id, user_id) DO UPDATE SET updated_at = now() "
    "RETURNING 1"};

// Dismissing also marks read; dismissed_at is the first dismissal.
const Statement kDismiss{
    "announcements_dismiss",
    "INSERT INTO announcement_reads AS r "
    "  (tenant_id, announcement_id, user_id, dismissed, dismissed_at) "
    "SELECT a.tenant_id, a.id, $3, true, now() FROM announcements a "
    "WHERE a.tenant_id = $1 AND a.id = $2 "
    "ON CONFLICT (tenant_id, announcement_id, user_id) DO UPDATE "
    "SET dismissed = true, dismissed_at = COALESCE(r.dismissed_at, now()), updated_at = now() "
    "RETURNING 1"};

Result<Response> record(Ctx& ctx, const Statement& stmt, const char* message) {
  // The session check and the write: one round trip (common/write.h).
  CA_TRY(w, write_once(ctx, Access::tenant_header(), [&](const Principal& who) {
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
