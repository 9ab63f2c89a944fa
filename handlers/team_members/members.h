// Team member endpoints (SPEC "Team members", DESIGN §4 "Team members").
#pragma once

#include <cstdint>

#include "result.h"
#include "router.h"

namespace ca {

Result<Response> members_list(Ctx& ctx);
Result<Response> members_update_role(Ctx& ctx);
Result<Response> members_remove(Ctx& ctx);

// Inside a membership change's transaction: locks the tenant row (every
// membership change does, so they run one at a time per tenant), then asks
// again whether `caller_id` is an ADMIN: 403 when no longer.
Result<bool> lock_tenant_as_admin(Ctx& ctx, int64_t tenant_id, int64_t caller_id);

}  // namespace ca
