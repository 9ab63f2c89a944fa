// GET /healthz and GET /api/v2/admin/ping, for any handler's route table.
//
// Stateless; safe from every worker thread.
#pragma once

#include "router.h"

namespace ca {

// 200 {"status":"ok"} when the database answers, else 503 {"status":"unavailable"}.
Result<Response> health_handler(Ctx& ctx);
// 200 {"status":"ok"} without touching the database.
Result<Response> ping_handler(Ctx& ctx);

}  // namespace ca
