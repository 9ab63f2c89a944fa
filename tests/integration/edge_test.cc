// Edges of the HTTP surface: X-Tenant-ID, malformed bodies, body size,
// unknown routes and methods, health probes, and the nginx rate limits
// (docs/design/api-conventions.md). The rate-limit tests are in the suite ZzRateLimit so that a
// filter or a reader finds them last; each leaves the limits as it found them.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

const char* kTenants = "/api/v2/admin/tenants";
const char* kCategories = "/api/v2/admin/category";

// --- X-Tenant-ID ------------------------------------------------------------------------

// The foundation has no T endpoint of its own; the categories group's is
// the one used (every handler is built and runs in the test stack: a 502
// from it is a failure, not a skip).
TEST(TenantHeaderTest, MissingOrGarbageXTenantIdIs400) {
  std::string token = admin_token();
  int64_t t = create_tenant(token, unique("Header tenant"));

  HttpResponse missing = http("GET", kCategories, {.token = token});
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.body, R"({"error":"The X-Tenant-ID header is required"})");

  for (const char* garbage :
       {"abc", "0", "-1", "1.5", "1x", "0x10", "01", "99999999999999999999", "1,2"}) {
    HttpResponse r = http("GET", kCategories, {.token = token, .tenant = garbage});
    EXPECT_EQ(r.status, 400) << garbage;
    EXPECT_EQ(r.body, R"({"error":"X-Tenant-ID must be a positive integer tenant id"})") << garbage;
  }
  // Sent but empty.
  HttpResponse empty = http("GET", kCategories, {.token = token, .headers = {"X-Tenant-ID;"}});
  EXPECT_EQ(empty.status, 400) << empty.body;

  // Sent twice, the header is not read as its first line (nginx 1.22 passes
  // each line as a parameter of its own): one header value "21, 1", a 400.
  for (const std::string& second : {to_string(t), std::string("abc")}) {
    HttpResponse twice =
        http("GET", kCategories,
             {.token = token, .tenant = to_string(t), .headers = {"X-Tenant-ID: " + second}});
    EXPECT_EQ(twice.status, 400) << second;
    EXPECT_EQ(twice.body, R"({"error":"X-Tenant-ID must be a positive integer tenant id"})");
  }
  // Two Authorization lines nginx refuses itself (a unique header there).
  HttpResponse two_tokens =
      http("GET", kCategories,
           {.token = token, .tenant = to_string(t), .headers = {"Authorization: Bearer " + token}});
  EXPECT_EQ(two_tokens.status, 400);
  EXPECT_EQ(two_tokens.body, R"({"error":"Bad request"})");

  // The token is checked first: no token and a bad header is 401.
  EXPECT_TRUE(is_unauthenticated(http("GET", kCategories, {.tenant = "abc"})));
  EXPECT_TRUE(is_unauthenticated(http("GET", kCategories)));

  EXPECT_EQ(http("GET", kCategories, {.token = token, .tenant = to_string(t)}).status, 200);
}

TEST(TenantHeaderTest, UnknownTenantOrNotAMemberIs403) {
  std::string token = admin_token();
  int64_t t = create_tenant(token, unique("Header member"));
  TestUser outsider = add_user(token, create_tenant(token, unique("Header other")), "ADMIN");
  const char* kNotMember = R"({"error":"You are not a member of this tenant"})";

  HttpResponse nonexistent =
      http("GET", kCategories, {.token = token, .tenant = "9223372036854775807"});
  EXPECT_EQ(nonexistent.status, 403);
  EXPECT_EQ(nonexistent.body, kNotMember);
  HttpResponse not_member =
      http("GET", kCategories, {.token = outsider.token, .tenant = to_string(t)});
  EXPECT_EQ(not_member.status, 403);
  EXPECT_EQ(not_member.body, kNotMember);
}

