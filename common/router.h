// Route table: method + path pattern -> handler.
//
// Patterns are literal segments and `{name}` segments; a `{name}` segment
// matches only a positive decimal integer that fits in int64 (ids), so
// `/products/abc` is a 404, never a handler call. Built once at start-up,
// then read-only and shared by all threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api_key.h"
#include "error.h"
#include "http.h"
#include "idempotency.h"
#include "result.h"

namespace ca {

class Db;
class RequestTx;
struct Config;

// Route::repeatable, declared: whether the route's sends may be repeated on
// a new connection after the old one was lost (Db::SendMode). Undeclared,
// a GET or HEAD route's are and no other's.
struct Repeatable {
  bool value;
};
inline constexpr Repeatable kRepeatable{true};
inline constexpr Repeatable kNotRepeatable{false};

// A read route: GET or HEAD. Its sends are repeatable unless it declares
// otherwise and run READ ONLY (common/request_tx.h).
bool read_method(std::string_view method);

// An API key by its primary key (api_keys: tenant, id); key_id 0: none.
struct ApiKeyRef {
  int64_t tenant_id = 0;
  int64_t key_id = 0;
};

// What a handler gets for one request.
struct Ctx {
  const Request& req;
  Db& db;
  const Config& config;
  // The request's one transaction, owned by the dispatcher
  // (common/request_tx.h): every statement a handler sends goes through it.
  RequestTx* tx = nullptr;
  // The scope an API key needs for this route (Route::scope; for auth.h).
  Scope scope = Scope::kNone;
  // Set by an API key's check that passed when the key's last_used_at is
  // over a minute old; the dispatcher stamps it after the handler
  // (stamp_api_key_use(), auth.h).
  ApiKeyRef key_to_stamp;
};

// The answer, or the Error the dispatcher renders in the route's style.
using Handler = Result<Response> (*)(Ctx&);

// A row of a handler's route table: `{method, pattern, handler}`, then
// optionally the scope an API key needs there (`ca::Scope::kProductsRead`;
// none by default: the route refuses every key, 403), then, for a route
// that takes Idempotency-Key, `ca::kIdempotent`, or `ca::kRepeatable` /
// `ca::kNotRepeatable` to declare whether its sends may be repeated (by
// default: a GET's or HEAD's are), then the endpoint's error style
// (`ca::kOrderStyle`; plain by default).
struct Route {
  Route(const char* m, const char* p, Handler h, ErrorStyle style = ErrorStyle::kPlain)
      : method(m), pattern(p), handler(h), error_style(style) {}
  Route(const char* m, const char* p, Handler h, Repeatable declared,
        ErrorStyle style = ErrorStyle::kPlain)
      : method(m), pattern(p), handler(h), error_style(style), repeatable(declared.value) {}
  Route(const char* m, const char* p, Handler h, Scope key_scope, Repeatable declared,
        ErrorStyle style = ErrorStyle::kPlain)
      : method(m),
        pattern(p),
        handler(h),
        error_style(style),
        scope(key_scope),
        repeatable(declared.value) {}
  Route(const char* m, const char* p, Handler h, Idempotent keyed,
        ErrorStyle style = ErrorStyle::kPlain)
      : method(m), pattern(p), handler(h), error_style(style), idempotent(keyed) {}
  Route(const char* m, const char* p, Handler h, Scope key_scope,
        ErrorStyle style = ErrorStyle::kPlain)
      : method(m), pattern(p), handler(h), error_style(style), scope(key_scope) {}
  Route(const char* m, const char* p, Handler h, Scope key_scope, Idempotent keyed,
        ErrorStyle style = ErrorStyle::kPlain)
      : method(m),
        pattern(p),
        handler(h),
        error_style(style),
        idempotent(keyed),
        scope(key_scope) {}

  const char* method;
  const char* pattern;
  Handler handler;
  // How every error of this endpoint is shaped, whichever layer it came
  // from (common/error.h).
  ErrorStyle error_style = ErrorStyle::kPlain;
  // Set: the route takes Idempotency-Key (common/idempotency.h).
  std::optional<Idempotent> idempotent = std::nullopt;
  // The scope an API key needs here (common/api_key.h); kNone: no key may
  // call the route.
  Scope scope = Scope::kNone;
  // Whether its sends may be repeated after a lost connection (Repeatable);
  // read_method(method) unless declared.
  bool repeatable = read_method(method);
};

struct RouteMatch {
  enum Kind { kFound, kNotFound, kMethodNotAllowed } kind = kNotFound;
  Handler handler = nullptr;
  ErrorStyle error_style = ErrorStyle::kPlain;
  const char* pattern = nullptr;  // for kFound: the route's pattern (for logs)
  std::optional<Idempotent> idempotent;
  Scope scope = Scope::kNone;
  bool repeatable = false;  // Route::repeatable
  std::vector<int64_t> params;
  std::string allow;  // for kMethodNotAllowed: "GET, POST"
};

class Router {
 public:
  explicit Router(std::vector<Route> routes);
  RouteMatch match(std::string_view method, std::string_view path) const;

 private:
  struct Compiled {
    Route route;
    std::vector<std::string> segments;  // "{}" marks an integer parameter
  };
  static bool match_segments(const Compiled& c, std::string_view path,
                             std::vector<int64_t>* params);
  std::vector<Compiled> routes_;
};

// Parses a positive decimal id without sign or leading zeros; 0 when invalid.
int64_t parse_id(std::string_view text);

}  // namespace ca
