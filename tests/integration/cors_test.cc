// CORS for browser admin clients (CORS_ORIGINS, issue 36;
// docs/decisions/0080-cors-for-browser-admin-clients.md), through nginx.
// Each test runs an nginx of its own (own_nginx.h, rendered by
// scripts/render-nginx like the stack's) with CORS_ORIGINS set or empty,
// in front of the stack's handler sockets, and reads its answers raw off
// the socket so that every header line counts (a repeated one included).
// The last test drives a real browser (Debian's `chromium`, as
// docs_browser_test.cc does): a page on an allowed origin logs in and lists
// products, a page on another origin is blocked.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "chromium.h"
#include "own_nginx.h"
#include "stack.h"

namespace ca::test {
namespace {

const char* kAllowed = "http://admin.test:8080";
const char* kAllowedToo = "https://admin-b.test";
const char* kExpose = "X-Request-Id, Retry-After, Idempotent-Replayed, Location";

// An answer read off the socket: every header line in order, names in lower case.
struct RawAnswer {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The value of the only `name` header; "<absent>" or "<N times>" otherwise.
  std::string header(const std::string& name) const {
    std::vector<std::string> values;
    for (const auto& [n, v] : headers) {
      if (n == name) values.push_back(v);
    }
    if (values.empty()) return "<absent>";
    if (values.size() > 1) return "<" + std::to_string(values.size()) + " times>";
    return values[0];
  }
  // The CORS headers and Vary, as "name: value" lines, sorted.
  std::vector<std::string> cors() const {
    std::vector<std::string> out;
    for (const auto& [n, v] : headers) {
      if (n.rfind("access-control-", 0) == 0 || n == "vary") out.push_back(n + ": " + v);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Whether `raw` (an answer as received so far) holds its header and as many
// bytes of body as its Content-Length says; false without one.
bool whole_by_length(const std::string& raw) {
  size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  std::string head = raw.substr(0, end);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t at = head.find("\r\ncontent-length:");
  if (at == std::string::npos) return false;
  size_t length = std::strtoul(head.c_str() + at + 17, nullptr, 10);
  return raw.size() - (end + 4) >= length;
}

// One HTTP/1.0 request to 127.0.0.1:port (the answer ends when nginx closes).
// With `until_length`, it ends once the answer has come whole by its
// Content-Length: an nginx that answered before reading a body it refused
// would close only after waiting 5 s (lingering_timeout) for that body.
RawAnswer raw_http(int port, const std::string& method, const std::string& path,
                   const std::vector<std::string>& headers, const std::string& body = "",
                   bool until_length = false) {
  RawAnswer answer;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  timeval timeout{.tv_sec = 30, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    ADD_FAILURE() << "cannot connect to port " << port;
    return answer;
  }
  std::string request = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n";
  for (const std::string& h : headers) request += h + "\r\n";
  if (!body.empty()) request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  request += "\r\n" + body;
  for (size_t sent = 0; sent < request.size();) {
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buf[16384];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) {
    raw.append(buf, static_cast<size_t>(n));
    if (until_length && whole_by_length(raw)) break;
  }
  close(fd);

  size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) {
    ADD_FAILURE() << method << " " << path << ": no complete answer: " << raw;
    return answer;
  }
  answer.body = raw.substr(end + 4);
  std::istringstream lines(raw.substr(0, end));
  std::string line;
  std::getline(lines, line);
  if (line.size() > 12) answer.status = std::atoi(line.c_str() + 9);
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    answer.headers.emplace_back(name, value);
  }
  return answer;
}

// An nginx of this test with `settings` on top of the defaults (every limit off).
std::unique_ptr<OwnNginx> start_nginx(const std::map<std::string, std::string>& settings,
                                      const std::string& extra_conf = "") {
  static int started = 0;
  auto nginx = std::make_unique<OwnNginx>(
      state_dir() + "/cors-" + std::to_string(getpid()) + "-" + std::to_string(++started), settings,
      extra_conf);
  EXPECT_TRUE(nginx->running()) << nginx->error();
  return nginx;
}

// The headers every answer keeps whatever CORS adds (the server's add_headers).
void expect_server_headers(const RawAnswer& r, const std::string& what) {
  EXPECT_EQ(r.header("cache-control"), "no-store") << what;
  EXPECT_EQ(r.header("x-content-type-options"), "nosniff") << what;
  EXPECT_EQ(r.header("x-request-id").size(), 32u) << what << ": " << r.header("x-request-id");
}

std::vector<std::string> preflight_headers(const std::string& origin) {
  return {
      "access-control-allow-headers: Authorization, Content-Type, X-Tenant-ID, "
      "Idempotency-Key, X-Request-Id",
      "access-control-allow-methods: GET, POST, PATCH, DELETE",
      "access-control-allow-origin: " + origin, "access-control-max-age: 600", "vary: Origin"};
}

std::vector<std::string> answer_headers(const std::string& origin) {
  return {"access-control-allow-origin: " + origin,
          std::string("access-control-expose-headers: ") + kExpose, "vary: Origin"};
}

const std::vector<std::string> kVaryOnly = {"vary: Origin"};
const std::vector<std::string> kNone = {};

// One path of every API location (nginx/commerce-admin.conf.in).
const std::vector<std::string> kApiPaths = {"/api/v2/admin/login",
                                            "/api/v2/admin/logout",
                                            "/api/v2/admin/password/forgot",
                                            "/api/v2/admin/password/reset",
                                            "/api/v2/admin/ping",
                                            "/api/v2/admin/tenants",
                                            "/api/v2/admin/audit-log/1",
                                            "/api/v2/admin/team-members/1",
                                            "/api/v2/admin/invitations/accept",
                                            "/api/v2/admin/category/create",
                                            "/api/v2/admin/products/1",
                                            "/api/v2/admin/orders",
                                            "/api/v2/admin/addresses",
                                            "/api/v2/admin/announcements",
                                            "/api/v2/admin/webhooks/1",
                                            "/api/v2/admin/events/1",
                                            "/api/v2/admin/api-keys/1"};

std::vector<std::string> preflight(const std::string& origin, const std::string& method) {
  std::vector<std::string> h;
  if (!origin.empty()) h.push_back("Origin: " + origin);
  h.push_back("Access-Control-Request-Method: " + method);
  h.push_back("Access-Control-Request-Headers: authorization,content-type,x-tenant-id");
  return h;
}

std::vector<std::string> with_token(const Scope& s, const std::string& origin) {
  return {"Origin: " + origin, "Authorization: Bearer " + s.token, "X-Tenant-ID: " + s.tid()};
}

TEST(Cors, APreflightFromAnAllowedOriginIsAnswered204ByNginxAtEveryApiLocation) {
  // No handler behind this nginx (an empty socket directory): anything that
  // reached one would be a 502.
  std::string no_sockets = state_dir() + "/cors-no-sockets-" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + shell_quote(no_sockets)).c_str()), 0);
  auto nginx = start_nginx(
      {{"CORS_ORIGINS", std::string(kAllowed) + " " + kAllowedToo}, {"SOCKET_DIR", no_sockets}});
  ASSERT_TRUE(nginx->running());
  for (const char* origin : {kAllowed, kAllowedToo}) {
    for (const std::string& path : kApiPaths) {
      for (const char* method : {"GET", "POST", "PATCH", "DELETE"}) {
        std::string what = std::string(origin) + " " + method + " " + path;
        RawAnswer r = raw_http(nginx->port(), "OPTIONS", path, preflight(origin, method));
        EXPECT_EQ(r.status, 204) << what << ": " << r.body;
        EXPECT_EQ(r.body, "") << what;
        EXPECT_EQ(r.cors(), preflight_headers(origin)) << what;
        expect_server_headers(r, what);
      }
    }
    // The same location's actual request reaches the (missing) handler: a
    // 5xx of nginx's own, with the answer's CORS headers.
    RawAnswer gone = raw_http(nginx->port(), "GET", "/api/v2/admin/products",
                              {std::string("Origin: ") + origin});
    EXPECT_EQ(gone.status, 502) << gone.body;
    EXPECT_EQ(gone.body, R"({"error":"Bad gateway"})");
    EXPECT_EQ(gone.cors(), answer_headers(origin));
    expect_server_headers(gone, "502");
  }
}

