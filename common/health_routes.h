// GET /healthz and GET /api/v2/admin/ping, for any handler's route table.
//
// Safe from every worker thread. /healthz's answer is shared by the
// process's threads for up to 1 s (health_cache.h).
#pragma once

#include "router.h"

namespace ca {

// 200 {"status":"ok"} when the database answers, else 503 {"status":"unavailable"};
// the answer may be up to 1 s old.
Result<Response> health_handler(Ctx& ctx);
// 200 {"status":"ok"} without touching the database.
Result<Response> ping_handler(Ctx& ctx);

}  // namespace ca
