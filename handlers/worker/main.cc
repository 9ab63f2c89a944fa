// commerce-admin-worker: the background work that no request waits for.
//
//   commerce-admin-worker           one pass over every task, then exit
//                                   (what the systemd timer runs)
//   commerce-admin-worker --loop    a pass about every second until SIGTERM
//                                   (the dev stack; WORKER_LOOP_MS)
//
// With --loop, a pass that is not a full one first asks the database
// whether anything is due (kAnythingDue, one statement) and runs the tasks
// of due work only when it is; the purges and the heartbeat run every
// WORKER_FULL_PASS_SECONDS (5). An idle loop is then one small statement a
// second instead of every task's statements (on Citus each of those ran on every shard;
// docs/decisions/0127-worker-asks-whether-anything-is-due.md).
//
// Each task claims its rows with FOR UPDATE SKIP LOCKED (and a lease where
// the work is slow), so several workers may run at once and a killed worker
// loses nothing.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "config.h"
#include "db.h"
#include "jwt.h"
#include "log.h"
#include "tasks.h"

namespace {

void on_stop(int) { ca::request_stop(); }

struct Task {
  const char* name;
  int (*run)(ca::Db&, const ca::Config&);
  bool due_work;  // what kAnythingDue looks for (else a purge: full passes only)
};

// Order matters: publishing first lets push and deliveries go out in the same pass.
const Task kTasks[] = {
    {"scheduled publishing", ca::task_publish_scheduled, true},
    {"push notifications", ca::task_send_push, true},
    {"webhook deliveries", ca::task_deliver_webhooks, true},
    {"mails", ca::task_send_mails, true},
    {"expired sessions", ca::task_purge_sessions, false},
    {"retention", ca::task_purge_old_records, false},
    {"expired idempotency keys", ca::task_purge_idempotency_keys, false},
};

// With --loop: every task, and the heartbeat, at least every
// WORKER_FULL_PASS_SECONDS (5; the test stack 1). Purges are not urgent; the
// heartbeat (worker_status, a reference table on Citus: a write on every
// node) stays well inside what GET /metrics' readers allow. Between two
// passes the loop sleeps WORKER_LOOP_MS (1000; the test stack 200, so a
// test waits less for the worker to pick up what it made due).

// Whether a task of due work has anything to do: one row when any of their
// "what is due" conditions holds, none when nothing does. Each leg is the
// condition of a task's own first statements (announcements_tasks.cc,
// webhook_tasks.cc, mail_tasks.cc), so a row here means the same pass of
// them would find work, and no row means it would find none. A superset
// would only cost a pass; a condition missing here would leave work until
// the next full pass. $1 the hours after which a failing subscription is
// disabled, $2 whether disabling is on, $3 whether mail is on.
//
// One statement without locks and with tenant_id first in every leg: on
// Citus the UNION ALL is pushed down whole, one query per shard, instead of
// the seven multi-shard statements (three of them UPDATEs) an idle pass of
// the tasks sends.
const ca::Statement kAnythingDue{
    "worker_anything_due",
    "SELECT tenant_id FROM ("
    // scheduled publishing (kPublishDueTenants)
    "  SELECT tenant_id FROM announcements WHERE status = 'scheduled' AND scheduled_at <= now() "
    // push to send or to take over (kPushDueTenants), expired (kPushExpired)
    "  UNION ALL SELECT tenant_id FROM announcements "
    "  WHERE status = 'published' AND is_push_enabled "
    "    AND (push_status = 'pending' OR (push_status = 'sending' AND push_lease_until < now())) "
    "    AND ((scheduled_at IS NULL OR scheduled_at <= now()) OR expires_at <= now()) "
    // push abandoned (kPushAbandoned)
    "  UNION ALL SELECT tenant_id FROM announcements "
    "  WHERE push_status = 'sending' AND push_lease_until < now() "
    "    AND NOT (status = 'published' AND is_push_enabled) "
    // deliveries due, of active subscriptions or to cancel (kDueTenants, kCancelDeleted)
    "  UNION ALL SELECT tenant_id FROM webhook_deliveries "
    "  WHERE status = 'pending' AND next_attempt_at <= now() "
    "    AND (lease_until IS NULL OR lease_until < now()) "
    // attempts cut off by a stopped worker (kFindInterrupted)
    "  UNION ALL SELECT tenant_id FROM webhook_deliveries "
    "  WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until < now() "
    // subscriptions failing long enough to be disabled (kDisableCandidates)
    "  UNION ALL SELECT tenant_id FROM webhooks "
    "  WHERE $2 AND is_active AND failing_since <= now() - make_interval(hours => $1) "
    // mails due (mail_tasks.cc kDueTenants)
    "  UNION ALL SELECT tenant_id FROM mails "
    "  WHERE $3 AND status = 'pending' AND next_attempt_at <= now() "
    "    AND (lease_until IS NULL OR lease_until < now())"
    ") due LIMIT 1"};

// A pass with no failed task is recorded for GET /metrics (sql/024).
const ca::Statement kPassSucceeded{
    "worker_pass_succeeded",
    "INSERT INTO worker_status (singleton, last_success_at) VALUES (true, now()) "
    "ON CONFLICT (singleton) DO UPDATE SET last_success_at = excluded.last_success_at"};

// Before kAnythingDue, in its transaction: on Citus one connection per
// worker, so each worker runs its shards' queries in one transaction (by
// default each shard's query was a transaction of its own: 23 per worker
// and check at 32 shards, 2 this way). A placeholder without Citus.
const ca::Statement kOneConnectionPerNode{
    "worker_one_connection_per_node",
    "SELECT set_config('citus.max_adaptive_executor_pool_size', '1', true)"};

// Whether kAnythingDue finds due work; true when it fails too (the tasks
// then say what is wrong, as they did before the check existed).
bool anything_due(ca::Db& db, const ca::Config& config) {
  // One pipeline, one implicit transaction: kOneConnectionPerNode's setting
  // holds for kAnythingDue and ends with it.
  std::vector<ca::DbResult> r =
      db.pipeline({{&kOneConnectionPerNode, {}},
                   {&kAnythingDue,
                    {config.webhook_disable_after_hours, config.webhook_disable_after_failures != 0,
                     config.mail_enabled()}}});
  for (ca::DbResult& each : r) {
    if (!each.ok()) {
      ca::log_error("asking whether anything is due: %s", each.error().message.c_str());
      return true;
    }
  }
  return !r[1]->empty();
}

// Runs the tasks (only those of due work unless `full`); a full pass with
// no failed task is recorded as the heartbeat.
void run_pass(ca::Db& db, const ca::Config& config, bool full = true) {
  bool failed = false;
  for (const Task& t : kTasks) {
    if (ca::stop_requested()) return;
    if (!full && !t.due_work) continue;
    auto started = std::chrono::steady_clock::now();
    int done = t.run(db, config);
    failed = failed || done < 0;
    if (done == 0) continue;  // an idle pass says nothing (the loop runs every second)
    if (ca::log_format() == ca::LogFormat::kJson) {
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
      ca::Json fields = ca::json_object();
      ca::json_add_str(fields.get(), "task", t.name);
      ca::json_add_str(fields.get(), "outcome", done < 0 ? "failed" : "done");
      if (done > 0) ca::json_add_int(fields.get(), "processed", done);
      ca::json_add_num(fields.get(), "duration_ms", std::round(ms * 1000) / 1000);
      ca::log_fields(done < 0 ? ca::LogLevel::kError : ca::LogLevel::kInfo, "worker pass",
                     fields.get());
    } else if (done < 0) {
      ca::log_error("%s: pass failed", t.name);
    } else {
      // tests/integration/stack.cc (WorkerProcess::processed) reads these.
      ca::log_info("%s: %d processed", t.name, done);
    }
  }
  if (failed || !full) return;
  ca::DbResult r = db.exec(kPassSucceeded);
  if (!r.ok()) ca::log_error("recording the pass: %s", r.error().message.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  bool loop = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--loop") == 0) {
      loop = true;
    } else {
      bool help = std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0;
      std::fprintf(help ? stdout : stderr,
                   "usage: commerce-admin-worker [--loop]\n"
                   "  One pass of webhook deliveries, mail, push, scheduled publishing and\n"
                   "  purges (the systemd timer's), or with --loop a pass about every second\n"
                   "  until SIGTERM. Configuration comes from the environment.\n");
      return help ? 0 : 2;
    }
  }
  ca::Config config =
      ca::config_from_env_or_exit("commerce-admin-worker", ca::ConfigNeeds::kDatabase);
  ca::crypto_init();
  ca::tasks_init();
  ca::mail_tasks_init(config);
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  ca::Db db(config.database_url);
  if (!loop) {
    if (!db.ensure_connected()) return 1;
    run_pass(db, config);
    return 0;
  }
  const auto full_pass_every = std::chrono::seconds(config.worker_full_pass_seconds);
  const auto pause = std::chrono::milliseconds(config.worker_loop_ms);
  // The first pass is a full one.
  auto last_full = std::chrono::steady_clock::now() - full_pass_every;
  while (!ca::stop_requested()) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_full >= full_pass_every) {
      last_full = now;
      run_pass(db, config);
    } else if (anything_due(db, config)) {
      run_pass(db, config, false);
    }
    // In steps of at most 100 ms, so that SIGTERM is seen soon.
    auto wake = std::chrono::steady_clock::now() + pause;
    while (!ca::stop_requested()) {
      auto left = wake - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) break;
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(100)));
    }
  }
  return 0;
}
