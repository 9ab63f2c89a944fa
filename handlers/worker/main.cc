// commerce-admin-worker: the background work that no request waits for.
//
//   commerce-admin-worker           one pass over every task, then exit
//                                   (what the systemd timer runs)
//   commerce-admin-worker --loop    a pass about every second until SIGTERM
//                                   (the dev stack)
//
// Each task claims its rows with FOR UPDATE SKIP LOCKED (and a lease where
// the work is slow), so several workers may run at once and a killed worker
// loses nothing.
#include <signal.h>

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
};

// Order matters: publishing first lets push and deliveries go out in the same pass.
const Task kTasks[] = {
    {"scheduled publishing", ca::task_publish_scheduled},
    {"push notifications", ca::task_send_push},
    {"webhook deliveries", ca::task_deliver_webhooks},
    {"mails", ca::task_send_mails},
    {"expired sessions", ca::task_purge_sessions},
    {"retention", ca::task_purge_old_records},
    {"expired idempotency keys", ca::task_purge_idempotency_keys},
};

// A pass with no failed task is recorded for GET /metrics (sql/024).
const ca::Statement kPassSucceeded{
    "worker_pass_succeeded",
    "INSERT INTO worker_status (singleton, last_success_at) VALUES (true, now()) "
    "ON CONFLICT (singleton) DO UPDATE SET last_success_at = excluded.last_success_at"};

void run_pass(ca::Db& db, const ca::Config& config) {
  bool failed = false;
  for (const Task& t : kTasks) {
    if (ca::stop_requested()) return;
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
  if (failed) return;
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
  while (!ca::stop_requested()) {
    run_pass(db, config);
    for (int i = 0; i < 10 && !ca::stop_requested(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return 0;
}
