#include "metrics.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

#include "config.h"
#include "log.h"
#include "router.h"

namespace ca {
namespace {

constexpr uint32_t kMagic = 0x43414d32;  // "CAM2": this layout (CAM1 had no API key counts)
constexpr int kMaxRoutes = 32;           // slot 0 is "no route matched"
constexpr int kMaxSlots = 256;           // files per group
// Upper bounds of the latency buckets, in seconds (the last is +Inf).
constexpr std::array<double, 11> kBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                            0.5,   1,    2.5,   5,    10};
constexpr int kBuckets = kBounds.size() + 1;
constexpr const char* kNoRoute = "(none)";

struct RouteCounters {
  char method[8];
  char pattern[120];
  std::atomic<uint64_t> status[5];  // 1xx .. 5xx
  std::atomic<uint64_t> bucket[kBuckets];
  std::atomic<uint64_t> sum_us;
};

struct CounterFile {
  uint32_t magic;
  uint32_t routes;
  char group[32];
  std::atomic<uint64_t> db_unavailable;
  std::atomic<uint64_t> db_timeouts;
  std::atomic<uint64_t> api_keys[kApiKeyOutcomes];  // by ApiKeyOutcome
  RouteCounters route[kMaxRoutes];
};
constexpr const char* kApiKeyOutcomeNames[kApiKeyOutcomes] = {
    "", "accepted", "unauthenticated", "other_tenant", "outside_scope", "route_refuses_keys"};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "counters are shared between processes");

CounterFile* g_file = nullptr;
std::string g_dir;
// The routes in slot order (slot i + 1), for metrics_record().
std::vector<std::pair<const char*, const char*>> g_routes;  // method, pattern

void copy_name(char* out, size_t size, const char* in) {
  std::memset(out, 0, size);
  std::strncpy(out, in, size - 1);
}

