// Request metrics shared across the processes of a deployment, for
// GET /metrics (Prometheus text format).
//
// Each handler process counts into a small file it maps shared
// (`<METRICS_DIR>/<group>.<slot>.metrics`, METRICS_DIR defaulting to the
// directory of its FastCGI socket): requests per route and status class, a
// latency histogram per route, database unavailability and statement
// timeouts. Counters are atomics in the mapping: one relaxed fetch_add each,
// no lock, no system call. A process holds an flock on its file for its
// life; a new process takes over the file of one that died (flock free), so
// counts survive restarts and the number of files stays the number of
// processes. The /metrics handler (auth) sums every file it finds.
// Thread-safe; metrics_init() once before the serve loop's threads start.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "db.h"
#include "http.h"
#include "result.h"

namespace ca {

struct Route;
struct Ctx;

// Opens (or takes over) this process's counter file for `group`'s `routes`
// in `dir`. False, with a log line, when it cannot: the process then serves
// without counting.
bool metrics_init(const std::string& dir, const std::string& group,
                  const std::vector<Route>& routes);

// Counts one answered request; `route` is the matched pattern (nullptr: no
// route matched) and `method` the request's.
void metrics_record(const char* method, const char* route, int status,
                    std::chrono::steady_clock::duration took);

// What became of a request that came with an API key (common/auth.cc):
// one count per such request, by outcome.
enum class ApiKeyOutcome {
  kNone = 0,
  kAccepted,          // the key passed its check (what followed is the route's)
  kUnauthenticated,   // malformed, unknown, revoked or altered: 401
  kOtherTenant,       // a live key on another tenant's data: 403
  kOutsideScope,      // a live key without the route's scope: 403
  kRouteRefusesKeys,  // a route that takes no key (login, api-keys, ...): 403
};
inline constexpr int kApiKeyOutcomes = 6;

// Counts one request with an API key, by outcome.
void metrics_record_api_key(ApiKeyOutcome outcome);

// Counts a database error a request met (connection lost or unavailable,
// statement timeout); other kinds are not counted.
void metrics_record_db_error(DbErrorKind kind);

// The sum of every counter file in `dir`, in the Prometheus text format.
std::string metrics_render_files(const std::string& dir);

// GET /metrics: the files' sums plus the backlog gauges read from the
// database in one statement.
Result<Response> metrics_handler(Ctx& ctx);

}  // namespace ca
