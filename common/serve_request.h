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

// Why a request is answered without reading its body (common/request_arrival.h).
enum class BodyCut {
  kNone,
  kTimeout,  // 408: the body did not arrive within kBodyDeadline
  kBusy,     // 503: every thread that may wait for a body is waiting for one
};

// `cut`: the request is answered as it says, its body left unread. False
// when the body was not read whole (cut, or over 1 MiB): the connection
// cannot carry another request. A read (GET, HEAD) takes its connection from
// `read_pool` when there is one (DATABASE_READ_URL), everything else from
// `pool` (DATABASE_URL).
bool serve_request(FCGX_Request& r, const Router& router, const Config& config, DbPool& pool,
                   DbPool* read_pool, BodyCut cut = BodyCut::kNone);

}  // namespace ca
