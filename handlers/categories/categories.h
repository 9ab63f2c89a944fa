// Category endpoints (SPEC "Categories", DESIGN §4 "Categories"). All are
// tenant-scoped (X-Tenant-ID) and use the `{success, ...}` body family.
#pragma once

#include "router.h"

namespace ca {

Response categories_list(Ctx& ctx);
Response categories_create(Ctx& ctx);
Response categories_toggle(Ctx& ctx);
Response categories_update(Ctx& ctx);
Response categories_delete(Ctx& ctx);

}  // namespace ca
