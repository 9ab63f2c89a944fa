#include "idempotency.h"

#include <sodium.h>

#include <cstring>

#include "log.h"

namespace ca {
namespace {

// $1 tenant, $2 user, $3 key, $4 request hash, $5 lifetime. One row back:
// the key is this request's now (new, or expired and taken over). None: a
// live row of another request, which ON CONFLICT has locked (after waiting
// for that request to end), so it stays as it is until this transaction
// ends and kLoad reads it (a new statement: it sees what committed since).
const Statement kClaim{
    "idempotency_claim",
    "INSERT INTO idempotency_keys AS k (tenant_id, user_id, key, request_hash) "
    "VALUES ($1, $2, $3, $4::bytea) "
    "ON CONFLICT (tenant_id, user_id, key) DO UPDATE "
    "SET request_hash = EXCLUDED.request_hash, status = NULL, headers = NULL, body = NULL, "
    "    created_at = now() "
    "WHERE k.created_at <= now() - $5::interval "
    "RETURNING 1"};

// Columns: status, headers, body, whether the request is the same.
const Statement kLoad{"idempotency_load",
                      "SELECT status, headers, body, request_hash = $4::bytea "
                      "FROM idempotency_keys WHERE tenant_id = $1 AND user_id = $2 AND key = $3"};

// The answer, in the transaction of the change (sent with its COMMIT). A
// body that is not valid UTF-8 would fail here and the request with it; the
// handlers only write JSON built from UTF-8.
const Statement kStore{"idempotency_store",
                       "UPDATE idempotency_keys SET status = $4, headers = $5, body = $6 "
                       "WHERE tenant_id = $1 AND user_id = $2 AND key = $3"};

bool is_2xx(int status) { return status >= 200 && status < 300; }

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

IdempotentRequest::IdempotentRequest(const Request& req, Db& db, Idempotent options)
    : db_(db), options_(options) {
  if (!req.idempotency_key || !idempotency_key_valid(*req.idempotency_key)) {
    state_ = State::kMalformed;
    return;
  }
  key_ = *req.idempotency_key;
  request_hash_ = request_hash(req);
}

IdempotentRequest::~IdempotentRequest() { db_.rollback_request(); }

DbResult IdempotentRequest::check_and_claim(const Db::Query& check, int64_t user_id,
                                            int64_t tenant_id) {
  if (state_ != State::kPending) return db_.exec(*check.stmt, check.params);
  user_id_ = user_id;
  tenant_id_ = tenant_id;
  std::vector<DbResult> r = db_.begin_request(
      {check, {&kClaim, {tenant_id, user_id, key_, request_hash_, kIdempotencyKeyLifetime}}});
  DbResult& claim = r[1];
  if (!claim.ok()) {
    state_ = State::kClaimFailed;
    claim_error_ = claim.error();
  } else {
    state_ = claim->empty() ? State::kStored : State::kClaimed;
  }
  return std::move(r[0]);
}

Result<bool> IdempotentRequest::after_auth() {
  switch (state_) {
    case State::kMalformed:
      state_ = State::kDone;
      return errors::bad_request("Idempotency-Key must be 1 to 255 printable ASCII characters");
    case State::kClaimFailed:
      state_ = State::kDone;
      return errors::database(*claim_error_, options_.style);
    case State::kClaimed:
      state_ = State::kProceeding;
      return true;
    case State::kStored:
      break;
    default:
      return true;
  }
  state_ = State::kDone;
  DbResult r = db_.exec(kLoad, {tenant_id_, user_id_, key_, request_hash_});
  if (!r.ok()) return errors::database(r.error(), options_.style);
  // The row is locked by the claim: it cannot have gone, and it is a
  // committed one, with its answer.
  if (r->empty() || r->is_null(0, 0)) {
    return errors::internal("idempotency key row missing or unanswered", options_.style);
  }
  if (!r->boolean(0, 3)) {
    FieldErrors errs;
    errs.add("Idempotency-Key",
             "This Idempotency-Key was already used with another request in the last 24 hours.");
    return errors::validation(errs, options_.style);
  }
  Response stored;
  stored.status = static_cast<int>(r->int64(0, 0));
  stored.body = r->str(0, 2);
  parse_headers(r->text(0, 1), &stored);
  stored.header("Idempotent-Replayed", "true");
  replay_ = stored;
  return stored;
}

Response IdempotentRequest::finish(Response handler_response) {
  if (!db_.request_open()) {
    if (state_ == State::kPending && is_2xx(handler_response.status)) {
      // The route opted in, but its handler does not authenticate through
      // common/auth.cc: nothing was claimed or stored.
      log_error("Idempotency-Key ignored: the handler never checked the session through auth.h");
    }
    return handler_response;
  }
  if (replay_) {
    db_.rollback_request();
    return std::move(*replay_);
  }
  if (state_ != State::kProceeding || !is_2xx(handler_response.status) || db_.request_failed()) {
    if (db_.request_failed() && is_2xx(handler_response.status)) {
      log_warn("keyed request answered %d after rolling back its transaction: not stored",
               handler_response.status);
    }
    db_.rollback_request();
    return handler_response;
  }
  DbResult committed =
      db_.commit_request({{&kStore,
                           {tenant_id_, user_id_, key_, handler_response.status,
                            headers_text(handler_response), handler_response.body}}});
  if (!committed.ok()) return errors::database(committed.error(), options_.style);
  return handler_response;
}

}  // namespace ca