// A read of a tenant's data goes to PostgreSQL in one round trip with the
// session check; for a caller who is not a member, or whose session is over
// (logged out), the check stops the round trip before the read is parsed or
// run (sql/014, Db::pipeline). Proven with the tables locked: a read that
// ran, or was even prepared, would wait.
TEST(TenantHeaderTest, ANonMembersReadIsNeverRun) {
  using namespace std::chrono_literals;
  std::string token = admin_token();
  int64_t t = create_tenant(token, unique("Locked tenant"));
  TestUser outsider = add_user(token, create_tenant(token, unique("Outsider")), "ADMIN");
  // A member of the tenant, logged out: its token's signature still holds.
  TestUser former = add_user(token, t, "ADMIN");
  ASSERT_EQ(http("POST", "/api/v2/admin/logout", {.token = former.token}).status, 200);
  const std::vector<std::string> reads = {
      "/api/v2/admin/products/1",     "/api/v2/admin/products?q=abc",
      "/api/v2/admin/products",       "/api/v2/admin/category",
      "/api/v2/admin/orders",         "/api/v2/admin/orders/1",
      "/api/v2/admin/announcements",  "/api/v2/admin/announcements/active",
      "/api/v2/admin/announcements/1"};
  // Several rounds, so that most handler connections take part, prepared or not.
  auto refused = [&] {
    std::vector<HttpResponse> out;
    for (int round = 0; round < 3; ++round) {
      for (const std::string& path : reads) {
        out.push_back(http("GET", path, {.token = outsider.token, .tenant = to_string(t)}));
        out.push_back(http("GET", path, {.token = former.token, .tenant = to_string(t)}));
      }
    }
    return out;
  };
  auto member = [&] {
    return http("GET", "/api/v2/admin/products", {.token = token, .tenant = to_string(t)});
  };
  EXPECT_EQ(expect_refused_without_work("products, categories, orders, announcements", refused,
                                        member, "%FROM products%")
                .status,
            200);
}

// --- malformed bodies ---------------------------------------------------------------------

TEST(BodyTest, InvalidJsonIs400) {
  std::string token = admin_token();
  for (const char* body : {"{", "{\"name\":}", "{'name':'x'}", "name=x",
                           "{\"name\":\"x\"} trailing", "{\"name\":\"x\",}", ""}) {
    HttpResponse r = http("POST", kTenants, {.token = token, .body = body});
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.body, R"({"error":"Request body must be a JSON object"})") << body;
    EXPECT_EQ(r.headers["content-type"], "application/json; charset=utf-8") << body;
  }
}

TEST(BodyTest, JsonThatIsNotAnObjectIs400) {
  std::string token = admin_token();
  for (const char* body : {R"([{"name":"x"}])", "[]", R"("name")", "42", "null", "true"}) {
    HttpResponse r = http("POST", kTenants, {.token = token, .body = body});
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.body, R"({"error":"Request body must be a JSON object"})") << body;
  }
}

TEST(BodyTest, BadUtf8IsRefusedWith400) {
  std::string token = admin_token();
  for (const std::string& body :
       {std::string("{\"name\":\"caf\xC3\x28\"}"),       // broken 2-byte sequence
        std::string("{\"name\":\"\xC0\xAF\"}"),          // overlong '/'
        std::string("{\"name\":\"\xED\xA0\x80\"}"),      // UTF-8 encoded surrogate
        std::string("{\"name\":\"\xF4\x90\x80\x80\"}"),  // above U+10FFFF
        std::string("{\"name\":\"\xFF\"}")}) {
    HttpResponse r = http("POST", kTenants, {.token = token, .body = body});
    EXPECT_EQ(r.status, 400) << testing::PrintToString(body);
    EXPECT_EQ(r.body, R"({"error":"Request body is not valid UTF-8"})");
  }
  // Lone surrogates written as JSON escapes are not text either.
  for (const char* body : {R"({"name":"\ud800"})", R"({"name":"\udc00x"})"}) {
    HttpResponse r = http("POST", kTenants, {.token = token, .body = body});
    EXPECT_EQ(r.status, 400) << body;
  }
  // A NUL escape would silently cut the string short ("ab\u0000cd" stored as "ab").
  HttpResponse nul = http("POST", kTenants, {.token = token, .body = R"({"name":"ab\u0000cd"})"});
  EXPECT_EQ(nul.status, 400);
  EXPECT_EQ(nul.body, R"j({"error":"Request body must not contain NUL characters (\\u0000)"})j");
  // A raw 0x00 byte is valid UTF-8 but would cut the string the same way.
  HttpResponse raw_nul =
      http("POST", kTenants, {.token = token, .body = std::string("{\"name\":\"ab\0cd\"}", 16)});
  EXPECT_EQ(raw_nul.status, 400);
  // A proper escaped pair is fine.
  HttpResponse ok = http("POST", kTenants, {.token = token, .body = R"({"name":"\ud83c\udf89"})"});
  EXPECT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(ok.str("name"), "🎉");
}

