// The memberships-per-user cap's statements (membership_cap.h).
#include "membership_cap.h"

#include <string>

#include "error.h"
#include "user_turn.h"

namespace ca {
namespace {

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
      user_turn(user_id), {&kSequential, {}}, {&kUnderCap, {user_id, joining, max, refusal}}};
}

}  // namespace ca
