// Team member endpoints (SPEC "Team members", DESIGN §4 "Team members").
#pragma once

#include "router.h"

namespace ca {

Response members_list(Ctx& ctx);
Response members_add(Ctx& ctx);
Response members_update_role(Ctx& ctx);
Response members_remove(Ctx& ctx);

}  // namespace ca