TEST(Cors, APreflightFromAnyOtherOriginIsNotAllowed) {
  auto nginx = start_nginx({{"CORS_ORIGINS", std::string(kAllowed) + " " + kAllowedToo}});
  ASSERT_TRUE(nginx->running());
  // What the handler answers an OPTIONS (no route has it), as before CORS.
  RawAnswer handler = raw_http(nginx->port(), "OPTIONS", "/api/v2/admin/products", {});
  EXPECT_EQ(handler.status, 405) << handler.body;
  EXPECT_EQ(handler.body, R"({"error":"Method not allowed"})");
  for (const char* origin :
       {"http://evil.test", "http://admin.test", "http://admin.test:8081",
        "https://admin.test:8080", "HTTP://ADMIN.TEST:8080", "http://admin.test:8080/",
        "http://admin.test:8080.evil.test", "http://evil.test/http://admin.test:8080",
        "https://admin-b.test:443", "null", ""}) {
    for (const std::string& path :
         {std::string("/api/v2/admin/products"), std::string("/api/v2/admin/login")}) {
      std::string what = std::string("Origin '") + origin + "' " + path;
      RawAnswer r = raw_http(nginx->port(), "OPTIONS", path, preflight(origin, "POST"));
      EXPECT_EQ(r.status, 405) << what << ": " << r.body;
      EXPECT_EQ(r.body, R"({"error":"Method not allowed"})") << what;
      EXPECT_EQ(r.cors(), kVaryOnly) << what;
      expect_server_headers(r, what);
    }
  }
  // An OPTIONS from an allowed origin that asks for no method is no
  // preflight: the handler's 405, as an answer to that origin.
  RawAnswer plain = raw_http(nginx->port(), "OPTIONS", "/api/v2/admin/products",
                             {std::string("Origin: ") + kAllowed});
  EXPECT_EQ(plain.status, 405) << plain.body;
  EXPECT_EQ(plain.cors(), answer_headers(kAllowed));
}