// A key named twice in one object, at any depth, is refused: the handler's
// validation reads the first, PostgreSQL's jsonb keeps the last.
TEST(BodyTest, AKeyNamedTwiceInOneObjectIsRefusedWith400) {
  std::string token = admin_token();
  int64_t t = create_tenant(token, unique("Duplicate keys"));
  const std::string path = "/api/v2/admin/tenants/" + to_string(t);
  const char* kTwice = R"({"error":"Request body must not name a key twice in one object"})";
  for (const char* body : {R"({"name":"ok","name":5})", R"({"name":"a","x":1,"name":"b"})",
                           R"({"settings":{"currency":"EUR","currency":"no!"}})",
                           R"({"settings":{"a":[{"k":1,"k":2}]}})"}) {
    HttpResponse r = http("POST", path, {.token = token, .body = body});
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(r.body, kTwice) << body;
  }
  EXPECT_EQ(sql("SELECT settings::text FROM tenants WHERE id = " + to_string(t)),
            (std::vector<std::string>{"{}"}));
  // Equal names in different objects are fine.
  HttpResponse ok =
      http("POST", path, {.token = token, .body = R"({"settings":{"a":{"a":1},"b":{"a":2}}})"});
  EXPECT_EQ(ok.status, 200) << ok.body;
}

// Issue 27: RFC 8259 requires control characters in strings escaped; cJSON
// took them raw and they were stored. Now a 400 like any other invalid JSON,
// and nothing is written. (The escaped forms are text like any other.)
TEST(BodyTest, RawControlCharactersAreRefusedWith400) {
  std::string token = admin_token();
  std::string name = unique("Raw control");
  const char* kRefused =
      R"({"error":"Request body is not valid JSON: control characters (U+0000-U+001F) must be escaped"})";
  for (const std::string& body :
       {R"({"name":")" + name + "\x01\"}", R"({"name":")" + name + "\ttab\"}",
        R"({"name":")" + name + "\nline\"}", "{\x1f\"name\":\"" + name + "\"}"}) {
    HttpResponse r = http("POST", kTenants, {.token = token, .body = body});
    EXPECT_EQ(r.status, 400) << testing::PrintToString(body);
    EXPECT_EQ(r.body, kRefused) << testing::PrintToString(body);
  }
  EXPECT_EQ(sql("SELECT count(*) FROM tenants WHERE name LIKE '" + name + "%'"),
            (std::vector<std::string>{"0"}));
  // Found by tests/fuzz/body_fuzz.cc: cJSON read a \u escape without four hex
  // digits as U+0000, so "ab\uZZZZcd" was stored as "ab".
  HttpResponse bad_escape =
      http("POST", kTenants, {.token = token, .body = R"({"name":"ab\uZZZZcd"})"});
  EXPECT_EQ(bad_escape.status, 400);
  EXPECT_EQ(bad_escape.body, R"({"error":"Request body must be a JSON object"})");
  HttpResponse escaped =
      http("POST", kTenants, {.token = token, .body = R"({"name":")" + name + R"(\u0001\ttab"})"});
  EXPECT_EQ(escaped.status, 201) << escaped.body;
  EXPECT_EQ(escaped.str("name"), name + "\x01\ttab");
}

