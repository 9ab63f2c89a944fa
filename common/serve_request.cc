#include "serve_request.h"

#include <chrono>
#include <cmath>
#include <string>

#include "auth.h"
#include "fcgi_request.h"
#include "json.h"
#include "json_arena.h"
#include "log.h"
#include "metrics.h"
#include "route_dispatch.h"
#include "router.h"
#include "tenant_budget.h"

namespace ca {
namespace {

// nginx gives up on a request after fastcgi_read_timeout (30 s,
// nginx/commerce-admin.conf.in) and answers 504. Nothing a request writes
// may commit after this point, counted from when nginx passed it on (see
// Db::set_request_deadline), lest a client told it failed find it done.
// (DB_STATEMENT_TIMEOUT_SECONDS is at most this long too.)
constexpr auto kRequestDeadline = std::chrono::seconds(25);

// One line per request: always in json mode, at debug in text mode (an
// access log is nginx's job; text mode stays as quiet as it always was).
// The path is not logged, only the route's pattern: ids in paths are
// harmless, but a pattern groups the lines by endpoint.
void log_request_line(const Request& req, int status, std::chrono::steady_clock::duration took) {
  LogLevel level = log_format() == LogFormat::kJson ? LogLevel::kInfo : LogLevel::kDebug;
  if (!log_enabled(level)) return;
  const LogRequestContext& c = log_request_context();
  // Milliseconds to the microsecond.
  auto ms = [](auto d) {
    return std::round(std::chrono::duration<double, std::milli>(d).count() * 1000) / 1000;
  };
  Json fields = json_object();
  json_add_str(fields.get(), "method", req.method);
  json_add_str(fields.get(), "route", c.route != nullptr ? c.route : "(none)");
  json_add_int(fields.get(), "status", status);
  json_add_num(fields.get(), "duration_ms", ms(took));
  json_add_num(fields.get(), "db_ms", ms(c.db_time));
  json_add_int(fields.get(), "db_round_trips", c.db_round_trips);
  if (c.tenant_id != 0) json_add_int(fields.get(), "tenant_id", c.tenant_id);
  if (c.user_id != 0) json_add_int(fields.get(), "user_id", c.user_id);
  if (c.api_key_id != 0) json_add_int(fields.get(), "api_key_id", c.api_key_id);
  log_fields(level, "request", fields.get());
}

}  // namespace

bool serve_request(FCGX_Request& r, const Router& router, const Config& config, const Pools& pools,
                   BodyCut cut, std::atomic<int>* body_reader) {
  // When nginx passed the request on: its timeout runs from there, and the
  // request may have waited for a free thread since.
  auto started = std::chrono::steady_clock::now();
  if (auto age =
          request_age(FCGX_GetParam("REQUEST_START", r.envp), std::chrono::system_clock::now())) {
    started -= *age;
  }
  Request req = request_from_fcgi(r);
  log_request_begin(req.request_id);
  Response resp;
  // When this request's own work starts (set once it has a connection):
  // what its tenant is charged from (common/tenant_budget.h).
  auto dispatched = std::chrono::steady_clock::now();
  // Every cJSON value of the request (parsed body, response tree) lives and
  // dies inside this scope; the response leaves it as text.
  JsonArenaScope json_memory;
  BodyRead body = cut == BodyCut::kNone ? read_body(r, &req.body) : BodyRead::kCut;
  if (body_reader != nullptr) body_reader->fetch_sub(1);
  if (body == BodyRead::kWhole) {
    // The connection is held for the handler only, not while writing.
    // A read may run on any node of a Citus cluster (DATABASE_READ_URL, a
    // worker); a write stays on the coordinator, whose sequences give ids
    // in the order of time, whose advisory locks are the users' turns and
    // which alone holds login_failures (decision 0128). RequestTx runs a
    // read method read-only, so nothing sent here can write. A tenant's
    // read goes to the node holding its shards where reads are routed so
    // (decision 0133).
    bool read = read_method(req.method);
    DbPool* from = read && pools.read_pool != nullptr ? pools.read_pool : pools.pool;
    // There, its hottest statements are prepared with its id in their text
    // (decision 0134): the tenant they are prepared for, or 0.
    int64_t routed_tenant = 0;
    if (read && pools.tenant_nodes != nullptr && req.has_tenant_header) {
      // Asking where a tenant is costs a round trip: only for a caller
      // whose credential verifies (no database), never for a forged token.
      DbPool* node = nullptr;
      int64_t tenant = parse_id(req.tenant_header);
      if (tenant != 0 && !pools.tenant_nodes->known(tenant, &node) &&
          bearer_verifies(req, config)) {
        node = pools.tenant_nodes->ask(tenant, *from, started + kRequestDeadline);
      }
      if (node != nullptr) {
        from = node;
        routed_tenant = tenant;
      }
    }
    DbPool::Lease db = from->acquire();
    dispatched = std::chrono::steady_clock::now();
    (*db).set_request_deadline(started + kRequestDeadline);
    (*db).set_tenant_constant(routed_tenant);
    resp = dispatch(router, req, *db, config);
  } else {
    if (body == BodyRead::kTooLarge) {
      resp = respond(Error::payload_too_large("Request body too large"), ErrorStyle::kPlain);
    } else if (cut == BodyCut::kBusy) {
      resp = respond(Error::unavailable("Too many request bodies arriving; try again", 1),
                     ErrorStyle::kPlain);
    } else {
      resp = respond(Error::request_timeout("Request timeout"), ErrorStyle::kPlain);
    }
  }
  write_response(r, resp);
  auto finished = std::chrono::steady_clock::now();
  auto took = finished - started;
  // The tenant the request was verified for pays for it: the time from
  // taking it up to the answer written (not the wait for a thread), and
  // the answer's bytes.
  if (int64_t tenant = log_request_context().tenant_id) {
    tenant_budget().charge(tenant, finished - dispatched, resp.body.size(), finished);
  }
  metrics_record(req.method.c_str(), log_request_context().route, resp.status, took);
  if (int outcome = log_request_context().api_key_outcome) {
    metrics_record_api_key(static_cast<ApiKeyOutcome>(outcome));
  }
  log_request_line(req, resp.status, took);
  log_request_end();
  return body == BodyRead::kWhole;
}

}  // namespace ca