TEST(Cors, AnswersToAnAllowedOriginCarryItAndTheExposedHeadersErrorsIncluded) {
  auto nginx = start_nginx({{"CORS_ORIGINS", std::string(kAllowed) + " " + kAllowedToo}});
  ASSERT_TRUE(nginx->running());
  Scope s = fresh_scope(admin_token());
  const std::string origin = kAllowed;
  const std::string login_body = "{\"email\":" + json_text(admin_email()) +
                                 ",\"password\":" + json_text(admin_password()) + "}";

  RawAnswer login = raw_http(nginx->port(), "POST", "/api/v2/admin/login",
                             {"Origin: " + origin, "Content-Type: application/json"}, login_body);
  EXPECT_EQ(login.status, 200) << login.body;
  EXPECT_NE(login.body.find("\"token\":"), std::string::npos) << login.body;
  EXPECT_EQ(login.cors(), answer_headers(origin));
  expect_server_headers(login, "login");

  RawAnswer created = raw_http(
      nginx->port(), "POST", "/api/v2/admin/products",
      [&] {
        auto h = with_token(s, kAllowedToo);
        h.push_back("Content-Type: application/json");
        return h;
      }(),
      R"({"name":"CORS mug","price":3})");
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.cors(), answer_headers(kAllowedToo));

  RawAnswer list = raw_http(nginx->port(), "GET", "/api/v2/admin/products", with_token(s, origin));
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_NE(list.body.find("\"CORS mug\""), std::string::npos) << list.body;
  EXPECT_EQ(list.cors(), answer_headers(origin));
  expect_server_headers(list, "list");

  // The handler's own errors: 401 (no token) and 404 (no such product).
  RawAnswer unauthenticated =
      raw_http(nginx->port(), "GET", "/api/v2/admin/products", {"Origin: " + origin});
  EXPECT_EQ(unauthenticated.status, 401) << unauthenticated.body;
  EXPECT_EQ(unauthenticated.body, R"({"error":"Unauthenticated"})");
  EXPECT_EQ(unauthenticated.header("www-authenticate"), "Bearer");
  EXPECT_EQ(unauthenticated.cors(), answer_headers(origin));
  expect_server_headers(unauthenticated, "401");

  RawAnswer missing = raw_http(nginx->port(), "GET", "/api/v2/admin/products/9000000000000000000",
                               with_token(s, origin));
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(missing.body, R"({"error":"Product not found"})");
  EXPECT_EQ(missing.cors(), answer_headers(origin));
  expect_server_headers(missing, "404");

  // nginx's own errors: no route, and a body over 1 MiB (refused on its
  // Content-Length, before any of it is read; read by its Content-Length,
  // since nginx waits 5 s for the body that never comes before it closes).
  RawAnswer no_route =
      raw_http(nginx->port(), "GET", "/api/v2/admin/nothing-here", {"Origin: " + origin});
  EXPECT_EQ(no_route.status, 404) << no_route.body;
  EXPECT_EQ(no_route.body, R"({"error":"Not found"})");
  EXPECT_EQ(no_route.cors(), answer_headers(origin));
  expect_server_headers(no_route, "nginx 404");

  RawAnswer too_large = raw_http(
      nginx->port(), "POST", "/api/v2/admin/products",
      {"Origin: " + origin, "Content-Type: application/json", "Content-Length: 2000000"}, "", true);
  EXPECT_EQ(too_large.status, 413) << too_large.body;
  EXPECT_EQ(too_large.body, R"({"error":"Request body too large"})");
  EXPECT_EQ(too_large.cors(), answer_headers(origin));
  expect_server_headers(too_large, "413");
}

