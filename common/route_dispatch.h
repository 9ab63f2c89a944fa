// One request through the route table: the matching route's handler called
// inside the request's one transaction (common/request_tx.h, which also
// replays a stored Idempotency-Key answer), or 404/405.
//
// Thread-safe as far as its arguments are: the Router is read-only, the
// Request and Db belong to the calling thread.
#pragma once

#include "config.h"
#include "db.h"
#include "error.h"
#include "http.h"
#include "router.h"

namespace ca {

// A handler's answer as the response: an Error is rendered in `style` here,
// the one place every route's errors get their shape (common/error.h).
Response respond(Result<Response> answer, ErrorStyle style);

// The response to `req`; fills req.params from the matched pattern. An
// exception escaping a handler becomes a 500 in the route's error style.
Response dispatch(const Router& router, Request& req, Db& db, const Config& config);

}  // namespace ca