// Issue 27: 1e-400 converts to 0 and was stored as a price of 0 with 201. A
// nonzero number below a double's normal range is out of range, refused on
// its key like 1e400; zero with any exponent is zero.
TEST(BodyTest, NumbersBelowADoublesRangeAre422LikeInfinity) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  const std::string products = "/api/v2/admin/products";
  for (const char* price : {"1e-400", "-1e-400", "4.9e-324", "1e-310"}) {
    HttpResponse r =
        http("POST", products, s.call(R"({"name":"Tiny","price":)" + std::string(price) + "}"));
    expect_body(r, 422,
                R"({"message":"The given data was invalid.",)"
                R"("errors":{"price":["The price field must be a number."]}})");
  }
  EXPECT_EQ(sql("SELECT count(*) FROM products WHERE tenant_id = " + s.tid()),
            (std::vector<std::string>{"0"}));
  HttpResponse zero = http("POST", products, s.call(R"({"name":"Free","price":0e-400})"));
  EXPECT_EQ(zero.status, 201) << zero.body;
}

TEST(BodyTest, BodyOver1MiBIs413Json) {
  std::string token = admin_token();
  std::string body = R"({"name":")" + std::string(2 << 20, 'a') + R"("})";
  HttpResponse r = http("POST", kTenants, {.token = token, .body = body});
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body, R"({"error":"Request body too large"})");
  EXPECT_EQ(r.headers["content-type"], "application/json; charset=utf-8");
  // Just under the limit reaches the handler, which judges the content.
  std::string under = R"({"name":")" + std::string((1 << 20) - 64, 'a') + R"("})";
  HttpResponse u = http("POST", kTenants, {.token = token, .body = under});
  EXPECT_EQ(u.status, 422) << u.body.substr(0, 200);
}

TEST(BodyTest, HandlersKeepServingAfterBadInput) {
  std::string token = admin_token();
  for (int i = 0; i < 3; ++i) {
    http("POST", kTenants, {.token = token, .body = "{\"name\":\"\xC3\x28\"}"});
    http("POST", kTenants, {.token = token, .body = "{{{{"});
    http("POST", "/api/v2/admin/login", {.body = "\xFF\xFE"});
    http("POST", "/api/v2/admin/team-members/1", {.token = token, .body = "[1,2,3]"});
    http("GET", "/api/v2/admin/tenants/abc", {.token = token});
    http("GET", kTenants, {.token = "\x01\x02"});
  }
  HttpResponse r = http("POST", kTenants, {.token = token, .body = R"({"name":"Still fine"})"});
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(http("GET", kTenants, {.token = token}).status, 200);
  EXPECT_EQ(login_response(admin_email(), admin_password()).status, 200);
}

// --- routes, methods, probes -------------------------------------------------------------------

TEST(RoutesTest, UnknownRouteUnderTheApiIs404Json) {
  std::string token = admin_token();
  for (const char* path :
       {"/api/v2/admin/nope", "/api/v2/admin", "/api/v2/admin/", "/api/v2/admin/tenants/1/extra",
        "/api/v2/admin/tenants/abc", "/api/v2/admin/tenants/", "/api/v2/admin/team-members",
        "/api/v2/admin/team-members/1/2/3", "/api/v2/admin/loginx"}) {
    HttpResponse r = http("GET", path, {.token = token});
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body, R"({"error":"Not found"})") << path;
    EXPECT_EQ(r.headers["content-type"], "application/json; charset=utf-8") << path;
  }
}

TEST(RoutesTest, UnknownPathOutsideTheApiIs404Json) {
  for (const char* path : {"/", "/index.html", "/api/v1/products", "/api", "/healthz/x",
                           "/_commerce_admin_error/404", "/%ff", "/logo.gif", "/x.html"}) {
    HttpResponse r = http("GET", path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body, R"({"error":"Not found"})") << path;
    EXPECT_EQ(r.headers["content-type"], "application/json; charset=utf-8") << path;
  }
}

