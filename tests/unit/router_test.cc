// The route table (common/router.h): literal and integer segments, 404 vs 405.
#include "router.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace ca {
namespace {

Result<Response> list_h(Ctx&) { return Response{}; }
Result<Response> create_h(Ctx&) { return Response{}; }
Result<Response> read_h(Ctx&) { return Response{}; }
Result<Response> update_h(Ctx&) { return Response{}; }
Result<Response> delete_h(Ctx&) { return Response{}; }
Result<Response> member_h(Ctx&) { return Response{}; }
Result<Response> active_h(Ctx&) { return Response{}; }

Router make_router() {
  return Router({
      {"GET", "/api/v2/admin/tenants", list_h},
      {"POST", "/api/v2/admin/tenants", create_h},
      {"GET", "/api/v2/admin/tenants/{id}", read_h},
      {"POST", "/api/v2/admin/tenants/{id}", update_h},
      {"DELETE", "/api/v2/admin/tenants/{id}", delete_h},
      {"POST", "/api/v2/admin/team-members/{tenantId}/{userId}", member_h},
      {"GET", "/api/v2/admin/announcements/active", active_h},
  });
}

TEST(RouterTest, LiteralPathMatchesByMethod) {
  Router r = make_router();
  RouteMatch get = r.match("GET", "/api/v2/admin/tenants");
  EXPECT_EQ(get.kind, RouteMatch::kFound);
  EXPECT_EQ(get.handler, &list_h);
  EXPECT_TRUE(get.params.empty());
  RouteMatch post = r.match("POST", "/api/v2/admin/tenants");
  EXPECT_EQ(post.kind, RouteMatch::kFound);
  EXPECT_EQ(post.handler, &create_h);
}

// The shared layers shape their 500 and 503 as the route declares (issue 27:
// orders answered a database outage in the plain shape).
TEST(RouterTest, MatchCarriesTheRoutesErrorStyle) {
  Router r({{"GET", "/orders", list_h, ErrorStyle::kSuccess}, {"GET", "/addresses", list_h}});
  EXPECT_EQ(r.match("GET", "/orders").error_style, ErrorStyle::kSuccess);
  EXPECT_EQ(r.match("GET", "/addresses").error_style, ErrorStyle::kPlain);
}

// Whether a route's sends may be repeated on a new connection is the
// route's (issue 38): a GET's or HEAD's are, any other method's are not,
// unless the route declares otherwise; never the statements' text.
TEST(RouterTest, ARouteIsRepeatableByItsMethodUnlessItDeclares) {
  Router r({{"GET", "/a", list_h},
            {"HEAD", "/a", list_h},
            {"POST", "/a", create_h},
            {"DELETE", "/a", delete_h},
            {"GET", "/b", list_h, kNotRepeatable},
            {"POST", "/b", create_h, Scope::kProductsRead, kRepeatable, ErrorStyle::kSuccess}});
  EXPECT_TRUE(r.match("GET", "/a").repeatable);
  EXPECT_TRUE(r.match("HEAD", "/a").repeatable);
  EXPECT_FALSE(r.match("POST", "/a").repeatable);
  EXPECT_FALSE(r.match("DELETE", "/a").repeatable);
  EXPECT_FALSE(r.match("GET", "/b").repeatable);
  RouteMatch declared = r.match("POST", "/b");
  EXPECT_TRUE(declared.repeatable);
  EXPECT_EQ(declared.scope, Scope::kProductsRead);
  EXPECT_EQ(declared.error_style, ErrorStyle::kSuccess);
}

TEST(RouterTest, IntegerParamsAreParsedInOrder) {
  Router r = make_router();
  RouteMatch one = r.match("GET", "/api/v2/admin/tenants/17");
  ASSERT_EQ(one.kind, RouteMatch::kFound);
  EXPECT_EQ(one.handler, &read_h);
  EXPECT_EQ(one.params, (std::vector<int64_t>{17}));

  RouteMatch two = r.match("POST", "/api/v2/admin/team-members/3/9223372036854775807");
  ASSERT_EQ(two.kind, RouteMatch::kFound);
  EXPECT_EQ(two.handler, &member_h);
  EXPECT_EQ(two.params, (std::vector<int64_t>{3, INT64_MAX}));
}

TEST(RouterTest, LiteralSegmentIsNotTakenForAParam) {
  Router r = make_router();
  RouteMatch m = r.match("GET", "/api/v2/admin/announcements/active");
  ASSERT_EQ(m.kind, RouteMatch::kFound);
  EXPECT_EQ(m.handler, &active_h);
}

TEST(RouterTest, BadIdsAreNotFound) {
  Router r = make_router();
  const char* kBad[] = {
      "0",
      "00",
      "007",
      "-1",
      "+1",
      "1.0",
      "1e3",
      "abc",
      "12a",
      "0x10",
      " 1",
      "1 ",
      "",
      "%31",
      "１",                    // full-width digit
      "9223372036854775808",   // INT64_MAX + 1
      "99999999999999999999",  // 20 digits
      "18446744073709551617",  // wraps to 1 in uint64
  };
  for (const char* id : kBad) {
    RouteMatch m = r.match("GET", std::string("/api/v2/admin/tenants/") + id);
    EXPECT_EQ(m.kind, RouteMatch::kNotFound) << "'" << id << "'";
    EXPECT_EQ(m.handler, nullptr) << id;
  }
}

TEST(RouterTest, UnknownPathsAreNotFound) {
  Router r = make_router();
  for (const char* path :
       {"/", "", "/api/v2/admin", "/api/v2/admin/tenant", "/api/v2/admin/tenants/1/extra",
        "/api/v2/admin/TENANTS", "/api/v2/admin/team-members/1", "api/v2/admin/tenants",
        "//api/v2/admin/tenants", "/api/v2/admin//tenants"}) {
    RouteMatch m = r.match("GET", path);
    EXPECT_EQ(m.kind, RouteMatch::kNotFound) << "'" << path << "'";
    EXPECT_TRUE(m.allow.empty()) << path;
  }
}

TEST(RouterTest, TrailingSlashIsADifferentPath) {
  Router r = make_router();
  EXPECT_EQ(r.match("GET", "/api/v2/admin/tenants/").kind, RouteMatch::kNotFound);
  EXPECT_EQ(r.match("GET", "/api/v2/admin/tenants/5/").kind, RouteMatch::kNotFound);
  EXPECT_EQ(r.match("GET", "/api/v2/admin/announcements/active/").kind, RouteMatch::kNotFound);
}

TEST(RouterTest, WrongMethodIs405ListingEveryMethodOfThePath) {
  Router r = make_router();
  RouteMatch list = r.match("DELETE", "/api/v2/admin/tenants");
  EXPECT_EQ(list.kind, RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(list.handler, nullptr);
  EXPECT_EQ(list.allow, "GET, POST");

  RouteMatch one = r.match("PATCH", "/api/v2/admin/tenants/4");
  EXPECT_EQ(one.kind, RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(one.allow, "GET, POST, DELETE");

  RouteMatch member = r.match("GET", "/api/v2/admin/team-members/1/2");
  EXPECT_EQ(member.kind, RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(member.allow, "POST");
}

TEST(RouterTest, MethodsAreCaseSensitive) {
  Router r = make_router();
  RouteMatch m = r.match("get", "/api/v2/admin/tenants");
  EXPECT_EQ(m.kind, RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(m.allow, "GET, POST");
}

TEST(RouterTest, BadIdOnAPathWithOtherMethodsIsStill404) {
  // 405 needs the path to exist; /tenants/0 is no path at all.
  Router r = make_router();
  RouteMatch m = r.match("PATCH", "/api/v2/admin/tenants/0");
  EXPECT_EQ(m.kind, RouteMatch::kNotFound);
  EXPECT_TRUE(m.allow.empty());
}

TEST(RouterTest, AllowDoesNotRepeatAMethodDeclaredTwice) {
  Router r(
      {{"GET", "/x/{id}", read_h}, {"GET", "/x/{other}", update_h}, {"PUT", "/x/{id}", list_h}});
  RouteMatch m = r.match("POST", "/x/1");
  EXPECT_EQ(m.kind, RouteMatch::kMethodNotAllowed);
  EXPECT_EQ(m.allow, "GET, PUT");
  // The first declared route wins.
  EXPECT_EQ(r.match("GET", "/x/1").handler, &read_h);
}

TEST(RouterTest, ParseIdAcceptsOnlyCanonicalPositiveInt64) {
  EXPECT_EQ(parse_id("1"), 1);
  EXPECT_EQ(parse_id("42"), 42);
  EXPECT_EQ(parse_id("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_id("9223372036854775808"), 0);
  EXPECT_EQ(parse_id("10000000000000000000"), 0);
  EXPECT_EQ(parse_id("0"), 0);
  EXPECT_EQ(parse_id("01"), 0);
  EXPECT_EQ(parse_id("-1"), 0);
  EXPECT_EQ(parse_id(""), 0);
  EXPECT_EQ(parse_id("1a"), 0);
  EXPECT_EQ(parse_id(" 1"), 0);
}

}  // namespace
}  // namespace ca
