#include "route_dispatch.h"

#include <exception>
#include <string>
#include <utility>

#include "auth.h"
#include "error.h"
#include "log.h"
#include "metrics.h"
#include "request_tx.h"
#include "tenant_budget.h"

namespace ca {
namespace {

Result<Response> call_handler(Handler handler, Ctx& ctx) {
  try {
    return handler(ctx);
  } catch (const std::exception& e) {
    return Error::internal(std::string("unhandled exception: ") + e.what());
  }
}

// The tenant a request names, before anything is verified: its X-Tenant-ID,
// or the {tenantId} of its path; 0 for none. Only used to refuse a request
// early while that tenant's budget is spent (common/tenant_budget.h).
// A route with the tenant in its path ({tenantId}, always the first
// parameter) names that tenant whatever X-Tenant-ID says: those handlers
// ignore the header, and a header naming another tenant must not move the
// check off the tenant the request is served for.
int64_t named_tenant(const Request& req, const RouteMatch& m) {
  std::string_view pattern = m.pattern != nullptr ? m.pattern : "";
  if (pattern.find("{tenantId}") != std::string_view::npos) {
    return req.params.empty() ? 0 : req.params[0];
  }
  if (req.has_tenant_header) return parse_id(req.tenant_header);
  return 0;
}

// The route's handler inside the request's one transaction
// (common/request_tx.h), which is over when this returns: committed with
// a 2xx answer (and a keyed request's answer stored with it), rolled back
// otherwise; a keyed request's stored answer replayed instead.
Response serve_route(const RouteMatch& m, Ctx& ctx, const Request& req, Db& db,
                     const Config& config) {
  RequestTx tx(req, db, m, config);
  ctx.tx = &tx;
  Response resp = respond(tx.end(call_handler(m.handler, ctx)), m.error_style);
  ctx.tx = nullptr;
  return resp;
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
  Ctx ctx{req, db, config, /*tx=*/nullptr, m.scope, /*key_to_stamp=*/{}};
  // A route that declares no scope takes no API key: refused here, before
  // any other check and without a database round trip, whatever the key
  // (docs/decisions/0106-api-key-checks.md).
  if (m.scope == Scope::kNone && bearer_is_api_key(req)) {
    log_request_context().api_key_outcome = static_cast<int>(ApiKeyOutcome::kRouteRefusesKeys);
    return respond(Error::forbidden("API keys cannot be used for this endpoint"), m.error_style);
  }
  TenantInProgress::Slot slot;
  if (int64_t tenant = named_tenant(req, m)) {
    if (int64_t wait = tenant_budget().wait_seconds(tenant, TenantBudget::Clock::now())) {
      return respond(Error::too_many_requests("Too many requests", wait), m.error_style);
    }
    // Only a request with a token that verifies (signature, expiry: no
    // database) takes one of the tenant's slots: one without is answered
    // 401 at once and must not crowd out the tenant's own requests.
    if (tenant_in_progress().limit() > 0 && bearer_verifies(ctx)) {
      slot = tenant_in_progress().enter(tenant);
      if (!slot) return respond(Error::too_many_requests("Too many requests", 1), m.error_style);
    }
  }
  Response resp = serve_route(m, ctx, req, db, config);
  stamp_api_key_use(ctx);
  return resp;
}

}  // namespace ca
