#include "health_routes.h"

#include <chrono>

#include "db.h"
#include "health_cache.h"
#include "json.h"

namespace ca {
namespace {

// At most one SELECT 1 per process per second, however many probes come
// (docs/decisions/0010-healthz-cost-bound.md): /healthz is not rate limited.
HealthCache& process_health() {
  static HealthCache cache(std::chrono::seconds(1));
  return cache;
}

}  // namespace

Result<Response> health_handler(Ctx& ctx) {
  static const Statement kPing{"health_ping", "SELECT 1"};
  bool ok = process_health().healthy([&ctx] { return ctx.db.exec(kPing).ok(); });
  Json body = json_object();
  json_add_str(body.get(), "status", ok ? "ok" : "unavailable");
  return Response::json(ok ? 200 : 503, body);
}

Result<Response> ping_handler(Ctx&) { return Response{200, R"({"status":"ok"})", {}}; }

}  // namespace ca