// Whether `f` counts exactly these routes (else it is reset: an upgrade
// changed the table, and counts of other routes are not carried over).
bool same_layout(const CounterFile* f, const std::string& group) {
  if (f->magic != kMagic || f->routes != g_routes.size() + 1 ||
      std::strncmp(f->group, group.c_str(), sizeof f->group) != 0) {
    return false;
  }
  for (size_t i = 0; i < g_routes.size(); ++i) {
    const RouteCounters& r = f->route[i + 1];
    if (std::strncmp(r.method, g_routes[i].first, sizeof r.method) != 0 ||
        std::strncmp(r.pattern, g_routes[i].second, sizeof r.pattern) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool metrics_init(const std::string& dir, const std::string& group,
                  const std::vector<Route>& routes) {
  if (routes.size() + 1 > kMaxRoutes) {
    log_error("metrics: %zu routes, at most %d are counted", routes.size(), kMaxRoutes - 1);
    return false;
  }
  g_dir = dir;
  g_routes.clear();
  for (const Route& r : routes) g_routes.emplace_back(r.method, r.pattern);
  for (int slot = 0; slot < kMaxSlots; ++slot) {
    std::string path = dir + "/" + group + "." + std::to_string(slot) + ".metrics";
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      log_error("metrics: cannot open %s: %s", path.c_str(), std::strerror(errno));
      return false;
    }
    // Held until the process exits: the file is this process's.
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      close(fd);
      continue;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || (static_cast<size_t>(st.st_size) != sizeof(CounterFile) &&
                                ftruncate(fd, sizeof(CounterFile)) != 0)) {
      log_error("metrics: cannot size %s: %s", path.c_str(), std::strerror(errno));
      close(fd);
      return false;
    }
    void* p = mmap(nullptr, sizeof(CounterFile), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      log_error("metrics: cannot map %s: %s", path.c_str(), std::strerror(errno));
      close(fd);
      return false;
    }
    auto* f = static_cast<CounterFile*>(p);
    if (!same_layout(f, group)) {
      // Zeroes every counter (a fresh or foreign file), then names the routes.
      std::memset(p, 0, sizeof(CounterFile));
      copy_name(f->group, sizeof f->group, group.c_str());
      copy_name(f->route[0].method, sizeof f->route[0].method, "");
      copy_name(f->route[0].pattern, sizeof f->route[0].pattern, kNoRoute);
      for (size_t i = 0; i < g_routes.size(); ++i) {
        copy_name(f->route[i + 1].method, sizeof f->route[i + 1].method, g_routes[i].first);
        copy_name(f->route[i + 1].pattern, sizeof f->route[i + 1].pattern, g_routes[i].second);
      }
      f->routes = static_cast<uint32_t>(g_routes.size() + 1);
      std::atomic_thread_fence(std::memory_order_release);
      f->magic = kMagic;
    }
    g_file = f;
    return true;  // fd stays open: it holds the lock
  }
  log_error("metrics: no free counter file for %s in %s", group.c_str(), dir.c_str());
  return false;
}

void metrics_record(const char* method, const char* route, int status,
                    std::chrono::steady_clock::duration took) {
  if (g_file == nullptr) return;
  size_t slot = 0;
  if (route != nullptr) {
    for (size_t i = 0; i < g_routes.size(); ++i) {
      if (g_routes[i].second == route && std::strcmp(g_routes[i].first, method) == 0) {
        slot = i + 1;
        break;
      }
    }
  }
  RouteCounters& r = g_file->route[slot];
  int status_class = status / 100 - 1;
  if (status_class >= 0 && status_class < 5) {
    r.status[status_class].fetch_add(1, std::memory_order_relaxed);
  }
  double seconds = std::chrono::duration<double>(took).count();
  size_t b = 0;
  while (b < kBounds.size() && seconds > kBounds[b]) ++b;
  r.bucket[b].fetch_add(1, std::memory_order_relaxed);
  int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
  r.sum_us.fetch_add(us > 0 ? static_cast<uint64_t>(us) : 0, std::memory_order_relaxed);
}

void metrics_record_api_key(ApiKeyOutcome outcome) {
  int i = static_cast<int>(outcome);
  if (g_file == nullptr || i <= 0 || i >= kApiKeyOutcomes) return;
  g_file->api_keys[i].fetch_add(1, std::memory_order_relaxed);
}

void metrics_record_db_error(DbErrorKind kind) {
  if (g_file == nullptr) return;
  if (kind == DbErrorKind::kConnection) {
    g_file->db_unavailable.fetch_add(1, std::memory_order_relaxed);
  } else if (kind == DbErrorKind::kTimeout) {
    g_file->db_timeouts.fetch_add(1, std::memory_order_relaxed);
  }
}

namespace {

struct RouteSum {
  uint64_t status[5] = {};
  uint64_t bucket[kBuckets] = {};
  uint64_t sum_us = 0;
};
using RouteKey = std::tuple<std::string, std::string, std::string>;  // group, method, route

struct Sums {
  std::map<RouteKey, RouteSum> routes;
  std::map<std::string, std::pair<uint64_t, uint64_t>> db;  // group: unavailable, timeouts
  uint64_t api_keys[kApiKeyOutcomes] = {};
};

void add_file(const std::string& path, Sums* sums) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  void* p = MAP_FAILED;
  if (fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == sizeof(CounterFile)) {
    p = mmap(nullptr, sizeof(CounterFile), PROT_READ, MAP_SHARED, fd, 0);
  }
  close(fd);
  if (p == MAP_FAILED) return;
  const auto* f = static_cast<const CounterFile*>(p);
  if (f->magic == kMagic && f->routes <= kMaxRoutes) {
    std::atomic_thread_fence(std::memory_order_acquire);
    std::string group(f->group, strnlen(f->group, sizeof f->group));
    auto& db = sums->db[group];
    db.first += f->db_unavailable.load(std::memory_order_relaxed);
    db.second += f->db_timeouts.load(std::memory_order_relaxed);
    for (int i = 1; i < kApiKeyOutcomes; ++i) {
      sums->api_keys[i] += f->api_keys[i].load(std::memory_order_relaxed);
    }
    for (uint32_t i = 0; i < f->routes; ++i) {
      const RouteCounters& r = f->route[i];
      RouteSum& s = sums->routes[{group, std::string(r.method, strnlen(r.method, sizeof r.method)),
                                  std::string(r.pattern, strnlen(r.pattern, sizeof r.pattern))}];
      for (int c = 0; c < 5; ++c) s.status[c] += r.status[c].load(std::memory_order_relaxed);
      for (int b = 0; b < kBuckets; ++b) s.bucket[b] += r.bucket[b].load(std::memory_order_relaxed);
      s.sum_us += r.sum_us.load(std::memory_order_relaxed);
    }
  }
  munmap(p, sizeof(CounterFile));
}

void appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string* out, const char* fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n > 0) out->append(line, std::min(static_cast<size_t>(n), sizeof line - 1));
}

}  // namespace

