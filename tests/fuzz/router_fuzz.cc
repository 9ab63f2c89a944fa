// libFuzzer target: the query-string and path-id decoding (common/http.h,
// common/router.h).
//
// The input is split at its first newline into a path and a query string.
// The path goes through the route table of the largest handler group's shape
// (literal and integer segments) and parse_id(); the query string through
// url_decode() and Request::query_param() (page/per_page included).
// Properties: a matched route's ids are positive and print back to the
// segments they came from; parse_id() accepts exactly the canonical decimal
// text of a positive int64; a decoded query value never grows.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "http.h"
#include "router.h"
#include "validate.h"

namespace {

ca::Result<ca::Response> stub(ca::Ctx&) { return ca::Response{}; }

const ca::Router& router() {
  static const ca::Router r({
      {"GET", "/api/v2/admin/tenants", stub},
      {"GET", "/api/v2/admin/tenants/{id}", stub},
      {"POST", "/api/v2/admin/tenants/{id}", stub},
      {"POST", "/api/v2/admin/team-members/{tenantId}/{userId}", stub},
      {"DELETE", "/api/v2/admin/team-members/{tenantId}/{userId}", stub},
      {"GET", "/api/v2/admin/orders/{id}", stub},
      {"POST", "/api/v2/admin/orders/{id}/status", stub},
      {"GET", "/api/v2/admin/announcements/active", stub},
      {"GET", "/api/v2/admin/announcements/{id}", stub},
      {"GET", "/", stub},
  });
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t newline = input.find('\n');
  std::string_view path = input.substr(0, newline);
  std::string_view query = newline == std::string_view::npos ? "" : input.substr(newline + 1);

  int64_t id = ca::parse_id(path);
  if (id != 0) {
    FUZZ_CHECK(id > 0);
    FUZZ_CHECK(std::to_string(id) == path);
  }
  for (const char* method : {"GET", "POST", "DELETE"}) {
    ca::RouteMatch m = router().match(method, path);
    if (m.kind == ca::RouteMatch::kFound) {
      FUZZ_CHECK(m.handler != nullptr);
      for (int64_t p : m.params) {
        FUZZ_CHECK(p > 0);
        FUZZ_CHECK(path.find("/" + std::to_string(p)) != std::string_view::npos);
      }
    } else if (m.kind == ca::RouteMatch::kMethodNotAllowed) {
      FUZZ_CHECK(!m.allow.empty());
    }
  }

  if (auto decoded = ca::url_decode(query)) FUZZ_CHECK(decoded->size() <= query.size());
  ca::Request req;
  req.query = std::string(query);
  for (const char* name : {"page", "per_page", "q", "status", ""}) {
    if (auto v = req.query_param(name)) FUZZ_CHECK(v->size() <= query.size());
  }
  ca::FieldErrors errs;
  ca::PageParams page = ca::read_page_params(req, 15, errs);
  FUZZ_CHECK(page.page >= 1 && page.page <= 1'000'000'000);
  FUZZ_CHECK(page.per_page >= 1 && page.per_page <= ca::kMaxPerPage);
  FUZZ_CHECK(page.offset() >= 0);
  return 0;
}
