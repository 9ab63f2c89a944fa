// The cap on the tenants one user belongs to (MEMBERSHIPS_MAX_PER_USER;
// docs/decisions/0061-memberships-per-user-cap.md): every write that adds a
// membership (a tenant created, an invitation accepted by an existing
// account) sends these checks before it, in the same round trip and
// transaction. They take the user's turn at their memberships, then count
// them in a statement of its own and raise 422 (`limit`) when the user
// belongs to the cap already, which rolls back everything after them.
#pragma once

#include <cstdint>
#include <optional>

#include "request_tx.h"

namespace ca {

// The checks for a new membership of `user_id`, in this order before the
// write: the user's turn (user_turn.h), the Citus read mode, the count.
// `joining`: the tenant being joined, left out of the count (already a
// member there, the write's own answer follows: 409); none for a tenant
// being created.
Queries membership_cap_checks(int64_t user_id, std::optional<int64_t> joining, int64_t max);

}  // namespace ca
