// Team member endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Team members").
#pragma once

#include <cstdint>

#include "request_tx.h"
#include "result.h"
#include "router.h"

namespace ca {

Result<Response> members_list(Ctx& ctx);
Result<Response> members_update_role(Ctx& ctx);
Result<Response> members_remove(Ctx& ctx);

// Checks for a membership change's send_first() (common/request_tx.h), sent with its
// session check: lock the tenant row (every membership change does, so they
// run one at a time per tenant), then ask again whether `caller_id` is an
// ADMIN. still_admin() reads their answer (the checks from index `first`):
// 403 when no longer.
Queries lock_tenant_as_admin(int64_t tenant_id, int64_t caller_id);
Result<bool> still_admin(Sent& w, size_t first);

}  // namespace ca
