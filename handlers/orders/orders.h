// Order and address endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Orders" and
// "Addresses"). Orders are T operations: they need `X-Tenant-ID` and
// membership (any role). Addresses belong to the caller, not to a tenant.
#pragma once

#include "router.h"

namespace ca {

Result<Response> addresses_create(Ctx& ctx);
Result<Response> addresses_list(Ctx& ctx);
Result<Response> addresses_delete(Ctx& ctx);

Result<Response> orders_create(Ctx& ctx);
Result<Response> orders_read(Ctx& ctx);
Result<Response> orders_list(Ctx& ctx);
Result<Response> orders_update_status(Ctx& ctx);

}  // namespace ca
