// FastCGI to Request and Response to FastCGI: what nginx passes
// (nginx/commerce-admin.conf.in) read into a Request, and a Response written
// back as a CGI-style head and body.
//
// Each function works on the one request it is given, by the thread that
// serves it.
#pragma once

#include <fcgiapp.h>

#include <string>

#include "http.h"

namespace ca {

// The request's parameters (method, path, query, headers, request id,
// connection); the body is read by read_body.
Request request_from_fcgi(FCGX_Request& r);

enum class BodyRead {
  kWhole,
  kTooLarge,  // over the cap (1 MiB), left unread
  kCut,       // ended before its end: its deadline shut it (common/request_arrival.h), or nginx
              // gave up on the client
};

// Reads the body into `out`: CONTENT_LENGTH bytes (or, without one, a
// chunked body, up to the end of the request's input), then the input up to
// its end. Unless kWhole, the connection must not be kept.
BodyRead read_body(FCGX_Request& r, std::string* out);

// Writes `resp` (status line, headers, JSON Content-Type unless it has its
// own, body).
void write_response(FCGX_Request& r, const Response& resp);

}  // namespace ca
