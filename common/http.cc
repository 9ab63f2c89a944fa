#include "http.h"

#include <poll.h>

#include <cstdlib>

namespace ca {

std::optional<std::chrono::milliseconds> request_age(const char* request_start,
                                                     std::chrono::system_clock::time_point now) {
  if (request_start == nullptr || *request_start == '\0') return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(request_start, &end);
  // (Also refuses NaN and anything past the year 5000, before the cast.)
  if (end == request_start || *end != '\0' || !(seconds > 0 && seconds < 1e11)) {
    return std::nullopt;
  }
  auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
  auto age = since_epoch - std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
  if (age < std::chrono::milliseconds(0) || age > std::chrono::hours(1)) return std::nullopt;
  return age;
}

bool client_gone(const Request& req) {
  if (req.connection_fd < 0) return false;
  // The request has been read in full, so what is left to see is the peer's
  // close: POLLRDHUP (and POLLHUP on a unix socket), not data.
  pollfd p{req.connection_fd, POLLRDHUP, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

std::optional<std::string> Request::query_param(std::string_view name) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    size_t eq = pair.find('=');
    std::string_view key = pair.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    auto decoded_key = url_decode(key);
    if (decoded_key && *decoded_key == name) {
      // A malformed escape is passed on raw; the caller's validation refuses it.
      auto decoded = url_decode(value);
      return decoded ? *decoded : std::string(value);
    }
  }
  return std::nullopt;
}

Response Response::json(int status, const cJSON* body) {
  Response r;
  r.status = status;
  r.body = json_dump(body);
  return r;
}

Response Response::error(int status, std::string_view message) {
  Json body = json_object();
  json_add_str(body.get(), "error", message);
  return json(status, body);
}

Response Response::success(int status, const char* message, Json data) {
  Json body = json_object();
  json_add_bool(body.get(), "success", true);
  if (message != nullptr) json_add_str(body.get(), "message", message);
  if (data) json_add(body.get(), "data", std::move(data));
  return json(status, body);
}

const char* status_reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 499:
      return "Client Closed Request";  // nginx's code; nobody receives it
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> url_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      int hi = hex_value(in[i + 1]);
      int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<std::string> fcgi_param(const char* const* envp, std::string_view name) {
  std::optional<std::string> value;
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    std::string_view entry = *envp;
    if (entry.size() <= name.size() || entry[name.size()] != '=' ||
        entry.substr(0, name.size()) != name) {
      continue;
    }
    if (value) {
      *value += ", ";
    } else {
      value.emplace();
    }
    *value += entry.substr(name.size() + 1);
  }
  return value;
}

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

}  // namespace ca
