// Product endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Products"). All are
// tenant-scoped (X-Tenant-ID); errors use the plain `{error}` /
// `{message, errors}` family; the list is wrapped in `{success, data}`.
#pragma once

#include "router.h"

namespace ca {

Result<Response> products_list(Ctx& ctx);
Result<Response> products_create(Ctx& ctx);
Result<Response> products_read(Ctx& ctx);
Result<Response> products_update(Ctx& ctx);
Result<Response> products_delete(Ctx& ctx);

}  // namespace ca
