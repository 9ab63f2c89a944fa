// Team member endpoints (docs/openapi.yaml, docs/design/api-conventions.md "Team members").
#pragma once

#include "result.h"
#include "router.h"

namespace ca {

Result<Response> members_list(Ctx& ctx);
Result<Response> members_update_role(Ctx& ctx);
Result<Response> members_remove(Ctx& ctx);

}  // namespace ca
