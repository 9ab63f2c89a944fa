// Tenant endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Tenants").
#pragma once

#include "router.h"

namespace ca {

Result<Response> tenants_list(Ctx& ctx);
Result<Response> tenants_create(Ctx& ctx);
Result<Response> tenants_read(Ctx& ctx);
Result<Response> tenants_update(Ctx& ctx);

}  // namespace ca
