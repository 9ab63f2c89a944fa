// A user's turn at what they own (docs/decisions/0070-a-users-turn-is-an-
// advisory-lock-of-the-coordinator.md): a create that counts one user's
// rows against a cap (ADDRESSES_MAX_PER_USER, TENANTS_MAX_PER_USER,
// MEMBERSHIPS_MAX_PER_USER) sends user_turn() first, then the count in a
// statement of its own (its snapshot is taken after the turn, so it sees
// every create of the user committed before), then the write, all in one
// round trip and transaction. Two creates of one user take turns from the
// turn to COMMIT; creates of other users do not wait.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "db.h"

namespace ca {

// SELECT pg_advisory_xact_lock(6001, the user's id in 31 bits): a lock of
// the node the handler is connected to, held to the end of the transaction.
// On Citus that must be the coordinator, the one node every handler's
// writes connect to (DATABASE_URL; a worker's lock would be another lock:
// decision 0128); never send it from a read. Ids sharing 31 bits only wait
// for each other.
Db::Query user_turn(int64_t user_id);

// The same for a tenant (class 6002): creates that count one tenant's rows
// against a cap (WEBHOOKS_MAX_PER_TENANT) take turns from here to COMMIT.
Db::Query tenant_turn(int64_t tenant_id);

// What a create under a cap sends before its write: `turn` (user_turn() or
// tenant_turn() of `owner`), then `under_cap` with $1 `owner`, $2 `max` and
// $3 Error::limit_message(what, max, setting), a statement that counts the
// owner's rows and refuses with that message (ca_refuse('CA422', $3)) at
// `max`.
std::vector<Db::Query> turn_under_cap(Db::Query turn, const Statement& under_cap, int64_t owner,
                                      int64_t max, std::string_view what, std::string_view setting);

}  // namespace ca
