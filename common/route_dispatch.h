// One request through the route table: the matching route's handler called
// (with Idempotency-Key replay when the route takes it), or 404/405.
//
// Thread-safe as far as its arguments are: the Router is read-only, the
// Request and Db belong to the calling thread.
#pragma once

#include "config.h"
#include "db.h"
#include "http.h"
#include "router.h"

namespace ca {

// The response to `req`; fills req.params from the matched pattern. An
// exception escaping a handler becomes a 500 in the route's error style.
Response dispatch(const Router& router, Request& req, Db& db, const Config& config);

}  // namespace ca
