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

#include "db.h"

namespace ca {

// SELECT pg_advisory_xact_lock(6001, the user's id in 31 bits): a lock of
// the node the handler is connected to (the coordinator on Citus), held to
// the end of the transaction. Ids sharing 31 bits only wait for each other.
Db::Query user_turn(int64_t user_id);

// The same for a tenant (class 6002): creates that count one tenant's rows
// against a cap (WEBHOOKS_MAX_PER_TENANT) take turns from here to COMMIT.
Db::Query tenant_turn(int64_t tenant_id);

}  // namespace ca
