#include "health_routes.h"

#include <chrono>

#include "config.h"
#include "db.h"
#include "health_cache.h"
#include "json.h"

namespace ca {
namespace {

// At most one SELECT 1 per process per HEALTHZ_CACHE_MS (a second by
// default), however many probes come
// (docs/decisions/0010-healthz-cost-bound.md): /healthz is not rate limited.
// The setting is the process's, so the first call's value is every call's.
HealthCache& process_health(const Config& config) {
  static HealthCache cache(std::chrono::milliseconds(config.healthz_cache_ms));
  return cache;
}

}  // namespace

Result<Response> health_handler(Ctx& ctx) {
  static const Statement kPing{"health_ping", "SELECT 1"};
  auto probe = [&ctx] { return ctx.db.exec(kPing).ok(); };
  // 0: every probe asks the database (bench/run's D case measures that).
  bool ok = ctx.config.healthz_cache_ms == 0 ? probe() : process_health(ctx.config).healthy(probe);
  Json body = json_object();
  json_add_str(body.get(), "status", ok ? "ok" : "unavailable");
  return Response::json(ok ? 200 : 503, body);
}

Result<Response> ping_handler(Ctx&) { return Response{200, R"({"status":"ok"})", {}}; }

}  // namespace ca
