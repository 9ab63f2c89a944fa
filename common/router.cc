#include "router.h"

namespace ca {

int64_t parse_id(std::string_view text) {
  if (text.empty() || text.size() > 19 || text[0] == '0') return 0;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    int digit = c - '0';
    if (v > (INT64_MAX - digit) / 10) return 0;
    v = v * 10 + digit;
  }
  return v;
}

static std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path[0] != '/') return out;
  size_t start = 1;
  while (true) {
    size_t slash = path.find('/', start);
    out.push_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

Router::Router(std::vector<Route> routes) {
  for (const Route& r : routes) {
    Compiled c{r, {}};
    for (std::string_view seg : split_path(r.pattern)) {
      bool param = seg.size() >= 2 && seg.front() == '{' && seg.back() == '}';
      c.segments.emplace_back(param ? "{}" : std::string(seg));
    }
    routes_.push_back(std::move(c));
  }
}

bool Router::match_segments(const Compiled& c, std::string_view path,
                            std::vector<int64_t>* params) {
  std::vector<std::string_view> segs = split_path(path);
  if (segs.size() != c.segments.size()) return false;
  params->clear();
  for (size_t i = 0; i < segs.size(); ++i) {
    if (c.segments[i] == "{}") {
      int64_t id = parse_id(segs[i]);
      if (id == 0) return false;
      params->push_back(id);
    } else if (c.segments[i] != segs[i]) {
      return false;
    }
  }
  return true;
}

bool read_method(std::string_view method) { return method == "GET" || method == "HEAD"; }

RouteMatch Router::match(std::string_view method, std::string_view path) const {
  RouteMatch m;
  std::vector<int64_t> params;
  for (const Compiled& c : routes_) {
    if (!match_segments(c, path, &params)) continue;
    if (method == c.route.method) {
      m.kind = RouteMatch::kFound;
      m.handler = c.route.handler;
      m.pattern = c.route.pattern;
      m.idempotent = c.route.idempotent;
      m.error_style = c.route.error_style;
      m.scope = c.route.scope;
      m.repeatable = c.route.repeatable;
      m.params = std::move(params);
      return m;
    }
    m.kind = RouteMatch::kMethodNotAllowed;
    if (m.allow.find(c.route.method) == std::string::npos) {
      if (!m.allow.empty()) m.allow += ", ";
      m.allow += c.route.method;
    }
  }
  return m;
}

}  // namespace ca
