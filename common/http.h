// Request and Response: what a handler sees of one HTTP exchange.
//
// A Request is filled by the serve loop from the FastCGI parameters and body
// and is read-only for handlers. A Response is a value the handler returns;
// the serve loop writes it. Neither is shared between threads.
#pragma once

#include <cjson/cJSON.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json.h"

namespace ca {

struct Request {
  std::string method;
  std::string path;   // decoded, without the query string
  std::string query;  // raw query string
  std::string body;
  std::string authorization;  // Authorization header, as sent
  std::string tenant_header;  // X-Tenant-ID header, as sent
  bool has_tenant_header = false;
  std::string remote_addr;
  std::vector<int64_t> params;  // integer path parameters, in order
  int connection_fd = -1;       // the FastCGI connection it came on (for client_gone)

  // The decoded value of query parameter `name`, if present.
  std::optional<std::string> query_param(std::string_view name) const;
};

// How long ago nginx passed the request on, from its REQUEST_START
// parameter (nginx's $msec: unix seconds with milliseconds) and the time
// `now`; nullopt when absent, malformed, in the future or over an hour old.
std::optional<std::chrono::milliseconds> request_age(const char* request_start,
                                                     std::chrono::system_clock::time_point now);

// True when the connection `req` came on has been closed by nginx: the
// client went away (nginx drops the upstream connection when its client
// aborts) and nothing answered will reach anyone. For handlers about to do
// expensive work, such as hashing a password. False when unknown.
bool client_gone(const Request& req);

struct Response {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static Response json(int status, const cJSON* body);
  static Response json(int status, const Json& body) { return json(status, body.get()); }
  // `{"error": message}`.
  static Response error(int status, std::string_view message);
  // `{"success": true, "message"?, "data"?}`: the envelope of the orders,
  // announcements and categories endpoints. Null message / data are left out.
  static Response success(int status, const char* message, Json data = nullptr);

  Response& header(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
};

// The reason phrase for a status code ("Not Found").
const char* status_reason(int status);

// Percent-decoding for query strings ('+' is a space). Empty on malformed input.
std::optional<std::string> url_decode(std::string_view in);

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool utf8_valid(std::string_view s);

// Number of code points in valid UTF-8 `s`.
size_t utf8_length(std::string_view s);

// The FastCGI parameter `name` ("HTTP_X_TENANT_ID") of a request's
// environment (`envp`: "NAME=value" strings, null-terminated). A request
// header sent on several lines arrives from nginx 1.22 as one parameter per
// line; their values are joined with ", " as HTTP combines them (and nginx
// 1.23 does itself), so a header that must hold one value is never read as
// its first line alone. nullopt when absent.
std::optional<std::string> fcgi_param(const char* const* envp, std::string_view name);

}  // namespace ca
