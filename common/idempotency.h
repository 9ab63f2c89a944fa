// Idempotency keys (Stripe's contract) for the routes that opt in with
// Route::idempotent: a client that sends `Idempotency-Key` may repeat the
// request (after a timeout, a 502) and gets the first answer again instead
// of a second order.
//
// How: such a request runs inside one transaction from its session check to
// its answer (Db's request transaction). The session check (common/auth.cc)
// goes out in one round trip with BEGIN and the claim of the key: an INSERT
// into idempotency_keys (sql/023) keyed by tenant, caller and key. Once the
// caller is known to be allowed (after the role check), the claim decides:
//   - a new key: the handler runs as usual, its own Transaction joins the
//     request's, and if it answers 2xx the answer (status, headers, body) is
//     stored and committed with what it wrote, in one round trip;
//   - a key already stored by a request that succeeded less than 24 h ago,
//     for the same request (method, path, query and body, by SHA-256): that
//     answer, byte for byte, with `Idempotent-Replayed: true`; nothing runs;
//   - the same key with another request: 422;
//   - a key whose first request is still running: the claim waits for it
//     (the primary key's lock), then replays its answer, or runs if it
//     failed. Never two writes.
// Any other answer (4xx, 5xx) rolls everything back and stores nothing: a
// corrected retry with the same key runs. A malformed key is 400, after the
// 401/400/403 of the session, tenant and role checks. Without the header, or
// on a route that did not opt in, nothing of this happens (no cost).
//
// One IdempotentRequest per keyed request, owned by the serve loop, used by
// one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db.h"
#include "error.h"
#include "http.h"
#include "result.h"

namespace ca {

struct Ctx;

// Route::idempotent: the route takes Idempotency-Key. The errors this
// mechanism answers take the route's error style, like the handler's.
struct Idempotent {};
inline constexpr Idempotent kIdempotent{};

// How long a stored answer is replayed; the worker deletes older keys.
inline constexpr const char* kIdempotencyKeyLifetime = "24 hours";
inline constexpr size_t kIdempotencyKeyMaxLength = 255;

// 1 to 255 characters, each printable ASCII (space to '~').
bool idempotency_key_valid(std::string_view key);

class IdempotentRequest {
 public:
  // For a request with the header on a route that opted in. A new key is
  // refused (422, nothing written) when the caller has `keys_max` keys of
  // the last 24 hours in the tenant already (IDEMPOTENCY_KEYS_MAX_PER_USER).
  IdempotentRequest(const Request& req, Db& db, int64_t keys_max);
  ~IdempotentRequest();  // rolls back a request transaction still open
  IdempotentRequest(const IdempotentRequest&) = delete;
  IdempotentRequest& operator=(const IdempotentRequest&) = delete;

  // For common/auth.cc. Runs the session check `check` (whose result it
  // returns): with BEGIN and the claim of the key for `user_id` (the token's
  // subject) in `tenant_id` (0: the route has none), in one round trip, the
  // first time; as a plain statement otherwise.
  DbResult check_and_claim(const Db::Query& check, int64_t user_id, int64_t tenant_id);
  // For common/write.h: the same round trip (BEGIN, `check`, the claim)
  // with `then` after the claim. Returns the results of `check`, then of
  // `then`. The request transaction is open when BEGIN succeeded; without a
  // claim to make (a malformed key, answered by after_auth()) it is opened
  // all the same.
  std::vector<DbResult> begin_write(const Db::Query& check, int64_t user_id, int64_t tenant_id,
                                    const std::vector<Db::Query>& then);
  // For common/auth.cc, once the caller is allowed: true to go on, or the
  // error to end the request with (422, 400 for a malformed key, or
  // Error::answered() when the stored answer is replayed: finish() gives it).
  Result<bool> after_auth();

  // The request's answer, given the handler's: commits the request
  // transaction with the answer stored when it is 2xx, rolls it back
  // otherwise.
  Result<Response> finish(Result<Response> handler_answer);

 private:
  enum class State {
    kMalformed,     // answered 400 once the caller is allowed
    kPending,       // nothing claimed yet
    kClaimed,       // the key is this request's
    kProceeding,    // ... and the caller is allowed: the handler runs
    kStored,        // this request's answer is stored under the key (replay_)
    kOtherRequest,  // another request's answer is
    kClaimFailed,   // the claim's statement failed
    kDone,          // answered by after_auth()
  };

  Db& db_;
  std::string key_;
  std::string request_hash_;  // bytea literal: \x + hex
  State state_ = State::kPending;
  int64_t user_id_ = 0;
  int64_t tenant_id_ = 0;
  int64_t keys_max_;
  std::optional<DbError> claim_error_;
  std::optional<Response> replay_;
};

}  // namespace ca
