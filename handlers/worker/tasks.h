// The worker's tasks. Each runs one pass: claims what is due, does it,
// records the outcome, and returns how many items it processed (-1 on a
// failure of the pass itself, e.g. the database is down).
#pragma once

#include "config.h"
#include "db.h"

namespace ca {

// Process-wide set-up the tasks need (libcurl's global init).
void tasks_init();

// SIGTERM or SIGINT arrived: a task takes no new work and finishes what it
// has started. request_stop() is safe in a signal handler.
void request_stop();
bool stop_requested();

// Publishes `scheduled` announcements whose scheduled_at has passed.
int task_publish_scheduled(Db& db, const Config& config);
// Sends push for published announcements with push pending.
int task_send_push(Db& db, const Config& config);
// Delivers due webhook deliveries (signed POSTs, retries with backoff).
int task_deliver_webhooks(Db& db, const Config& config);
// Sends due mails of the outbox over SMTP (mail_tasks.cc); nothing
// without MAIL_URL.
int task_send_mails(Db& db, const Config& config);
// Reads MAIL_CREDENTIALS_FILE at start-up (one line and exit 2 when bad).
void mail_tasks_init(const Config& config);
// Deletes sessions past their expiry.
int task_purge_sessions(Db& db, const Config& config);
// Deletes finished webhook deliveries, unreferenced events and finished
// mails older than RETENTION_DAYS, and audit log entries older than
// AUDIT_RETENTION_DAYS, in batches (retention_tasks.cc).
int task_purge_old_records(Db& db, const Config& config);
// Deletes idempotency keys past their lifetime (24 h), and their hourly
// counts past the cap's window (sql/038).
int task_purge_idempotency_keys(Db& db, const Config& config);

}  // namespace ca
