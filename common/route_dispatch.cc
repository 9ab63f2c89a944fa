#include "route_dispatch.h"

#include <exception>
#include <string>
#include <utility>

#include "errors.h"
#include "idempotency.h"
#include "log.h"

namespace ca {
namespace {

Response call_handler(Handler handler, Ctx& ctx) {
  try {
    return handler(ctx);
  } catch (const std::exception& e) {
    return errors::internal(std::string("unhandled exception: ") + e.what(), ctx.error_style);
  }
}

}  // namespace

Response dispatch(const Router& router, Request& req, Db& db, const Config& config) {
  RouteMatch m = router.match(req.method, req.path);
  if (m.kind == RouteMatch::kNotFound) return Response::error(404, "Not found");
  if (m.kind == RouteMatch::kMethodNotAllowed) {
    return Response::error(405, "Method not allowed").header("Allow", m.allow);
  }
  req.params = std::move(m.params);
  log_request_context().route = m.pattern;
  Ctx ctx{req, db, config, m.error_style};
  if (m.idempotent && req.idempotency_key) {
    IdempotentRequest keyed(req, db, *m.idempotent, m.error_style);
    ctx.idempotency = &keyed;
    return keyed.finish(call_handler(m.handler, ctx));
  }
  return call_handler(m.handler, ctx);
}

}  // namespace ca
