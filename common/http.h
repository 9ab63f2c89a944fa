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
  std::optional<std::string> idempotency_key;  // Idempotency-Key header, as sent
  std::string remote_addr;
  std::string request_id;       // REQUEST_ID when clean, else fresh (request_id.h)
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
  // A body already JSON text (json_rendered.h's rendered_page_text()).
  static Response text(int status, std::string json_body) {
    Response r;
    r.status = status;
    r.body = std::move(json_body);
    return r;
  }
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

// Calls `visit(code_point)` for each code point of `s` in order. False when
// `s` is not well-formed UTF-8 (overlongs, surrogates, > U+10FFFF, a cut
// sequence) or `visit` returned false; the one UTF-8 decoder of the project.
template <class Visit>
bool utf8_decode(std::string_view s, Visit&& visit) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    unsigned char c = *p;
    int extra = 0;
    uint32_t cp = c;
    if (c < 0x80) {
      extra = 0;
    } else if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    for (int i = 1; i <= extra; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    if (!visit(cp)) return false;
    p += extra + 1;
  }
  return true;
}

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
inline bool utf8_valid(std::string_view s) {
  return utf8_decode(s, [](uint32_t) { return true; });
}

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
