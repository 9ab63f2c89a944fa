// A user's turn (user_turn.h).
#include "user_turn.h"

#include "error.h"

namespace ca {
namespace {

// Not a row lock. On Citus, a row lock of `users` (a reference table) takes
// Citus's lock of the whole table and then of `tenants` (which it refers
// to), while a write of a table that refers to users (sessions: a login,
// the worker's purge) takes them in the opposite order: the two deadlock
// (40P01, answered 503). A row on one shard is released when that worker
// commits, possibly before the other create's rows are visible on another.
// An advisory lock of the coordinator takes no Citus lock, and the
// coordinator releases it only after every worker's part of the
// transaction committed (Citus commits them in its commit callback, before
// PostgreSQL releases the transaction's locks).
const Statement kUserTurn{"user_turn",
                          "SELECT pg_advisory_xact_lock(6001, ($1::bigint & 2147483647)::int)"};

const Statement kTenantTurn{"tenant_turn",
                            "SELECT pg_advisory_xact_lock(6002, ($1::bigint & 2147483647)::int)"};

}  // namespace

Db::Query user_turn(int64_t user_id) { return {&kUserTurn, {user_id}}; }

Db::Query tenant_turn(int64_t tenant_id) { return {&kTenantTurn, {tenant_id}}; }

std::vector<Db::Query> turn_under_cap(Db::Query turn, const Statement& under_cap, int64_t owner,
                                      int64_t max, std::string_view what,
                                      std::string_view setting) {
  return {std::move(turn), {&under_cap, {owner, max, Error::limit_message(what, max, setting)}}};
}

}  // namespace ca
