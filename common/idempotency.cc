#include "idempotency.h"

#include <sodium.h>

#include <cstring>

#include "counter_slot.h"
#include "log.h"

namespace ca {
namespace {

// $1 tenant, $2 user, $3 key, $4 request hash, $5 lifetime. Claims the
// key: inserts it, or, when a row is there, locks it (after waiting for the
// request that wrote it to end) and takes it over when it has expired.
// Columns: status, headers, body, whether the stored request is this one;
// status NULL: the key is this request's now (new, or taken over). A stored
// row comes back unchanged (its update is a no-op rolled back with the
// replay), in one statement with no window in which the purge could take it.
// Every statement on the table goes through the primary key's index as an
// ON CONFLICT arbiter: a generic plan made while the table was small would
// scan it whole for a plain WHERE on the key, for as long as the plan lives.
// "Now" is EXCLUDED.created_at (the column's default, now()), and the test
// is written with IMMUTABLE operators only: Citus refuses non-IMMUTABLE
// functions (now(), timestamptz - interval) in ON CONFLICT DO UPDATE.
#define CA_IDEMPOTENCY_EXPIRED "EXCLUDED.created_at - k.created_at >= $5::interval"
const Statement kClaim{"idempotency_claim",
                       "INSERT INTO idempotency_keys AS k (tenant_id, user_id, key, request_hash) "
                       "VALUES ($1, $2, $3, $4::bytea) "
                       "ON CONFLICT (tenant_id, user_id, key) DO UPDATE SET "
                       "  request_hash = CASE WHEN " CA_IDEMPOTENCY_EXPIRED
                       " THEN EXCLUDED.request_hash ELSE k.request_hash END, "
                       "  status = CASE WHEN " CA_IDEMPOTENCY_EXPIRED
                       " THEN NULL ELSE k.status END, "
                       "  headers = CASE WHEN " CA_IDEMPOTENCY_EXPIRED
                       " THEN NULL ELSE k.headers END, "
                       "  body = CASE WHEN " CA_IDEMPOTENCY_EXPIRED
                       " THEN NULL ELSE k.body END, "
                       "  created_at = CASE WHEN " CA_IDEMPOTENCY_EXPIRED
                       " THEN EXCLUDED.created_at ELSE k.created_at END "
                       "RETURNING status, headers, body, request_hash = $4::bytea AS same_request"};
#undef CA_IDEMPOTENCY_EXPIRED

// The answer, in the transaction of the change (sent with its COMMIT): the
// claimed row, updated through the arbiter index (see kClaim). A body that
// is not valid UTF-8 would fail here and the request with it; the handlers
// only write JSON built from UTF-8.
const Statement kStore{
    "idempotency_store",
    "INSERT INTO idempotency_keys AS k (tenant_id, user_id, key, request_hash, status, headers, "
    "body) VALUES ($1, $2, $3, $4::bytea, $5, $6, $7) "
    "ON CONFLICT (tenant_id, user_id, key) DO UPDATE SET "
    "  status = EXCLUDED.status, headers = EXCLUDED.headers, body = EXCLUDED.body"};

// The cap on live keys (IDEMPOTENCY_KEYS_MAX_PER_USER; sql/038 and 040,
// docs/decisions/0031-idempotency-keys-cap.md): sent with the answer's
// store and COMMIT, so it costs no round trip and holds its lock only for
// that moment. $1 tenant, $2 user. The key is counted in its hour's row of
// this connection's slot (an upsert; requests on one connection come one
// after another, so keys of one user on many connections do not wait for
// each other's COMMIT); then, in a statement of its own (a snapshot that
// sees every key committed before), the rows of the last 24 hours are
// summed, and a sum over the cap ($3) raises (SQLSTATE kKeysCapState),
// which rolls back the request's writes, its key and its count. Keys of
// one user committing at the same moment on different connections may each
// see the others uncounted: the cap is then passed by at most the requests
// in flight. O(1): at most 25 hours of 16 slots, whatever the number of keys.
#define CA_KEYS_CAP_STATE "CA42K"
constexpr const char* kKeysCapState = CA_KEYS_CAP_STATE;
#define CA_IDEMPOTENCY_HOUR "floor(extract(epoch FROM now()) / 3600)::bigint"
const Statement kKeysCount{
    "idempotency_keys_count",
    "INSERT INTO idempotency_key_counts AS c (tenant_id, user_id, hour, slot, n) "
    "VALUES ($1, $2, " CA_IDEMPOTENCY_HOUR ", " CA_COUNTER_SLOT
    ", 1) "
    "ON CONFLICT (tenant_id, user_id, hour, slot) DO UPDATE SET n = c.n + 1"};
const Statement kKeysWithinCap{
    "idempotency_keys_within_cap",
    "SELECT CASE WHEN sum(n) > $3::bigint "
    "  THEN ca_refuse('" CA_KEYS_CAP_STATE
    "', 'idempotency keys per user') "
    "       END AS refused "
    "FROM idempotency_key_counts "
    "WHERE tenant_id = $1 AND user_id = $2 AND hour >= " CA_IDEMPOTENCY_HOUR " - 24"};
#undef CA_IDEMPOTENCY_HOUR
#undef CA_KEYS_CAP_STATE

// SHA-256 over method, path, query and body, each preceded by its length
// (no two different requests give the same input), as a bytea literal.
std::string request_hash(const Request& req) {
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  for (const std::string* part : {&req.method, &req.path, &req.query, &req.body}) {
    unsigned char length[8];
    uint64_t n = part->size();
    for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(n >> (8 * i));
    crypto_hash_sha256_update(&st, length, sizeof length);
    crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(part->data()),
                              part->size());
  }
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&st, digest);
  char hex[crypto_hash_sha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string("\\x") + hex;
}

// The handler's own headers as "Name: value" lines (values never hold a
// line break: they are HTTP header values).
std::string headers_text(const Response& r) {
  std::string out;
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\n";
  return out;
}

void parse_headers(std::string_view text, Response* r) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    size_t colon = line.find(": ");
    if (colon != std::string_view::npos) {
      r->header(std::string(line.substr(0, colon)), std::string(line.substr(colon + 2)));
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

bool idempotency_key_valid(std::string_view key) {
  if (key.empty() || key.size() > kIdempotencyKeyMaxLength) return false;
  for (unsigned char c : key) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

IdempotencyKey::IdempotencyKey(const Request& req, int64_t keys_max) : keys_max_(keys_max) {
  if (!req.idempotency_key || !idempotency_key_valid(*req.idempotency_key)) {
    state_ = State::kMalformed;
    return;
  }
  key_ = *req.idempotency_key;
  request_hash_ = request_hash(req);
}

Db::Query IdempotencyKey::claim(int64_t user_id, int64_t tenant_id) {
  user_id_ = user_id;
  tenant_id_ = tenant_id;
  return {&kClaim, {tenant_id, user_id, key_, request_hash_, kIdempotencyKeyLifetime}};
}

void IdempotencyKey::claimed(DbResult& claim) {
  if (!claim.ok()) {
    state_ = State::kClaimFailed;
    claim_error_ = claim.error();
  } else if (claim->is_null(0, "status")) {
    state_ = State::kClaimed;
  } else {
    state_ = claim->boolean(0, "same_request") ? State::kStored : State::kOtherRequest;
    if (state_ == State::kStored) {
      Response stored;
      stored.status = static_cast<int>(claim->int64(0, "status"));
      stored.body = claim->str(0, "body");
      parse_headers(claim->text(0, "headers"), &stored);
      stored.header("Idempotent-Replayed", "true");
      replay_ = std::move(stored);
    }
  }
}

Result<bool> IdempotencyKey::after_auth() {
  switch (state_) {
    case State::kMalformed:
      state_ = State::kDone;
      return Error::bad_request("Idempotency-Key must be 1 to 255 printable ASCII characters");
    case State::kClaimFailed:
      state_ = State::kDone;
      return Error::database(*claim_error_);
    case State::kClaimed:
      state_ = State::kProceeding;
      return true;
    case State::kStored:
      state_ = State::kDone;
      return Error::answered();
    case State::kOtherRequest: {
      state_ = State::kDone;
      FieldErrors errs;
      errs.add("Idempotency-Key",
               "This Idempotency-Key was already used with another request in the last 24 hours.");
      return Error::invalid(errs);
    }
    default:
      return true;
  }
}

std::optional<Response> IdempotencyKey::replay() {
  if (state_ != State::kDone) return std::nullopt;
  std::optional<Response> out = std::move(replay_);
  replay_.reset();
  return out;
}

std::vector<Db::Query> IdempotencyKey::store(const Response& answer) const {
  return {{&kStore,
           {tenant_id_, user_id_, key_, request_hash_, answer.status, headers_text(answer),
            answer.body}},
          {&kKeysCount, {tenant_id_, user_id_}},
          {&kKeysWithinCap, {tenant_id_, user_id_, keys_max_}}};
}

Error IdempotencyKey::store_failed(const DbError& error) const {
  if (error.sqlstate == kKeysCapState) {
    return Error::limit_reached("idempotency keys per user and tenant in 24 hours", keys_max_,
                                "IDEMPOTENCY_KEYS_MAX_PER_USER");
  }
  return Error::database(error);
}

}  // namespace ca