std::string metrics_render_files(const std::string& dir) {
  Sums sums;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      constexpr std::string_view kSuffix = ".metrics";
      if (name.size() > kSuffix.size() &&
          name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
        add_file(dir + "/" + name, &sums);
      }
    }
    closedir(d);
  }
  std::string out;
  out +=
      "# HELP commerce_admin_http_requests_total Requests answered by the handlers, by route "
      "pattern and status class.\n"
      "# TYPE commerce_admin_http_requests_total counter\n";
  for (const auto& [key, s] : sums.routes) {
    const auto& [group, method, route] = key;
    for (int c = 0; c < 5; ++c) {
      if (s.status[c] == 0) continue;
      appendf(&out,
              "commerce_admin_http_requests_total{group=\"%s\",method=\"%s\",route=\"%s\","
              "status=\"%dxx\"} %llu\n",
              group.c_str(), method.c_str(), route.c_str(), c + 1,
              static_cast<unsigned long long>(s.status[c]));
    }
  }
  out +=
      "# HELP commerce_admin_http_request_duration_seconds Time from nginx passing a request on "
      "to its answer.\n"
      "# TYPE commerce_admin_http_request_duration_seconds histogram\n";
  for (const auto& [key, s] : sums.routes) {
    const auto& [group, method, route] = key;
    uint64_t cumulative = 0;
    for (int b = 0; b < kBuckets; ++b) cumulative += s.bucket[b];
    if (cumulative == 0) continue;
    std::string labels =
        "group=\"" + group + "\",method=\"" + method + "\",route=\"" + route + "\"";
    cumulative = 0;
    for (int b = 0; b < kBuckets; ++b) {
      cumulative += s.bucket[b];
      char le[32];
      if (b < static_cast<int>(kBounds.size())) {
        std::snprintf(le, sizeof le, "%g", kBounds[b]);
      } else {
        std::snprintf(le, sizeof le, "+Inf");
      }
      appendf(&out, "commerce_admin_http_request_duration_seconds_bucket{%s,le=\"%s\"} %llu\n",
              labels.c_str(), le, static_cast<unsigned long long>(cumulative));
    }
    appendf(&out, "commerce_admin_http_request_duration_seconds_sum{%s} %.6f\n", labels.c_str(),
            static_cast<double>(s.sum_us) / 1e6);
    appendf(&out, "commerce_admin_http_request_duration_seconds_count{%s} %llu\n", labels.c_str(),
            static_cast<unsigned long long>(cumulative));
  }
  out +=
      "# HELP commerce_admin_db_unavailable_total Requests that found the database unreachable "
      "(503).\n"
      "# TYPE commerce_admin_db_unavailable_total counter\n";
  for (const auto& [group, db] : sums.db) {
    appendf(&out, "commerce_admin_db_unavailable_total{group=\"%s\"} %llu\n", group.c_str(),
            static_cast<unsigned long long>(db.first));
  }
  out +=
      "# HELP commerce_admin_db_statement_timeouts_total Requests whose statement ran past "
      "DB_STATEMENT_TIMEOUT_SECONDS (503).\n"
      "# TYPE commerce_admin_db_statement_timeouts_total counter\n";
  for (const auto& [group, db] : sums.db) {
    appendf(&out, "commerce_admin_db_statement_timeouts_total{group=\"%s\"} %llu\n", group.c_str(),
            static_cast<unsigned long long>(db.second));
  }
  out +=
      "# HELP commerce_admin_api_key_requests_total Requests that came with an API key, by "
      "outcome of its check.\n"
      "# TYPE commerce_admin_api_key_requests_total counter\n";
  for (int i = 1; i < kApiKeyOutcomes; ++i) {
    appendf(&out, "commerce_admin_api_key_requests_total{outcome=\"%s\"} %llu\n",
            kApiKeyOutcomeNames[i], static_cast<unsigned long long>(sums.api_keys[i]));
  }
  return out;
}

