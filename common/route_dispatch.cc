#include "route_dispatch.h"

#include <exception>
#include <string>
#include <utility>

#include "error.h"
#include "idempotency.h"
#include "log.h"

namespace ca {
namespace {

Result<Response> call_handler(Handler handler, Ctx& ctx) {
  try {
    return handler(ctx);
  } catch (const std::exception& e) {
    return Error::internal(std::string("unhandled exception: ") + e.what());
  }
}

}  // namespace

Response respond(Result<Response> answer, ErrorStyle style) {
  return answer.ok() ? std::move(*answer) : render(answer.error(), style);
}

Response dispatch(const Router& router, Request& req, Db& db, const Config& config) {
  RouteMatch m = router.match(req.method, req.path);
  if (m.kind == RouteMatch::kNotFound) {
    return respond(Error::not_found("Not found"), ErrorStyle::kPlain);
  }
  if (m.kind == RouteMatch::kMethodNotAllowed) {
    return respond(Error::method_not_allowed(m.allow), ErrorStyle::kPlain);
  }
  req.params = std::move(m.params);
  log_request_context().route = m.pattern;
  Ctx ctx{req, db, config};
  if (m.idempotent && req.idempotency_key) {
    IdempotentRequest keyed(req, db, config.idempotency_keys_max_per_user);
    ctx.idempotency = &keyed;
    return respond(keyed.finish(call_handler(m.handler, ctx)), m.error_style);
  }
  return respond(call_handler(m.handler, ctx), m.error_style);
}

}  // namespace ca
