#include "request_tx.h"

#include <utility>

#include "config.h"
#include "error.h"
#include "log.h"

namespace ca {
namespace {

// The first failed result; nullptr when all succeeded.
const DbError* first_failure(const std::vector<DbResult>& results) {
  for (const DbResult& r : results) {
    if (!r.ok()) return &r.error();
  }
  return nullptr;
}

bool is_2xx(Result<Response>& answer) {
  return answer.ok() && answer->status >= 200 && answer->status < 300;
}

// Without a key: the session check and `queries` in one round trip, one
// implicit transaction.
Result<Sent> check_then(Ctx& ctx, const Access& access, const QueriesFor& queries) {
  CA_TRY(check, write_check(ctx, access));
  Queries all{check.query};
  Queries mine = queries(check.who);
  all.insert(all.end(), mine.begin(), mine.end());
  std::vector<DbResult> r =
      ctx.tx->first(all, check.who.user_id, check.who.tenant_id, /*stays_open=*/false);
  // Refused or failed: the implicit transaction is rolled back already.
  CA_TRY(who, write_check_result(ctx, access, check, r[0]));
  r.erase(r.begin());
  if (const DbError* failed = first_failure(r)) return Error::database(*failed);
  return Sent{std::move(who), std::move(r)};
}

}  // namespace

RequestTx::RequestTx(const Request& req, Db& db, const RouteMatch& route, const Config& config)
    : db_(db), before_(db.send_mode()) {
  db_.set_send_mode({/*repeatable=*/route.repeatable, /*read_only=*/read_method(req.method)});
  if (route.idempotent && req.idempotency_key) {
    key_.emplace(req, config.idempotency_keys_max_per_user);
  }
}

RequestTx::~RequestTx() {
  db_.rollback();
  db_.set_send_mode(before_);
}

std::vector<DbResult> RequestTx::first(const Queries& queries, int64_t user_id, int64_t tenant_id,
                                       bool stays_open) {
  const bool claim = to_claim();
  Queries all;
  all.reserve(queries.size() + 1);
  all.push_back(queries[0]);
  if (claim) all.push_back(key_->claim(user_id, tenant_id));
  all.insert(all.end(), queries.begin() + 1, queries.end());
  std::vector<DbResult> r;
  if (db_.transaction_open() || !(claim || stays_open)) {
    r = db_.pipeline(all);
  } else {
    r = db_.begin(all);
  }
  if (claim) {
    key_->claimed(r[1]);
    r.erase(r.begin() + 1);
  }
  if (first_failure(r) != nullptr && db_.transaction_open()) failed_ = true;
  return r;
}

DbResult RequestTx::check_caller(const Db::Query& check, int64_t user_id, int64_t tenant_id) {
  if (!to_claim()) return db_.exec(*check.stmt, check.params);
  return std::move(first({check}, user_id, tenant_id, /*stays_open=*/false)[0]);
}

Result<std::vector<DbResult>> RequestTx::last(const Queries& queries) {
  if (!db_.transaction_open()) return Error::internal("a last send without a first");
  std::vector<DbResult> r;
  if (key_) {
    // The answer and COMMIT follow at end().
    if (queries.empty()) return r;
    r = db_.pipeline(queries);
    if (const DbError* failed = first_failure(r)) {
      failed_ = true;
      return Error::database(*failed);
    }
    return r;
  }
  r = db_.commit(queries);
  if (const DbError* failed = first_failure(r)) return Error::database(*failed);
  r.pop_back();  // COMMIT's
  return r;
}

Result<bool> RequestTx::after_auth() {
  if (!key_) return true;
  return key_->after_auth();
}

Result<Response> RequestTx::end(Result<Response> handler_answer) {
  if (key_) {
    if (std::optional<Response> replay = key_->replay()) {
      db_.rollback();
      return std::move(*replay);
    }
  }
  const bool answered_2xx = is_2xx(handler_answer);
  if (!db_.transaction_open()) {
    if (key_ && key_->to_claim() && answered_2xx) {
      // The route opted in, but its handler never sent a session check
      // through here: nothing was claimed or stored.
      log_error("Idempotency-Key ignored: the handler never checked the session through auth.h");
    }
    return handler_answer;
  }
  if (!answered_2xx || failed_) {
    if (failed_ && answered_2xx) {
      log_warn("request answered %d after a failed send: rolled back, nothing stored",
               handler_answer->status);
    }
    db_.rollback();
    return handler_answer;
  }
  Queries store = key_ && key_->proceeding() ? key_->store(*handler_answer) : Queries{};
  std::vector<DbResult> committed = db_.commit(store);
  if (const DbError* failed = first_failure(committed)) {
    return key_ ? key_->store_failed(*failed) : Error::database(*failed);
  }
  return handler_answer;
}

Result<Sent> send_first(Ctx& ctx, const Access& access, const QueriesFor& checks) {
  RequestTx& tx = *ctx.tx;
  CA_TRY(check, write_check(ctx, access));
  Queries all{check.query};
  if (checks) {
    Queries then = checks(check.who);
    all.insert(all.end(), then.begin(), then.end());
  }
  std::vector<DbResult> r =
      tx.first(all, check.who.user_id, check.who.tenant_id, /*stays_open=*/true);
  // Refused: nothing ran after the check. Roll back now, so that the
  // refusal may look the path tenant up.
  if (!r[0].ok()) tx.roll_back();
  CA_TRY(who, write_check_result(ctx, access, check, r[0]));
  CA_TRY(go_on, tx.after_auth());
  (void)go_on;
  r.erase(r.begin());
  if (const DbError* failed = first_failure(r)) return Error::database(*failed);
  return Sent{std::move(who), std::move(r)};
}

Result<std::vector<DbResult>> send_last(Ctx& ctx, const Queries& writes) {
  return ctx.tx->last(writes);
}

Result<Sent> send_once(Ctx& ctx, const Access& access, const QueriesFor& writes) {
  RequestTx& tx = *ctx.tx;
  if (access.kind == Access::Kind::kAnyone) {
    // No session: the statements check what the request presents.
    std::vector<DbResult> r = ctx.db.write_pipeline(writes(Principal{}));
    if (const DbError* failed = first_failure(r)) return Error::database(*failed);
    return Sent{Principal{}, std::move(r)};
  }
  if (tx.keyed()) {
    // The key is claimed in the first send; the answer is stored with the
    // COMMIT after the handler (RequestTx::end).
    CA_TRY(opened, send_first(ctx, access));
    CA_TRY(results, tx.last(writes(opened.who)));
    return Sent{std::move(opened.who), std::move(results)};
  }
  return check_then(ctx, access, writes);
}

Result<Sent> send_check(Ctx& ctx, const Access& access, const QueriesFor& reads) {
  RequestTx& tx = *ctx.tx;
  if (tx.keyed()) return send_first(ctx, access, reads);
  return check_then(ctx, access, reads);
}

Result<std::vector<DbResult>> send_call(Ctx& ctx, const Queries& writes) {
  if (ctx.tx->keyed()) return ctx.tx->last(writes);
  std::vector<DbResult> r = ctx.db.write_pipeline(writes);
  if (const DbError* failed = first_failure(r)) return Error::database(*failed);
  return r;
}

Result<Principal> authenticate_for(Ctx& ctx, const Access& access) {
  switch (access.kind) {
    case Access::Kind::kTenantHeader:
      return authenticate_tenant_header(ctx, access.min_role);
    case Access::Kind::kPathTenant:
      return authenticate_path_tenant(ctx, access.tenant_id, access.min_role);
    case Access::Kind::kAnyone:
      return Principal{};
    case Access::Kind::kSession:
      break;
  }
  return authenticate(ctx);
}

Error refuse_before_write(Ctx& ctx, const Access& access, Result<Json>& body,
                          const FieldErrors& errs) {
  CA_TRY(who, authenticate_for(ctx, access));
  (void)who;
  if (!body.ok()) return std::move(body.error());
  return Error::invalid(errs);
}

}  // namespace ca
