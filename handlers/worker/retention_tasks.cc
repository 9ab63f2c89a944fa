// Retention: what the worker deletes once nobody needs it. Without it the
// outbox (`events`), the delivery log (`webhook_deliveries`), the mails and
// the audit log grow for ever.
//
// Each table has one purge statement that deletes one batch of at most
// kPurgeBatch rows (purge.h); the task runs them in order, each until a
// batch comes back short, kPurgeMaxBatches batches were deleted or kBudget
// has passed. Every batch is a statement (and transaction) of its own,
// oldest rows first by an index, so no lock is held for longer than one
// batch takes, and a large backlog is worked off over several passes
// instead of in one long one. Rows are selected without locks and deleted
// by primary key, tenant_id included, as the schema will be distributed by
// tenant_id (no cross-tenant FOR UPDATE); two workers purging at once only
// wait for each other's batch. A new table to purge (e.g. expired
// idempotency keys) is one more statement and one more row in kPurges.
#include <chrono>
#include <cstdint>

#include "purge.h"
#include "tasks.h"

namespace ca {
namespace {

constexpr auto kBudget = std::chrono::seconds(5);

// Delivered and failed deliveries created more than $1 days ago
// (webhook_deliveries_finished_idx, sql/022). Pending ones always stay:
// they are still being retried, and they fail after WEBHOOK_MAX_ATTEMPTS.
const Statement kPurgeDeliveries{
    "worker_retention_deliveries",
    "DELETE FROM webhook_deliveries d USING ("
    "  SELECT tenant_id, id FROM webhook_deliveries "
    "  WHERE status <> 'pending' AND created_at < now() - make_interval(days => $1) "
    "  ORDER BY created_at " CA_PURGE_LIMIT
    ") o "
    "WHERE d.tenant_id = o.tenant_id AND d.id = o.id"};

// Events written more than $1 days ago that no delivery refers to any more
// (events_created_idx, webhook_deliveries_event_idx, sql/022): their
// deliveries were purged above, or there never were any. An event with a
// delivery left, pending or not yet old enough, stays: deleting it would
// cascade to that delivery. Deliveries are only ever written together with
// their event, so none can appear for an event this old.
const Statement kPurgeEvents{
    "worker_retention_events",
    "DELETE FROM events e USING ("
    "  SELECT o.tenant_id, o.id FROM events o "
    "  WHERE o.created_at < now() - make_interval(days => $1) "
    "    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d "
    "                    WHERE d.tenant_id = o.tenant_id AND d.event_id = o.id) "
    "  ORDER BY o.created_at " CA_PURGE_LIMIT
    ") x "
    "WHERE e.tenant_id = x.tenant_id AND e.id = x.id"};

// Mails sent, failed or skipped more than $1 days ago (mails_finished_idx,
// sql/041). Pending ones stay: they fail after MAIL_MAX_ATTEMPTS.
const Statement kPurgeMails{
    "worker_retention_mails",
    "DELETE FROM mails m USING ("
    "  SELECT tenant_id, id FROM mails "
    "  WHERE status <> 'pending' AND created_at < now() - make_interval(days => $1) "
    "  ORDER BY created_at " CA_PURGE_LIMIT
    ") o "
    "WHERE m.tenant_id = o.tenant_id AND m.id = o.id"};

// Audit log entries written more than $1 days ago (AUDIT_RETENTION_DAYS;
// audit_log_created_idx, sql/056). The only deletion of entries there is.
const Statement kPurgeAudit{"worker_retention_audit",
                            "DELETE FROM audit_log a USING ("
                            "  SELECT tenant_id, id FROM audit_log "
                            "  WHERE created_at < now() - make_interval(days => $1) "
                            "  ORDER BY created_at " CA_PURGE_LIMIT
                            ") o "
                            "WHERE a.tenant_id = o.tenant_id AND a.id = o.id"};

struct Purge {
  const char* what;
  const Statement* batch;  // one batch of at most kPurgeBatch rows
  int Config::*days;       // $1: rows older than this many days go; 0: none
};

// Deliveries before events: the events they free go in the same pass.
const Purge kPurges[] = {
    {"old webhook deliveries", &kPurgeDeliveries, &Config::retention_days},
    {"old events", &kPurgeEvents, &Config::retention_days},
    {"old mails", &kPurgeMails, &Config::retention_days},
    {"old audit log entries", &kPurgeAudit, &Config::audit_retention_days},
};

}  // namespace

int task_purge_old_records(Db& db, const Config& config) {
  auto started = std::chrono::steady_clock::now();
  auto may_go_on = [&] {
    return !stop_requested() && std::chrono::steady_clock::now() - started < kBudget;
  };
  int64_t total = 0;
  bool failed = false;
  for (const Purge& p : kPurges) {
    const int days = config.*p.days;
    if (days == 0) continue;
    PurgeOutcome done = purge_in_batches(db, *p.batch, {days}, p.what, may_go_on);
    total += done.deleted;
    failed = failed || done.failed;
  }
  if (failed && total == 0) return -1;
  return static_cast<int>(total);
}

}  // namespace ca
