// Deletes idempotency keys past their lifetime (common/idempotency.h,
// 24 h). An expired key is never replayed (a request with it runs as a new
// one and takes the row over), so the row is dead weight; without this task
// the table grew by a row per keyed write for ever.
#include "idempotency.h"
#include "log.h"
#include "purge.h"
#include "tasks.h"

namespace ca {
namespace {

// One batch, oldest first, by idempotency_keys_created_idx. No SKIP LOCKED
// (Citus refuses a multi-shard SELECT ... FOR UPDATE): a row a request is
// taking over right now (an expired key used again) is waited for, then
// left, its created_at being new.
const Statement kPurgeExpired{
    "worker_idempotency_keys_purge",
    "DELETE FROM idempotency_keys k USING ("
    "  SELECT tenant_id, user_id, key FROM idempotency_keys "
    "  WHERE created_at <= now() - $1::interval ORDER BY created_at " CA_PURGE_LIMIT
    ") old "
    "WHERE k.tenant_id = old.tenant_id AND k.user_id = old.user_id AND k.key = old.key "
    "  AND k.created_at <= now() - $1::interval"};

// The hours of sql/038's key counts older than the cap's window (the last
// 24 hours and the current one; hour 0 is the lock row, kept). One
// statement over every tenant's shard, no lock across tenants.
const Statement kPurgeCounts{
    "worker_idempotency_key_counts_purge",
    "DELETE FROM idempotency_key_counts "
    "WHERE hour > 0 AND hour < floor(extract(epoch FROM now()) / 3600)::bigint - 24"};

}  // namespace

int task_purge_idempotency_keys(Db& db, const Config&) {
  DbResult counts = db.exec(kPurgeCounts);
  if (!counts.ok()) {
    log_error("purging idempotency key counts: %s", counts.error().message.c_str());
    return -1;
  }
  return purge_all(db, kPurgeExpired, {kIdempotencyKeyLifetime}, "expired idempotency keys");
}

}  // namespace ca
