// Removes expired sessions. A token outlives nothing past its session's
// expires_at (the session check refuses it, as it refuses a missing
// session), so the row is dead weight; without this task every login left
// one behind for ever, and the table the per-request session check reads
// grew without bound. Revoked sessions go too once they expire.
#include "log.h"
#include "tasks.h"

namespace ca {
namespace {

constexpr int64_t kPurgeBatch = 1000;  // the LIMIT in kPurgeExpired
constexpr int kPurgeMaxPerPass = 20000;

// One batch, oldest first, by sessions_expiry_idx. Rows another worker is
// deleting are skipped, not waited for. The ids go through an array and the
// limit is a constant so that the generic plan (Db forces generic plans) is
// index scans: `id IN (subquery)` with `LIMIT $1` may plan as a hash join
// over the whole table.
const Statement kPurgeExpired{
    "worker_sessions_purge_expired",
    "DELETE FROM sessions WHERE id = ANY (ARRAY(SELECT id FROM sessions WHERE expires_at <= "
    "now() ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED))"};

}  // namespace

int task_purge_sessions(Db& db, const Config&) {
  int done = 0;
  while (done < kPurgeMaxPerPass) {
    DbResult r = db.exec(kPurgeExpired);
    if (!r.ok()) {
      log_error("purging expired sessions: %s", r.error().message.c_str());
      return -1;
    }
    int64_t n = r->affected();
    done += static_cast<int>(n);
    if (n < kPurgeBatch) break;
  }
  return done;
}

}  // namespace ca