TEST(Cors, NginxsOwn429CarriesThemToo) {
  // The 429 location has add_headers of its own (Retry-After): it repeats the CORS ones.
  auto nginx = start_nginx(
      {{"CORS_ORIGINS", kAllowed}, {"IP_RATE_LIMIT_RPS", "1"}, {"IP_RATE_LIMIT_BURST", "0"}});
  ASSERT_TRUE(nginx->running());
  RawAnswer r;
  for (int i = 0; i < 20 && r.status != 429; ++i) {
    r = raw_http(nginx->port(), "GET", "/api/v2/admin/products",
                 {std::string("Origin: ") + kAllowed});
  }
  ASSERT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(r.body, R"({"error":"Too many requests"})");
  EXPECT_EQ(r.header("retry-after"), "1");
  EXPECT_EQ(r.cors(), answer_headers(kAllowed));
  expect_server_headers(r, "429");
}

TEST(Cors, WithoutAnOriginAnAnswerHasNoCorsHeaderButVary) {
  auto nginx = start_nginx({{"CORS_ORIGINS", kAllowed}});
  ASSERT_TRUE(nginx->running());
  Scope s = fresh_scope(admin_token());
  RawAnswer list = raw_http(nginx->port(), "GET", "/api/v2/admin/products",
                            {"Authorization: Bearer " + s.token, "X-Tenant-ID: " + s.tid()});
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.cors(), kVaryOnly);
  RawAnswer no_token = raw_http(nginx->port(), "GET", "/api/v2/admin/products", {});
  EXPECT_EQ(no_token.status, 401) << no_token.body;
  EXPECT_EQ(no_token.cors(), kVaryOnly);
}