TEST(RoutesTest, WrongMethodIs405WithAllow) {
  struct Case {
    const char* method;
    const char* path;
    const char* allow;
  };
  for (const Case& c : std::vector<Case>{
           {"PUT", "/api/v2/admin/tenants", "GET, POST"},
           {"DELETE", "/api/v2/admin/tenants", "GET, POST"},
           {"PATCH", "/api/v2/admin/tenants/1", "GET, POST"},
           {"DELETE", "/api/v2/admin/tenants/1", "GET, POST"},
           {"GET", "/api/v2/admin/team-members/1/2", "POST, DELETE"},
           {"PUT", "/api/v2/admin/team-members/1", "GET, POST"},
           {"GET", "/api/v2/admin/login", "POST"},
           {"GET", "/api/v2/admin/logout", "POST"},
           {"POST", "/healthz", "GET, HEAD"},
       }) {
    // No token: the route is decided before authentication.
    HttpResponse r = http(c.method, c.path);
    EXPECT_EQ(r.status, 405) << c.method << " " << c.path;
    EXPECT_EQ(r.body, R"({"error":"Method not allowed"})") << c.method << " " << c.path;
    EXPECT_EQ(r.headers["allow"], c.allow) << c.method << " " << c.path;
  }
}

// Tokens and personal data must never sit in a browser's or proxy's cache, and
// no client may sniff a JSON body into HTML: every answer carries both
// headers, the handlers' and nginx's own, successes and errors alike.
void expect_safe_headers(const HttpResponse& r, const std::string& what) {
  auto cache = r.headers.find("cache-control");
  auto sniff = r.headers.find("x-content-type-options");
  EXPECT_TRUE(cache != r.headers.end() && cache->second == "no-store") << what;
  EXPECT_TRUE(sniff != r.headers.end() && sniff->second == "nosniff") << what;
}

TEST(RoutesTest, EveryResponseCarriesNoStoreAndNosniff) {
  std::string token = admin_token();
  std::string login_body = "{\"email\":" + json_text(admin_email()) +
                           ",\"password\":" + json_text(admin_password()) + "}";
  auto check = [](long status, const HttpResponse& r) {
    EXPECT_EQ(r.status, status) << r.body.substr(0, 200);
    expect_safe_headers(r, std::to_string(status) + " " + r.body.substr(0, 80));
  };
  check(200, http("POST", "/api/v2/admin/login", {.body = login_body}));
  check(200, http("GET", kTenants, {.token = token}));
  check(201, http("POST", kTenants, {.token = token, .body = R"({"name":"Headers"})"}));
  check(200, http("GET", "/healthz"));
  check(200, http("HEAD", "/healthz"));
  check(400, http("POST", kTenants, {.token = token, .body = "{{"}));
  check(401, http("GET", kTenants));
  check(403, http("GET", "/api/v2/admin/category", {.token = token, .tenant = "999999999"}));
  check(404, http("GET", "/nowhere"));
  check(404, http("GET", "/api/v2/admin/tenants/1/extra", {.token = token}));
  check(405, http("PUT", kTenants));
  check(413, http("POST", kTenants,
                  {.token = token, .body = R"({"name":")" + std::string(2 << 20, 'a') + R"("})"}));
  check(422, http("POST", kTenants, {.token = token, .body = "{}"}));
}

