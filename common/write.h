// One write: authenticate, check, write, emit the event(s), commit, in the
// fewest round trips to PostgreSQL. Every write endpoint goes through here.
//
// Usage. A write whose statements need no decision in C++ between the
// session check and the write (checks folded into the write statement, an
// event inserted by the same statement: see events.h) is one call, one
// round trip:
//
//   CA_TRY(w, write_once(ctx, Access::tenant_header(), [&](const Principal& who) {
//     return Queries{{&kCreate, {who.tenant_id, who.user_id, ...}}};
//   }));
//   const Rows& rows = w.results[0].rows();
//
// A write that must look first (lock a row, judge a transition) opens a
// WriteTx: the checks travel with the session check, the writes with
// COMMIT, two round trips:
//
//   CA_TRY(w, WriteTx::begin(ctx, Access::tenant_header(), [&](const Principal& who) {
//     return Queries{{&kLock, {who.tenant_id, id}}};
//   }));
//   Rows& locked = w.check(0).rows();
//   if (locked.empty()) return Error::not_found(...);   // rolled back
//   CA_TRY(done, w.commit({{&kUpdate, {...}}, event_query(w.who().tenant_id, type, data)}));
//
// A write that no session authorises (Access::anyone(): accepting an
// invitation with its token and a new account) is write_once() without the
// session check: its statement checks the request and refuses by raising
// (ca_refuse(), sql/014, with CA400 or CA409: Error::database() answers 400
// or 409 with the statement's message), which rolls back all of it.
//
// Round trips:
//   write_once       1: the session check, the writes; one implicit
//                       transaction, committed at once.
//   WriteTx          2: BEGIN, the session check, the checks; the writes,
//                       COMMIT.
//   with a key       3: a keyed request (common/idempotency.h) claims its
//                       key with the session check, and commits what it wrote
//                       with its stored answer: BEGIN, check, claim, checks;
//                       the writes; the answer, COMMIT.
//
// The session check goes first in the same pipeline and raises unless the
// caller may write (no live session: 401; not a member: 403; not the role:
// 403; a path tenant that does not exist: 404), which stops every statement
// after it: nothing is read or written for a caller who may not. A failure
// anywhere rolls everything back; nothing half-written. There is no session
// cache: a logout or a deactivation holds on the very next request.
//
// A request refused before it gets here (a body that is not JSON, fields
// that fail) must still answer 401/400/403 first: on that path return
// refuse_before_write() (or, to check more before answering, call
// authenticate_for() first), as orders_create() does. A write's own failure comes back as
// Error::database() (error.h), rendered in the route's style.
//
// The queries are built by a function of the caller (`who.user_id`,
// `who.tenant_id`, from the token and the request) before the check has run;
// they only run if it passes. Nothing here is shared between threads: a
// WriteTx lives in one handler call on its thread's Db.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "json.h"
#include "result.h"
#include "router.h"

namespace ca {

using Queries = std::vector<Db::Query>;
using QueriesFor = std::function<Queries(const Principal&)>;

struct Written {
  Principal who;
  std::vector<DbResult> results;  // one per write, in order
};

// Authenticates and runs `writes` in one round trip (three with an
// idempotency key, as above). A failed write is answered 500/503 in the
// route's error style, everything rolled back.
Result<Written> write_once(Ctx& ctx, const Access& access, const QueriesFor& writes);

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

class WriteTx {
 public:
  // BEGIN, the session check, the key's claim (keyed requests) and
  // `checks` (may be empty) in one round trip. A failed check is answered
  // 500/503; a stored answer of the key, 422 or 400 (common/idempotency.h)
  // is returned as the error to answer.
  static Result<WriteTx> begin(Ctx& ctx, const Access& access, const QueriesFor& checks = {});

  WriteTx(WriteTx&& other) noexcept;
  WriteTx& operator=(WriteTx&&) = delete;
  WriteTx(const WriteTx&) = delete;
  WriteTx& operator=(const WriteTx&) = delete;
  // Rolls back unless commit() ran.
  ~WriteTx();

  const Principal& who() const { return who_; }
  DbResult& check(size_t i) { return checks_[i]; }

  // `writes` and COMMIT in one round trip; their results. In a keyed
  // request the COMMIT is the one that stores the answer (later). A failed
  // write (or COMMIT) rolls everything back and is answered 500/503.
  Result<std::vector<DbResult>> commit(const Queries& writes);

 private:
  explicit WriteTx(Ctx& ctx) : ctx_(&ctx) {}

  Ctx* ctx_;
  Principal who_;
  std::vector<DbResult> checks_;
  bool open_ = false;  // this object still has to end the transaction
};

}  // namespace ca