TEST(Cors, OffByDefaultNoAnswerHasAnyCorsHeader) {
  auto nginx = start_nginx({{"CORS_ORIGINS", ""}});
  ASSERT_TRUE(nginx->running());
  Scope s = fresh_scope(admin_token());
  for (const char* origin : {kAllowed, "http://evil.test"}) {
    RawAnswer pre =
        raw_http(nginx->port(), "OPTIONS", "/api/v2/admin/products", preflight(origin, "GET"));
    EXPECT_EQ(pre.status, 405) << pre.body;
    EXPECT_EQ(pre.cors(), kNone) << origin;
    RawAnswer list =
        raw_http(nginx->port(), "GET", "/api/v2/admin/products", with_token(s, origin));
    EXPECT_EQ(list.status, 200) << list.body;
    EXPECT_EQ(list.cors(), kNone) << origin;
    RawAnswer no_token = raw_http(nginx->port(), "GET", "/api/v2/admin/products",
                                  {std::string("Origin: ") + origin});
    EXPECT_EQ(no_token.status, 401) << no_token.body;
    EXPECT_EQ(no_token.cors(), kNone) << origin;
    RawAnswer no_route =
        raw_http(nginx->port(), "GET", "/nothing-here", {std::string("Origin: ") + origin});
    EXPECT_EQ(no_route.status, 404) << no_route.body;
    EXPECT_EQ(no_route.cors(), kNone) << origin;
  }
}

// --- in a real browser ----------------------------------------------------------

// The DOM of `url` loaded in headless Chromium (chromium.h), after a
// clean exit.
std::string dump_dom(const std::string& url, const std::string& dir) {
  PageLoad load = load_in_chromium(url, dir);
  EXPECT_EQ(load.status, 0) << load.log;
  return load.dom;
}

// What the page wrote into <pre id="outcome">.
std::string outcome_of(const std::string& dom) {
  const std::string open = "<pre id=\"outcome\">";
  size_t start = dom.find(open);
  if (start == std::string::npos) return "<no outcome in the DOM: " + dom + ">";
  start += open.size();
  return dom.substr(start, dom.find("</pre>", start) - start);
}

// `"METHOD /path HTTP/1.1" status` of each API request in nginx's access
// log, sorted, once it holds `count` of them (each nginx worker flushes its
// lines every second, so their order in the file is not the requests').
std::vector<std::string> api_requests(const std::string& log_path, size_t count) {
  std::vector<std::string> out;
  for (int i = 0; i < 100; ++i) {
    out.clear();
    std::istringstream lines(file_text(log_path));
    for (std::string line; std::getline(lines, line);) {
      size_t start = line.find(" \"");
      size_t end = line.find("\" ", start + 2);
      if (start == std::string::npos || end == std::string::npos) continue;
      std::string request = line.substr(start + 2, end - start - 2);
      if (request.find(" /api/v2/admin/") == std::string::npos) continue;
      out.push_back(request + " " + line.substr(end + 2, 3));
    }
    if (out.size() >= count) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The page both origins serve: it logs in (a POST of JSON: preflighted) and
// lists the tenant's products (Authorization and X-Tenant-ID: preflighted),
// reading X-Request-Id (an exposed header), and writes how far it got.
std::string page(const std::string& api, const Scope& s) {
  return R"(<!doctype html>
<html><head><meta charset="utf-8"><title>CORS test</title></head>
<body><pre id="outcome">pending</pre>
<script>
const out = document.getElementById("outcome");
async function run() {
  let login;
  try {
    login = await fetch()" +
         json_text(api + "/api/v2/admin/login") + R"(, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({email: )" +
         json_text(admin_email()) + ", password: " + json_text(admin_password()) + R"(})
    });
  } catch (e) {
    out.textContent = "login blocked: " + e.name;
    return;
  }
  const token = (await login.json()).token;
  const requestId = login.headers.get("X-Request-Id") ? "read" : "hidden";
  let list;
  try {
    list = await fetch()" +
         json_text(api + "/api/v2/admin/products") + R"(, {
      headers: {"Authorization": "Bearer " + token, "X-Tenant-ID": )" +
         json_text(s.tid()) + R"(}
    });
  } catch (e) {
    out.textContent = "products blocked: " + e.name;
    return;
  }
  const names = (await list.json()).data.data.map((p) => p.name).join(",");
  out.textContent = "login " + login.status + ", X-Request-Id " + requestId +
      "; products " + list.status + ": " + names;
}
run().catch((e) => { out.textContent = "failed: " + e; });
</script></body></html>
)";
}

