// One FastCGI request from its parameters to its written response: read,
// routed with a pooled database connection, answered, counted (/metrics)
// and logged.
//
// Called by a worker thread for a request libfcgi has accepted; the Router
// and Config are read-only, the pool is thread-safe.
#pragma once

#include <fcgiapp.h>

#include "config.h"
#include "db_pool.h"
#include "router.h"

namespace ca {

void serve_request(FCGX_Request& r, const Router& router, const Config& config, DbPool& pool);

}  // namespace ca
