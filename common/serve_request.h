// One FastCGI request from its parameters to its written response: read,
// routed with a pooled database connection, answered, counted (/metrics)
// and logged.
//
// Called by a worker thread for a request libfcgi has accepted; the Router
// and Config are read-only, the pool is thread-safe.
#pragma once

#include <fcgiapp.h>

#include <atomic>

#include "config.h"
#include "db_pool.h"
#include "router.h"
#include "tenant_read_nodes.h"

namespace ca {

// Why a request is answered without reading its body (common/request_arrival.h).
enum class BodyCut {
  kNone,
  kTimeout,  // 408: the body did not arrive within kBodyDeadline
  kBusy,     // 503: every thread that may wait for a body is waiting for one
};

// Where a request's database connection comes from.
struct Pools {
  DbPool* pool;                             // DATABASE_URL
  DbPool* read_pool = nullptr;              // DATABASE_READ_URL, if set
  TenantReadNodes* tenant_nodes = nullptr;  // CITUS_READ_ROUTING=tenant
};

// `cut`: the request is answered as it says, its body left unread. False
// when the body was not read whole (cut, or over 1 MiB): the connection
// cannot carry another request. A read (GET, HEAD) that names its tenant
// (X-Tenant-ID) takes its connection from the tenant's node when
// `tenant_nodes` routes reads; any other read from `read_pool` when there is
// one; everything else from `pool`.
// `body_reader`: the count of threads reading a large body
// (Dispatcher::body_readers) this request is counted in, if it is; taken
// off once its body is read, before the answer is written: the answer lets
// nginx send its next large body at once, maybe on another connection.
bool serve_request(FCGX_Request& r, const Router& router, const Config& config, const Pools& pools,
                   BodyCut cut = BodyCut::kNone, std::atomic<int>* body_reader = nullptr);

}  // namespace ca
