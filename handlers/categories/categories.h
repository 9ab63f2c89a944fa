// Category endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Categories"). All are
// tenant-scoped (X-Tenant-ID) and use the `{success, ...}` body family.
#pragma once

#include "router.h"

namespace ca {

// Not-found and validation errors are `{success:false, ...}`, 500 and 503
// `{error}` (docs/design/api-conventions.md, "Error bodies").
inline constexpr ErrorStyle kCategoryStyle = ErrorStyle::kSuccess4xx;

Result<Response> categories_list(Ctx& ctx);
Result<Response> categories_create(Ctx& ctx);
Result<Response> categories_toggle(Ctx& ctx);
Result<Response> categories_update(Ctx& ctx);
Result<Response> categories_delete(Ctx& ctx);

}  // namespace ca