TEST(RoutesTest, HealthAndPing) {
  HttpResponse health = http("GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  EXPECT_EQ(health.headers["content-type"], "application/json; charset=utf-8");
  HttpResponse ping = http("GET", "/api/v2/admin/ping");
  EXPECT_EQ(ping.status, 200);
  EXPECT_EQ(ping.body, R"({"status":"ok"})");
  // Probes need no token and ignore a bad one.
  EXPECT_EQ(http("GET", "/healthz", {.token = "garbage"}).status, 200);
  // Monitors that probe with HEAD get the status and headers, no body.
  HttpResponse head = http("HEAD", "/healthz");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(head.headers["content-type"], "application/json; charset=utf-8");
}

// --- rate limits (run last) -------------------------------------------------------------------

// Sends `batch` concurrent requests made by `make`, again and again (at most
// `rounds` times), until one is answered 429: a slow (sanitizer) build serves
// a batch more slowly, so one batch may not outrun the limit's refill.
std::vector<HttpResponse> flood(int batch, int rounds, const std::function<HttpResponse()>& make) {
  std::vector<HttpResponse> all;
  for (int round = 0; round < rounds; ++round) {
    auto results = http_concurrent(batch, 16, [&](int) { return make(); });
    bool limited = false;
    for (HttpResponse& r : results) {
      limited = limited || r.status == 429;
      all.push_back(std::move(r));
    }
    if (limited) break;
  }
  return all;
}

// Logins are limited per client address. The storm comes from its own
// loopback address, so other tests' logins (from 127.0.0.1) keep their budget.
TEST(ZzRateLimit, LoginStormGets429WithRetryAfter) {
  const std::string storm_ip = "127.0.0.2";
  auto results =
      flood(150, 5, [&] { return http("POST", "/api/v2/admin/login", {.source_ip = storm_ip}); });
  int limited = 0;
  int other = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 429) {
      ++limited;
      EXPECT_EQ(r.body, R"({"error":"Too many requests"})");
      expect_safe_headers(r, "login 429");
      auto retry = r.headers.find("retry-after");
      ASSERT_NE(retry, r.headers.end()) << "429 without Retry-After";
      EXPECT_GE(std::stoi(retry->second), 1);
      EXPECT_EQ(r.headers.at("content-type"), "application/json; charset=utf-8");
    } else {
      ++other;
      EXPECT_EQ(r.status, 400) << r.body;  // no body: not a JSON object
    }
  }
  EXPECT_GT(limited, 0) << results.size() << " concurrent logins and none was limited";
  EXPECT_GT(other, 0) << "the burst should let the first logins through";

  // The default address was never limited; the storm's recovers.
  EXPECT_EQ(login_response(admin_email(), admin_password()).status, 200);
  EXPECT_TRUE(wait_for_login(storm_ip)) << "logins from " << storm_ip << " never recovered";
  EXPECT_TRUE(wait_for_login());
}

// A flood on one bearer credential (`what`): some answers are the
// per-credential limit's 429 with Retry-After, the others 200.
void expect_some_limited(const std::vector<HttpResponse>& results, const std::string& what) {
  int limited = 0;
  int ok = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 429) {
      ++limited;
      EXPECT_EQ(r.body, R"({"error":"Too many requests"})");
      EXPECT_EQ(r.headers.count("retry-after"), 1u);
    } else {
      ++ok;
      EXPECT_EQ(r.status, 200) << r.body;
    }
  }
  EXPECT_GT(limited, 0) << results.size() << " concurrent requests on " << what << ", none limited";
  EXPECT_GT(ok, 0);
}

// Everything else is limited per token: one token's flood does not touch others.
TEST(ZzRateLimit, PerTokenFloodGets429AndOtherTokensAreUnaffected) {
  std::string flooded = admin_token();
  std::string bystander = admin_token();
  auto results = flood(600, 5, [&] { return http("GET", kTenants, {.token = flooded}); });
  expect_some_limited(results, "one token");
  EXPECT_EQ(http("GET", kTenants, {.token = bystander}).status, 200);
  // Probes have a budget of their own (per address only).
  EXPECT_EQ(http("GET", "/healthz").status, 200);
  EXPECT_TRUE(wait_for_login());
}

// An API key is a bearer credential like a session token: it has the same
// per-credential budget, and another key of the same tenant keeps its own.
TEST(ZzRateLimit, PerKeyFloodGets429AndTheTenantsOtherKeyIsUnaffected) {
  Scope s = fresh_scope(admin_token());
  auto new_key = [&](const std::string& name) {
    HttpResponse r = http(
        "POST", "/api/v2/admin/api-keys/" + s.tid(),
        {.token = s.token, .body = R"({"name":")" + name + R"(","scopes":["products:read"]})"});
    EXPECT_EQ(r.status, 201) << r.body;
    return r.str("key");
  };
  const std::string flooded = new_key("flooded");
  const std::string bystander = new_key("bystander");
  auto results = flood(600, 5, [&] {
    return http("GET", "/api/v2/admin/products", {.token = flooded, .tenant = s.tid()});
  });
  expect_some_limited(results, "one key");
  EXPECT_EQ(http("GET", "/api/v2/admin/products", {.token = bystander, .tenant = s.tid()}).status,
            200);
  EXPECT_TRUE(wait_for_login());
}

}  // namespace
}  // namespace ca::test
