// The memberships-per-user cap's statements (membership_cap.h).
#include "membership_cap.h"

#include <string>

#include "error.h"

namespace ca {
namespace {

// The user's turn: a transaction-scoped advisory lock (class 6001, the
// user's id in 31 bits; two users sharing them only wait for each other).
// Not a row: a user's memberships are on every shard (Citus), and a lock on
// one shard's or on a reference table's row can be released before the
// other write's membership is visible on its own shard. This lock is the
// coordinator's own, released only after every worker's part of the other
// write committed. Taken first, before any row lock of the user (the
// tenant create's, the accept's update of users), so two writes never take
// them in opposite orders.
const Statement kTurn{"memberships_cap_turn",
                      "SELECT pg_advisory_xact_lock(6001, ($1::bigint & 2147483647)::int)"};

// On Citus, a reference table (users, tenants) may not be written in a
// transaction after a parallel read of a distributed table that refers to
// it (memberships): the count is made sequential for this transaction (as
// a member removal's read, handlers/team_members/member_write.cc). Only a
// setting on a single PostgreSQL.
const Statement kSequential{"memberships_cap_sequential",
                            "SELECT set_config('citus.multi_shard_modify_mode', 'sequential', "
                            "true) AS mode"};

// $1 user, $2 the tenant joined (NULL: one being created), $3 the cap, $4
// the refusal's message. Raises CA422 (Error::database(): 422 `limit`) when
// the user belongs to $3 tenants other than $2. A statement of its own
// after the turn: its snapshot sees every membership written before it. By
// memberships_user_idx; on Citus one read per shard (docs/scaling.md).
const Statement kUnderCap{"memberships_cap_count",
                          "SELECT CASE WHEN count(*) >= $3::bigint THEN ca_refuse('CA422', $4) "
                          "END AS refused FROM memberships "
                          "WHERE user_id = $1 AND ($2::bigint IS NULL OR tenant_id <> $2::bigint)"};

}  // namespace

Queries membership_cap_checks(int64_t user_id, std::optional<int64_t> joining, int64_t max) {
  const std::string refusal =
      Error::limit_message("memberships per user", max, "MEMBERSHIPS_MAX_PER_USER");
  return Queries{
      {&kTurn, {user_id}}, {&kSequential, {}}, {&kUnderCap, {user_id, joining, max, refusal}}};
}

}  // namespace ca
