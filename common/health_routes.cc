#include "health_routes.h"

#include "db.h"
#include "json.h"

namespace ca {

Result<Response> health_handler(Ctx& ctx) {
  static const Statement kPing{"health_ping", "SELECT 1"};
  DbResult r = ctx.db.exec(kPing);
  Json body = json_object();
  json_add_str(body.get(), "status", r.ok() ? "ok" : "unavailable");
  return Response::json(r.ok() ? 200 : 503, body);
}

Result<Response> ping_handler(Ctx&) { return Response{200, R"({"status":"ok"})", {}}; }

}  // namespace ca
