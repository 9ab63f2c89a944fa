#include "fcgi_request.h"

#include <cstdlib>
#include <utility>

#include "request_id.h"

namespace ca {
namespace {

// Requests larger than this are refused before reading (nginx caps at 1 MiB).
constexpr size_t kMaxBody = 1 << 20;

const char* param(FCGX_Request& r, const char* name) {
  const char* v = FCGX_GetParam(name, r.envp);
  return v ? v : "";
}

}  // namespace

Request request_from_fcgi(FCGX_Request& r) {
  Request req;
  req.method = param(r, "REQUEST_METHOD");
  // nginx passes only what is read here (nginx/commerce-admin.conf.in).
  req.path = param(r, "DOCUMENT_URI");
  req.query = param(r, "QUERY_STRING");
  // A header sent twice is read as both values (nginx refuses a second
  // Authorization line itself; X-Tenant-ID "21, 1" is not a tenant id).
  if (auto auth = fcgi_param(r.envp, "HTTP_AUTHORIZATION")) req.authorization = std::move(*auth);
  if (auto tenant = fcgi_param(r.envp, "HTTP_X_TENANT_ID")) {
    req.tenant_header = std::move(*tenant);
    req.has_tenant_header = true;
  }
  req.idempotency_key = fcgi_param(r.envp, "HTTP_IDEMPOTENCY_KEY");
  req.remote_addr = param(r, "REMOTE_ADDR");
  // Chosen by nginx: the client's own X-Request-Id when sane, else its
  // $request_id (nginx/commerce-admin.conf.in); checked again by nginx's
  // rule for a caller that bypasses nginx (a fresh id instead). Every log
  // line of the request and its 500 body carry it.
  req.request_id = clean_request_id(param(r, "REQUEST_ID"));
  req.connection_fd = r.ipcFd;
  return req;
}

// Reads the body, then the request's input up to its end: nginx closes the
// body with an empty STDIN record, and when that record came in a later
// read than the body's last byte it would otherwise stay on a kept
// connection and be taken for the start of the next request (a protocol
// error: libfcgi closes the connection, and the request nginx sent on it
// meanwhile gets a 502). A chunked body comes without CONTENT_LENGTH (nginx
// passes bodies on as they arrive): it is read to the end of the input.
BodyRead read_body(FCGX_Request& r, std::string* out) {
  const char* length_text = param(r, "CONTENT_LENGTH");
  bool sized = *length_text != '\0';
  size_t length = std::strtoull(length_text, nullptr, 10);
  if (length > kMaxBody) return BodyRead::kTooLarge;
  out->resize(length);
  size_t got = 0;
  while (got < length) {
    int n = FCGX_GetStr(out->data() + got, static_cast<int>(length - got), r.in);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out->resize(got);
  char rest[4096];
  for (int n; (n = FCGX_GetStr(rest, sizeof(rest), r.in)) > 0;) {
    if (sized) continue;
    if (out->size() + static_cast<size_t>(n) > kMaxBody) return BodyRead::kTooLarge;
    out->append(rest, static_cast<size_t>(n));
  }
  // Ended by an error (end-of-file before the STDIN record), not its end.
  if (FCGX_GetError(r.in) != 0 || got < length) return BodyRead::kCut;
  return BodyRead::kWhole;
}

void write_response(FCGX_Request& r, const Response& resp) {
  std::string head =
      "Status: " + std::to_string(resp.status) + " " + status_reason(resp.status) + "\r\n";
  bool typed = false;  // JSON unless the response says otherwise (/metrics)
  for (const auto& [name, value] : resp.headers) {
    head += name + ": " + value + "\r\n";
    typed = typed || name == "Content-Type";
  }
  if (!typed) head += "Content-Type: application/json; charset=utf-8\r\n";
  head += "\r\n";
  FCGX_PutStr(head.data(), static_cast<int>(head.size()), r.out);
  FCGX_PutStr(resp.body.data(), static_cast<int>(resp.body.size()), r.out);
}

}  // namespace ca