TEST(CorsInABrowser, APageOnAnAllowedOriginLogsInAndListsProductsAndOneOnAnotherIsBlocked) {
  ASSERT_EQ(std::system("command -v chromium >/dev/null"), 0)
      << "chromium is not installed (scripts/test installs Debian's chromium package)";
  Scope s = fresh_scope(admin_token());
  std::string product = unique("CORS-mug");
  HttpResponse created = http("POST", "/api/v2/admin/products",
                              s.call("{\"name\":" + json_text(product) + ",\"price\":3}"));
  ASSERT_EQ(created.status, 201) << created.body;

  // Two origins for the page (two ports of a server of this nginx's own),
  // the API on a third; only the first page's origin is allowed.
  int allowed_port = free_port();
  int other_port = free_port();
  ASSERT_NE(allowed_port, other_port);
  std::string dir = state_dir() + "/cors-browser-" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + shell_quote(dir + "/pages")).c_str()), 0);
  std::string allowed_origin = "http://127.0.0.1:" + std::to_string(allowed_port);
  std::string pages = "server {\n  listen 127.0.0.1:" + std::to_string(allowed_port) +
                      ";\n  listen 127.0.0.1:" + std::to_string(other_port) + ";\n  root " + dir +
                      "/pages;\n  default_type \"text/html; charset=utf-8\";\n"
                      "  location = /favicon.ico { return 204; }\n}\n";
  auto nginx = start_nginx({{"CORS_ORIGINS", allowed_origin}}, pages);
  ASSERT_TRUE(nginx->running());
  std::ofstream(dir + "/pages/index.html") << page(nginx->url(), s);

  // What reached the API: the allowed page's two preflights, answered by
  // nginx, and its two requests; then the other page's preflight only,
  // refused by the handler (405), so its login was never sent.
  EXPECT_EQ(outcome_of(dump_dom(allowed_origin + "/", dir + "/chromium-allowed")),
            "login 200, X-Request-Id read; products 200: " + product);
  EXPECT_EQ(
      api_requests(nginx->access_log_path(), 4),
      (std::vector<std::string>{
          "GET /api/v2/admin/products HTTP/1.1 200", "OPTIONS /api/v2/admin/login HTTP/1.1 204",
          "OPTIONS /api/v2/admin/products HTTP/1.1 204", "POST /api/v2/admin/login HTTP/1.1 200"}));
  EXPECT_EQ(outcome_of(dump_dom("http://127.0.0.1:" + std::to_string(other_port) + "/",
                                dir + "/chromium-other")),
            "login blocked: TypeError");
  EXPECT_EQ(
      api_requests(nginx->access_log_path(), 5),
      (std::vector<std::string>{
          "GET /api/v2/admin/products HTTP/1.1 200", "OPTIONS /api/v2/admin/login HTTP/1.1 204",
          "OPTIONS /api/v2/admin/login HTTP/1.1 405", "OPTIONS /api/v2/admin/products HTTP/1.1 204",
          "POST /api/v2/admin/login HTTP/1.1 200"}));
}

}  // namespace
}  // namespace ca::test
