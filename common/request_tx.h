// One request, one transaction, owned by the dispatcher
// (docs/decisions/0130-one-request-one-transaction.md,
// docs/design/write-path.md). route_dispatch makes a RequestTx for every
// request and ends it after the handler; a handler only queues statements
// and says which send they go in:
//
// A write whose checks are folded into its statements (events.h, audit.h)
// is one send, the first and the last:
//
//   CA_TRY(w, send_once(ctx, Access::tenant_header(), [&](const Principal& who) {
//     return Queries{{&kCreate, {who.tenant_id, who.user_id, ...}}};
//   }));
//   const Rows& rows = w.results[0].rows();
//
// A write that must look first (lock a row, judge a transition) is two: the
// checks go in the first send with the session check, the writes in the
// last:
//
//   CA_TRY(w, send_first(ctx, Access::tenant_header(), [&](const Principal& who) {
//     return Queries{{&kLock, {who.tenant_id, id}}};
//   }));
//   if (w.results[0].rows().empty()) return Error::not_found(...);  // rolled back
//   CA_TRY(done, send_last(ctx, {{&kUpdate, {...}}, event_query(w.who.tenant_id, ...)}));
//
// What goes where:
//   - The first send carries BEGIN, the session or API-key check
//     (auth.h's WriteCheck) and, with an Idempotency-Key on a route that
//     takes one, the key's claim (common/idempotency.h), then the handler's
//     statements. The check raises unless the caller may write, which stops
//     everything after it: nothing is read or written for a caller who may
//     not.
//   - The last send carries the handler's writes, then the stored answer of
//     a keyed request, then COMMIT. Without a key the handler's last send
//     ends with COMMIT; with one, the answer is only known once the handler
//     returned, so the dispatcher's end() sends the answer and COMMIT.
//   - A send that is both the first and the last (send_once() without a
//     key) is the pipeline's implicit transaction: PostgreSQL begins it at
//     the first statement and commits it at the pipeline's Sync, or rolls
//     it all back at the first error. Explicit BEGIN and COMMIT would add
//     nothing to it but a ROLLBACK round trip after every refusal.
//   - A refusal (an Error returned, any answer but 2xx) rolls back whatever
//     is still open; a 2xx answer commits it. A send that failed always
//     rolls back: nothing half-written.
//   - A read route (GET, HEAD) runs each of its statements READ ONLY
//     (Db::SendMode: the connection's read-only default, switched only
//     when it differs), in its implicit transaction: one round trip for a
//     read with its session check. Several sends of one read are several
//     transactions: under READ COMMITTED each statement has its own snapshot
//     anyway, so one BEGIN around them would add a round trip (the COMMIT)
//     and no consistency.
//   - Retry: whether a send may be repeated on a new connection after the
//     old one was lost is the route's (Route::repeatable: GET and HEAD, or
//     declared), never guessed from a statement's text.
//
// Round trips, without a key: a read 1; send_once() 1; send_first() and
// send_last() 2; send_check() and send_call() 2. With a key: 3 (BEGIN, check, claim, checks; the
// writes; the answer, COMMIT). A refusal before anything is written (a body that is not JSON,
// fields that fail) must still answer 401/400/403 first: return refuse_before_write() there.
//
// Nothing here is shared between threads: a RequestTx lives in one
// request on its thread's Db.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "idempotency.h"
#include "json.h"
#include "result.h"
#include "router.h"

namespace ca {

using Queries = std::vector<Db::Query>;
using QueriesFor = std::function<Queries(const Principal&)>;

// What a send gave back: the caller its check vouched for, and one result
// per statement the handler queued, in order.
struct Sent {
  Principal who;
  std::vector<DbResult> results;
};

class RequestTx {
 public:
  // For the dispatcher: the transaction of `req` on `route`, on `db`, whose
  // send mode (Db::SendMode) it sets for the request: repeatable as the
  // route says, READ ONLY for a read method.
  RequestTx(const Request& req, Db& db, const RouteMatch& route, const Config& config);
  // Rolls back whatever is still open and puts the send mode back.
  ~RequestTx();
  RequestTx(const RequestTx&) = delete;
  RequestTx& operator=(const RequestTx&) = delete;

