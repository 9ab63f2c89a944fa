#include "write.h"

#include <utility>

#include "error.h"
#include "idempotency.h"

namespace ca {
namespace {

// The first failed result's answer, in the route's style; nullptr when all
// succeeded.
const DbError* first_failure(const std::vector<DbResult>& results) {
  for (const DbResult& r : results) {
    if (!r.ok()) return &r.error();
  }
  return nullptr;
}

}  // namespace

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

Result<Written> write_once(Ctx& ctx, const Access& access, const QueriesFor& writes) {
  if (access.kind == Access::Kind::kAnyone) {
    // No session: the statements check what the request presents.
    std::vector<DbResult> r = ctx.db.write_pipeline(writes(Principal{}));
    if (const DbError* failed = first_failure(r)) return Error::database(*failed);
    return Written{Principal{}, std::move(r)};
  }
  if (ctx.idempotency != nullptr) {
    // The key is claimed with BEGIN and the session check; the answer is
    // stored with the COMMIT (IdempotentRequest::finish).
    CA_TRY(tx, WriteTx::begin(ctx, access));
    CA_TRY(results, tx.commit(writes(tx.who())));
    return Written{tx.who(), std::move(results)};
  }
  CA_TRY(check, write_check(ctx, access));
  Queries all{check.query};
  Queries mine = writes(check.who);
  all.insert(all.end(), mine.begin(), mine.end());
  std::vector<DbResult> r = ctx.db.write_pipeline(all);
  // Refused or failed: the implicit transaction is rolled back already.
  CA_TRY(who, write_check_result(ctx, access, check, r[0]));
  r.erase(r.begin());
  if (const DbError* failed = first_failure(r)) return Error::database(*failed);
  return Written{std::move(who), std::move(r)};
}

Result<WriteTx> WriteTx::begin(Ctx& ctx, const Access& access, const QueriesFor& checks) {
  CA_TRY(check, write_check(ctx, access));
  Queries then = checks ? checks(check.who) : Queries{};
  std::vector<DbResult> r;
  if (ctx.idempotency != nullptr) {
    r = ctx.idempotency->begin_write(check.query, check.who.user_id, check.who.tenant_id, then);
  } else {
    Queries all{check.query};
    all.insert(all.end(), then.begin(), then.end());
    r = ctx.db.begin_request(all);
  }
  WriteTx tx(ctx);
  // Open from here: its destructor rolls back (for a keyed request,
  // IdempotentRequest::finish does).
  tx.open_ = ctx.db.request_open() && ctx.idempotency == nullptr;
  if (!r[0].ok()) {
    // Refused: nothing ran after the check. Roll back now, so that the
    // refusal may look the path tenant up.
    ctx.db.rollback_request();
    tx.open_ = false;
  }
  CA_TRY(who, write_check_result(ctx, access, check, r[0]));
  if (ctx.idempotency != nullptr) {
    Result<bool> go_on = ctx.idempotency->after_auth();
    if (!go_on.ok()) return std::move(go_on.error());
  }
  r.erase(r.begin());
  if (const DbError* failed = first_failure(r)) return Error::database(*failed);
  tx.who_ = std::move(who);
  tx.checks_ = std::move(r);
  return tx;
}

WriteTx::WriteTx(WriteTx&& other) noexcept
    : ctx_(other.ctx_),
      who_(std::move(other.who_)),
      checks_(std::move(other.checks_)),
      open_(other.open_) {
  other.open_ = false;
}

WriteTx::~WriteTx() {
  if (open_) ctx_->db.rollback_request();
}

Result<std::vector<DbResult>> WriteTx::commit(const Queries& writes) {
  Db& db = ctx_->db;
  std::vector<DbResult> r;
  if (ctx_->idempotency != nullptr) {
    if (writes.empty()) return r;
    r = db.pipeline(writes);
    if (const DbError* failed = first_failure(r)) {
      db.fail_request();
      return Error::database(*failed);
    }
    return r;
  }
  open_ = false;
  r = db.commit_request_results(writes);
  if (const DbError* failed = first_failure(r)) {
    return Error::database(*failed);
  }
  r.pop_back();  // COMMIT's
  return r;
}

}  // namespace ca
