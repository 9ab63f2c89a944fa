// The caller's read record: mark read and dismiss (docs/openapi.yaml, tag
// Announcements). Each is one INSERT ... ON CONFLICT DO UPDATE (in
// ca_announcement_read(), sql/061), so concurrent calls of the same user
// converge on one row without errors, and only for an announcement of the
// caller's tenant.
#include "announcements.h"
#include "auth.h"
#include "db.h"
#include "error.h"
#include "request_tx.h"

namespace ca {
namespace {

// The record and the caller's read version: one call of
// ca_announcement_read() (sql/061), which Citus runs whole on the tenant's
// worker (docs/decisions/0138-writes-are-delegated-calls.md). The version
// moves when the record is new or, for a dismissal, was not dismissed yet:
// a read repeated moves nothing. $1 tenant, $2 announcement, $3 user.
const Statement kMarkRead{"announcements_mark_read",
                          "SELECT announcement_found FROM ca_announcement_read(tenant_id => $1, "
                          "announcement_id => $2::bigint, user_id => $3, dismiss => false)"};

// Dismissing also marks read; dismissed_at is the first dismissal.
const Statement kDismiss{"announcements_dismiss",
                         "SELECT announcement_found FROM ca_announcement_read(tenant_id => $1, "
                         "announcement_id => $2::bigint, user_id => $3, dismiss => true)"};

Result<Response> record(Ctx& ctx, const Statement& stmt, const char* message) {
  // The session check and the write: one round trip (common/request_tx.h).
  CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&stmt, {who.tenant_id, ctx.req.params[0], who.user_id}}};
         }));
  if (!w.results[0].rows().boolean(0, "announcement_found")) {
    return Error::not_found("Announcement not found");
  }
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