  // For the dispatcher, after the handler: the request's answer. A keyed
  // request's stored answer when its claim found one; otherwise the
  // handler's, with what is still open committed on 2xx (a keyed request's
  // answer stored with it) and rolled back on anything else.
  Result<Response> end(Result<Response> handler_answer);

  // The sends (below, and auth.cc's checks). `queries` start with the
  // session check; a keyed request's claim goes out right after it while
  // it is still to be made. `stays_open`: BEGIN goes first and the
  // transaction stays open for the last send; without it and without a
  // claim the send is its own implicit transaction. Returns the results of
  // `queries` (the claim's read here).
  std::vector<DbResult> first(const Queries& queries, int64_t user_id, int64_t tenant_id,
                              bool stays_open);
  // `queries` and, without a key, COMMIT; their results (COMMIT's not among
  // them), or the first failure's answer. A failure rolls back (with a
  // key: at end()).
  Result<std::vector<DbResult>> last(const Queries& queries);
  // auth.h's session or key check `check` alone, as the first send: with
  // a keyed request's claim while that is still to be made (BEGIN, check,
  // claim), as a plain statement otherwise.
  DbResult check_caller(const Db::Query& check, int64_t user_id, int64_t tenant_id);
  // The check of a write refused before it ran: nothing after it may run.
  void roll_back() { db_.rollback(); }
  // Once the caller is allowed: a keyed request's claim has the last word
  // (its stored answer, 422, 400); true to go on.
  Result<bool> after_auth();
  bool keyed() const { return key_.has_value(); }
  // A keyed request whose claim is still to be sent.
  bool to_claim() const { return key_ && key_->to_claim(); }

 private:
  Db& db_;
  Db::SendMode before_;
  std::optional<IdempotencyKey> key_;
  bool failed_ = false;  // a send failed: nothing may commit
};

// The first and last send: the session check (none for Access::anyone(),
// whose statements check what the request presents), the claim of a key,
// `writes`. One round trip (three with a key). A failed write is answered
// 500/503 (or as Error::database() says) in the route's style.
Result<Sent> send_once(Ctx& ctx, const Access& access, const QueriesFor& writes);

// A write that is one call of a function the database runs where the
// tenant's rows are (on Citus, delegated whole to the tenant's worker:
// sql/060, docs/decisions/0137-order-create-is-one-delegated-call.md), and
// that needs values from the coordinator first (ids from its sequences).
// Without a key each send is its own implicit transaction: the call must
// not run inside a transaction block, where Citus would coordinate it from
// the coordinator as a distributed transaction. The check still comes first
// and nothing is sent after a refusal; the call is a write of its own, as
// if sent a moment after the check. With a key they are send_first() and
// send_last(): one transaction, the answer stored at its COMMIT.
//
// send_check(): the session check, the claim of a key, `reads`. One round
// trip; their results.
Result<Sent> send_check(Ctx& ctx, const Access& access, const QueriesFor& reads);
// send_call(): `writes` (the call), never repeated. Their results, or the
// first failure's answer.
Result<std::vector<DbResult>> send_call(Ctx& ctx, const Queries& writes);

// The first send of a two-send write: BEGIN, the session check, the claim of
// a key, `checks` (may be empty). The transaction stays open for
// send_last(); a handler that answers without it has it committed (2xx) or
// rolled back by the dispatcher.
Result<Sent> send_first(Ctx& ctx, const Access& access, const QueriesFor& checks = {});

// The last send: `writes`, then COMMIT (with a key, the dispatcher sends the
// answer and COMMIT after the handler). Their results.
Result<std::vector<DbResult>> send_last(Ctx& ctx, const Queries& writes);

// The caller as the write's session check would judge them, without
// writing: authenticate(), authenticate_tenant_header() or
// authenticate_path_tenant() (auth.h) by `access`; one round trip. For the
// refusal path of a write only.
Result<Principal> authenticate_for(Ctx& ctx, const Access& access);

// A write refused before it runs: a body that is not JSON (`body` failed),
// or fields that fail (`errs`). The caller's 401/400/403/404 come first,
// then the body's 400, then 422 with `errs`.
Error refuse_before_write(Ctx& ctx, const Access& access, Result<Json>& body,
                          const FieldErrors& errs = {});

}  // namespace ca
