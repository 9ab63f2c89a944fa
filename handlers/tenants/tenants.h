// Tenant endpoints (SPEC "Tenants", DESIGN §4 "Tenants").
#pragma once

#include "router.h"

namespace ca {

Response tenants_list(Ctx& ctx);
Response tenants_create(Ctx& ctx);
Response tenants_read(Ctx& ctx);
Response tenants_update(Ctx& ctx);

}  // namespace ca