Result<Response> metrics_handler(Ctx& ctx) {
  // nginx allows the same list; this holds for a local process that speaks
  // FastCGI to the socket directly (REMOTE_ADDR is whatever it sends).
  if (!ctx.config.metrics_allow.allows(ctx.req.remote_addr)) {
    return Response::error(403, "Forbidden");
  }
  // Installation-wide backlog, one statement (every sub-select is an index
  // probe or a count over the pending rows only).
  static const Statement kGauges{
      "metrics_gauges",
      "SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') "
      "    AS commerce_admin_webhook_deliveries_pending, "
      "  (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(next_attempt_at)), 0)::float8 "
      "     FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()) "
      "    AS commerce_admin_webhook_oldest_due_seconds, "
      "  (SELECT count(*) FROM webhook_deliveries "
      "     WHERE status = 'failed' AND last_attempt_at > now() - interval '1 hour') "
      "    AS commerce_admin_webhook_deliveries_failed_last_hour, "
      "  (SELECT count(*) FROM webhooks WHERE is_active AND failing_since IS NOT NULL) "
      "    AS commerce_admin_webhooks_failing, "
      "  (SELECT count(*) FROM announcements WHERE status = 'published' AND is_push_enabled "
      "     AND push_status IN ('pending', 'sending')) AS commerce_admin_push_pending, "
      "  (SELECT EXTRACT(EPOCH FROM last_success_at)::float8 FROM worker_status) "
      "    AS last_success, "
      // Along webhook_deliveries_finished_idx (sql/022): the last hour's rows.
      "  (SELECT count(*) FROM webhook_deliveries "
      "     WHERE status = 'delivered' AND created_at > now() - interval '1 hour') "
      "    AS delivered_last_hour, "
      "  (SELECT count(*) FROM webhook_deliveries "
      "     WHERE status = 'failed' AND created_at > now() - interval '1 hour') "
      "    AS failed_last_hour, "
      "  (SELECT count(*) FROM webhooks WHERE NOT is_active AND deleted_at IS NULL) "
      "    AS commerce_admin_webhooks_disabled"};
  std::string out = metrics_render_files(g_dir);
  DbResult r = ctx.db.exec(kGauges);
  appendf(&out,
          "# HELP commerce_admin_database_up Whether /metrics could read the backlog from the "
          "database.\n# TYPE commerce_admin_database_up gauge\ncommerce_admin_database_up %d\n",
          r.ok() ? 1 : 0);
  if (r.ok()) {
    struct {
      const char* name;
      const char* help;
    } const kGaugeNames[] = {
        {"commerce_admin_webhook_deliveries_pending", "Webhook deliveries not yet settled."},
        {"commerce_admin_webhook_oldest_due_seconds",
         "Age of the oldest due webhook delivery (0: none due)."},
        {"commerce_admin_webhook_deliveries_failed_last_hour",
         "Webhook deliveries that failed for good in the last hour."},
        {"commerce_admin_webhooks_failing", "Active webhook subscriptions marked failing."},
        {"commerce_admin_push_pending", "Published announcements whose push is not sent yet."},
        {"commerce_admin_webhooks_disabled",
         "Webhook subscriptions disabled (automatically or by an ADMIN), not deleted."},
    };
    for (int i = 0; i < 6; ++i) {
      appendf(&out, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", kGaugeNames[i].name,
              kGaugeNames[i].help, kGaugeNames[i].name, kGaugeNames[i].name,
              std::string(r->text(0, kGaugeNames[i].name)).c_str());
    }
    // By outcome, one label set for the installation (never per tenant).
    appendf(&out,
            "# HELP commerce_admin_webhook_deliveries_last_hour Webhook deliveries created in the "
            "last hour that ended, by outcome.\n"
            "# TYPE commerce_admin_webhook_deliveries_last_hour gauge\n"
            "commerce_admin_webhook_deliveries_last_hour{outcome=\"delivered\"} %s\n"
            "commerce_admin_webhook_deliveries_last_hour{outcome=\"failed\"} %s\n",
            std::string(r->text(0, "delivered_last_hour")).c_str(),
            std::string(r->text(0, "failed_last_hour")).c_str());
    if (!r->is_null(0, "last_success")) {
      appendf(&out,
              "# HELP commerce_admin_worker_last_success_timestamp_seconds When a worker last "
              "finished a pass with no failed task.\n"
              "# TYPE commerce_admin_worker_last_success_timestamp_seconds gauge\n"
              "commerce_admin_worker_last_success_timestamp_seconds %s\n",
              std::string(r->text(0, "last_success")).c_str());
    }
  }
  Response resp{200, std::move(out), {}};
  return resp.header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace ca
