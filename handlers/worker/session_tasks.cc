// Removes expired sessions. A token outlives nothing past its session's
// expires_at (the session check refuses it, as it refuses a missing
// session), so the row is dead weight; without this task every login left
// one behind for ever, and the table the per-request session check reads
// grew without bound. Revoked sessions go too once they expire. The
// records of failed logins (sql/021) go too once they lock nothing.
#include "purge.h"
#include "tasks.h"

namespace ca {
namespace {

// One batch, oldest first, by sessions_expiry_idx. Rows another worker is
// deleting are skipped, not waited for. The ids go through an array so that
// the generic plan (Db forces generic plans) is index scans: `id IN
// (subquery)` may plan as a hash join over the whole table.
const Statement kPurgeExpired{
    "worker_sessions_purge_expired",
    "DELETE FROM sessions WHERE id = ANY (ARRAY(SELECT id FROM sessions WHERE expires_at <= "
    "now() ORDER BY expires_at " CA_PURGE_LIMIT " FOR UPDATE SKIP LOCKED))"};

// Failed-login records (sql/021) whose newest failure has left the window:
// they lock nothing any more. The same shape, by login_failures_expiry_idx.
const Statement kPurgeLoginFailures{
    "worker_login_failures_purge",
    "DELETE FROM login_failures WHERE email_key = ANY (ARRAY(SELECT email_key FROM "
    "login_failures WHERE expires_at <= now() ORDER BY expires_at " CA_PURGE_LIMIT
    " FOR UPDATE SKIP LOCKED))"};

// Password reset tokens past their expiry (used or not: either way they
// reset nothing any more), and per-email forgot-password records that
// limit nothing any more (sql/041). The same shape.
const Statement kPurgePasswordResets{
    "worker_password_resets_purge",
    "DELETE FROM password_resets WHERE token_hash = ANY (ARRAY(SELECT token_hash FROM "
    "password_resets WHERE expires_at <= now() ORDER BY expires_at " CA_PURGE_LIMIT
    " FOR UPDATE SKIP LOCKED))"};
const Statement kPurgeForgotRequests{
    "worker_password_forgot_requests_purge",
    "DELETE FROM password_forgot_requests WHERE email_key = ANY (ARRAY(SELECT email_key FROM "
    "password_forgot_requests WHERE expires_at <= now() ORDER BY expires_at " CA_PURGE_LIMIT
    " FOR UPDATE SKIP LOCKED))"};

}  // namespace

int task_purge_sessions(Db& db, const Config&) {
  int sessions = purge_all(db, kPurgeExpired, {}, "expired sessions");
  if (sessions < 0) return -1;
  int failures = purge_all(db, kPurgeLoginFailures, {}, "stale login failures");
  if (failures < 0) return -1;
  int resets = purge_all(db, kPurgePasswordResets, {}, "expired password reset tokens");
  if (resets < 0) return -1;
  int forgot = purge_all(db, kPurgeForgotRequests, {}, "stale forgot-password records");
  if (forgot < 0) return -1;
  return sessions + failures + resets + forgot;
}

}  // namespace ca
