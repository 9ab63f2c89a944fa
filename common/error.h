// Error: why a request failed, as a value (a kind, a message, field
// errors), and the one place where it becomes an HTTP status and body.
//
// How an endpoint's errors are shaped: every layer (authentication, tenant
// resolution, JSON parsing, idempotency, the handler, the database) returns
// an Error and never picks a body. The handler's Result<Response> reaches
// the dispatcher (common/serve.cc), which renders an Error with the route's
// declared ErrorStyle (router.h) by calling render() below, the only code
// that builds an error body. So an endpoint answers every error in its
// documented shape whichever layer failed; an endpoint whose shapes differ
// by kind gets its own ErrorStyle, never a special case at a call site.
// SQLSTATEs become kinds once, in Error::database(): a connection loss or a
// timeout is kUnavailable, a constraint named in its table (error.cc) is
// kInvalid with that constraint's field error, anything else kInternal.
//
// Errors are plain values: copyable, not shared between threads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db.h"
#include "http.h"

namespace ca {

// Which family of error body shapes an endpoint uses; a route declares its
// style (router.h). The API has `{error}` (generic), `{message, errors}`
// (validation of most endpoints), `{success:false, errors}` (validation of
// orders, announcements, categories) and `{success:false, message}`
// (not-found of orders and announcements). 400, 401, 403, 405, 409, 413,
// 429 and 499 are `{error}` in every style.
enum class ErrorStyle {
  kPlain,       // 404 {error}, 422 {message, errors}, 500/503 {error}
  kSuccess,     // 404, 422, 500, 503 in {success:false, ...} (orders)
  kSuccess4xx,  // 404, 422 as kSuccess; 500, 503 as kPlain (announcements, categories)
};

// Field-level validation errors, collected so every failing field is reported.
class FieldErrors {
 public:
  void add(const std::string& field, std::string message);
  bool empty() const { return fields_.empty(); }
  bool has(const std::string& field) const { return index_.count(field) != 0; }
  Json to_json() const;

 private:
  // Ordered by first insertion, so the body lists fields in check order.
  std::vector<std::pair<std::string, std::vector<std::string>>> fields_;
  std::map<std::string, size_t> index_;
};

enum class ErrorKind {
  kBadRequest,        // 400
  kUnauthenticated,   // 401 with WWW-Authenticate: Bearer (no or bad token, no session)
  kBadCredentials,    // 401 without a challenge (login: wrong email or password)
  kForbidden,         // 403
  kNotFound,          // 404
  kMethodNotAllowed,  // 405 with Allow
  kRequestTimeout,    // 408: the body did not arrive in time
  kConflict,          // 409
  kPayloadTooLarge,   // 413
  kInvalid,           // 422 with field errors
  kTooManyRequests,   // 429 with Retry-After
  kClientClosed,      // 499: nobody is listening any more
  kInternal,          // 500; the message is logged, never sent
  kUnavailable,       // 503 with Retry-After
  // The answer was decided elsewhere: an idempotent replay, which
  // RequestTx::end() (common/request_tx.h) puts in its place. Never rendered (a 500 if it were).
  kAnswered,
};

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
  FieldErrors fields;       // kInvalid
  int64_t retry_after = 0;  // kTooManyRequests, kUnavailable: seconds
  std::string allow;        // kMethodNotAllowed: "GET, POST"

  static Error bad_request(std::string message);
  static Error unauthenticated();  // "Unauthenticated"
  static Error bad_credentials(std::string message);
  static Error forbidden(std::string message);
  static Error not_found(std::string message);
  static Error method_not_allowed(std::string allow);
  static Error request_timeout(std::string message);
  static Error conflict(std::string message);
  static Error payload_too_large(std::string message);
  static Error invalid(FieldErrors fields);
  // A collection a tenant or user grows is at its cap (docs/security.md,
  // "Resource limits"): 422 in the endpoint's validation shape with one
  // field error under "limit", e.g. for ("webhook subscriptions per tenant",
  // 20, "WEBHOOKS_MAX_PER_TENANT"): "The limit of 20 webhook subscriptions
  // per tenant is reached (WEBHOOKS_MAX_PER_TENANT)."
  static Error limit_reached(std::string_view what, int64_t max, std::string_view setting);
  // limit_reached()'s field error alone, for a statement that refuses with
  // it (ca_refuse('CA422', ...), sql/014): database() answers it as above.
  static std::string limit_message(std::string_view what, int64_t max, std::string_view setting);
  static Error too_many_requests(std::string message, int64_t retry_after_seconds);
  static Error client_closed(std::string message);
  // Logs `what` now (it is never sent to the client).
  static Error internal(std::string what);
  static Error unavailable(std::string message, int64_t retry_after_seconds);
  static Error answered();
  // The one mapping of a database error: logs it (and counts connection
  // losses and timeouts in /metrics) unless it is a known constraint's.
  static Error database(const DbError& error);
};

// The HTTP answer for `error` in `style`: the only place error bodies are built.
Response render(const Error& error, ErrorStyle style);

}  // namespace ca
