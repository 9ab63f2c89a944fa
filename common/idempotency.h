// Idempotency keys (Stripe's contract) for the routes that opt in with
// Route::idempotent: a client that sends `Idempotency-Key` may repeat the
// request (after a timeout, a 502) and gets the first answer again instead
// of a second order.
//
// How: such a request runs inside its one transaction (common/request_tx.h)
// from its session check to its answer. The session check goes out in the
// first send with BEGIN and the claim of the key: an INSERT into
// idempotency_keys (sql/023) keyed by tenant, caller and key. Once the
// caller is known to be allowed (after the role check), the claim decides:
//   - a new key: the handler runs as usual, and if it answers 2xx the
//     answer (status, headers, body) is stored and committed with what it
//     wrote, in the last send;
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
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db.h"
#include "error.h"
#include "http.h"
#include "result.h"

namespace ca {

// Route::idempotent: the route takes Idempotency-Key. The errors this
// mechanism answers take the route's error style, like the handler's.
struct Idempotent {};
inline constexpr Idempotent kIdempotent{};

// How long a stored answer is replayed; the worker deletes older keys.
inline constexpr const char* kIdempotencyKeyLifetime = "24 hours";
inline constexpr size_t kIdempotencyKeyMaxLength = 255;

// 1 to 255 characters, each printable ASCII (space to '~').
bool idempotency_key_valid(std::string_view key);

// The key of one keyed request: what its claim and its stored answer send,
// and what the claim decided. It sends nothing itself: the request's
// RequestTx (common/request_tx.h) puts the claim in its first send and the
// answer in its last. One per keyed request, used by one thread.
class IdempotencyKey {
 public:
  // For a request with the header on a route that opted in. A new key is
  // refused (422, nothing written) when the caller has `keys_max` keys of
  // the last 24 hours in the tenant already (IDEMPOTENCY_KEYS_MAX_PER_USER).
  IdempotencyKey(const Request& req, int64_t keys_max);

  // True until the claim went out: a well-formed key, nothing claimed yet.
  bool to_claim() const { return state_ == State::kPending; }
  // The claim for `user_id` (the token's subject) in `tenant_id` (0: the
  // route has none), to send right after the session check; then its
  // result, read once it came back.
  Db::Query claim(int64_t user_id, int64_t tenant_id);
  void claimed(DbResult& result);

  // Once the caller is allowed: true to go on, or the error to end the
  // request with (422, 400 for a malformed key, or Error::answered() when
  // the stored answer is replayed: replay() gives it).
  Result<bool> after_auth();
  // The stored answer, once after_auth() said Error::answered().
  std::optional<Response> replay();
  // The handler runs under this key: its 2xx answer is to be stored.
  bool proceeding() const { return state_ == State::kProceeding; }
  // The statements that store `answer` and count the key against the
  // caller's cap, to send with the COMMIT; the answer when they failed.
  std::vector<Db::Query> store(const Response& answer) const;
  Error store_failed(const DbError& error) const;

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
