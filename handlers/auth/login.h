// POST /api/v2/admin/login and POST /api/v2/admin/logout.
#pragma once

#include "router.h"

namespace ca {

Result<Response> login_handler(Ctx& ctx);
Result<Response> logout_handler(Ctx& ctx);

}  // namespace ca
