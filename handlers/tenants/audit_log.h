// GET /api/v2/admin/audit-log/{tenantId} (docs/openapi.yaml "AuditEntry";
// the entries are written by the writes themselves, common/audit.h). Read
// only: there is no way to change or delete an entry through the API.
#pragma once

#include "router.h"

namespace ca {

// A page of the tenant's entries, newest first, filtered by actor, action,
// target and time: ADMIN of the tenant (or an API key with audit:read).
Result<Response> audit_log_list(Ctx& ctx);

}  // namespace ca
