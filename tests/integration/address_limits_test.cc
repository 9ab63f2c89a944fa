// Per-address limits at nginx (docs/decisions/0001-per-address-limits.md):
// IP_RATE_LIMIT_RPS on every API location and, in a budget of their own, on
// the health probes; CONN_LIMIT_PER_IP; REAL_IP_FROM making both per real
// client. Each limit test runs an nginx of its own (own_nginx.h, rendered by
// scripts/render-nginx) in front of the stack's handler sockets, with limits
// small enough to reach in a few requests whatever the machine's speed. The
// stack's nginx keeps limits no test reaches (scripts/test): every test comes
// from 127.0.0.1. Clients are told apart by X-Forwarded-For from 127.0.0.1,
// which both nginx trust (REAL_IP_FROM=127.0.0.1).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "own_nginx.h"
#include "stack.h"

namespace ca::test {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

const char* kTenants = "/api/v2/admin/tenants";
const char* kTooMany = R"({"error":"Too many requests"})";

// A connected TCP socket to 127.0.0.1:port (-1 when it failed), closed with the object.
class Connection {
 public:
  explicit Connection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) close();
  }
  ~Connection() { close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  bool connected() const { return fd_ >= 0; }
  // Whether nginx has sent anything on it (or closed it).
  bool answered() const {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    return !connected() || poll(&p, 1, 0) != 0;
  }
  bool send_all(const std::string& data) const {
    size_t sent = 0;
    while (connected() && sent < data.size()) {
      ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return connected();
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// An nginx of this test (own_nginx.h) trusting 127.0.0.1 to name the client,
// with `settings` on top; every limit not named is off.
std::unique_ptr<OwnNginx> start_nginx(std::map<std::string, std::string> settings) {
  static int started = 0;
  settings.emplace("REAL_IP_FROM", "127.0.0.1");
  settings.emplace("CONN_LIMIT_PER_IP", "0");
  return std::make_unique<OwnNginx>(
      state_dir() + "/address-limits-" + std::to_string(getpid()) + "-" + std::to_string(++started),
      settings);
}

int port_of(const OwnNginx& nginx) {
  std::string url = nginx.url();
  return std::stoi(url.substr(url.rfind(':') + 1));
}

// `call` sent to `nginx` as the client at `address` (X-Forwarded-For; none when empty).
Call as(const OwnNginx& nginx, const std::string& address, Call call = {}) {
  call.base_url = nginx.url();
  if (!address.empty()) call.headers.push_back("X-Forwarded-For: " + address);
  return call;
}

void expect_too_many(const HttpResponse& r, const std::string& what) {
  EXPECT_EQ(r.status, 429) << what << ": " << r.body;
  EXPECT_EQ(r.body, kTooMany) << what;
  EXPECT_EQ(r.headers.count("retry-after") ? r.headers.at("retry-after") : "", "1") << what;
  EXPECT_EQ(r.headers.count("content-type") ? r.headers.at("content-type") : "",
            "application/json; charset=utf-8")
      << what;
}

// Sends `make(i)` one after the other, at most `max` times, until one is
// answered 429; the answers in order.
std::vector<HttpResponse> until_limited(int max, const std::function<HttpResponse(int)>& make) {
  std::vector<HttpResponse> answers;
  for (int i = 0; i < max; ++i) {
    answers.push_back(make(i));
    if (answers.back().status == 429) break;
  }
  return answers;
}

// Rate 1 r/s, burst 5: the 7th quick request from one address is refused.
const std::map<std::string, std::string> kSmallRateLimit = {{"IP_RATE_LIMIT_RPS", "1"},
                                                            {"IP_RATE_LIMIT_BURST", "5"}};
constexpr int kBurstPlusOne = 6;

struct Route {
  const char* method;
  const char* path;
  std::optional<std::string> body;
  long status;  // without a token
  const char* answer;
};

// Every location that passes to a handler, answered without a token.
const std::vector<Route>& api_routes() {
  static const std::vector<Route> routes = {
      {"POST", "/api/v2/admin/login", "{}", 422, nullptr},
      {"POST", "/api/v2/admin/logout", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"POST", "/api/v2/admin/invitations/accept", R"({"token":"inv_1_1_x"})", 422, nullptr},
      {"GET", "/api/v2/admin/tenants", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/audit-log/1", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/team-members/1", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/category", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/products", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/orders", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/addresses", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/announcements", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/webhooks/1", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/events/1", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
      {"GET", "/api/v2/admin/api-keys/1", std::nullopt, 401, R"({"error":"Unauthenticated"})"},
  };
  return routes;
}

TEST(AddressLimits, EveryApiLocationIsLimitedPerForwardedAddress) {
  auto nginx = start_nginx(kSmallRateLimit);
  ASSERT_TRUE(nginx->running()) << nginx->error();
  int n = 0;
  for (const Route& route : api_routes()) {
    std::string what = std::string(route.method) + " " + route.path;
    std::string flooder = "203.0.113." + std::to_string(10 + n++);
    auto answers = until_limited(20, [&](int) {
      return http(route.method, route.path, as(*nginx, flooder, {.body = route.body}));
    });
    ASSERT_FALSE(answers.empty());
    expect_too_many(answers.back(), what);
    EXPECT_GE(answers.size() - 1, size_t{kBurstPlusOne}) << what << ": the burst is 5";
    for (size_t i = 0; i + 1 < answers.size(); ++i) {
      EXPECT_EQ(answers[i].status, route.status) << what << ": " << answers[i].body;
      if (route.answer != nullptr) {
        EXPECT_EQ(answers[i].body, route.answer) << what;
      }
    }
    // Another client is served meanwhile.
    HttpResponse other = http(route.method, route.path,
                              as(*nginx, "198.51.100." + std::to_string(n), {.body = route.body}));
    EXPECT_EQ(other.status, route.status) << what << ": " << other.body;
  }
}

// The per-token limit gives every token a budget: a client changing its bad
// token on every request, or sending none, still spends its address's one
// budget, across every location.
TEST(AddressLimits, NoTokenAndEveryBadTokenShareTheAddressBudget) {
  auto nginx = start_nginx(kSmallRateLimit);
  ASSERT_TRUE(nginx->running()) << nginx->error();
  const std::vector<std::string> paths = {kTenants, "/api/v2/admin/products",
                                          "/api/v2/admin/orders", "/api/v2/admin/webhooks/1"};
  auto bad_tokens = until_limited(20, [&](int i) {
    return http("GET", paths[i % paths.size()],
                as(*nginx, "203.0.113.30", {.token = "bad-token-" + std::to_string(i)}));
  });
  expect_too_many(bad_tokens.back(), "a new bad token per request");
  for (size_t i = 0; i + 1 < bad_tokens.size(); ++i) EXPECT_TRUE(is_unauthenticated(bad_tokens[i]));

  auto no_token = until_limited(
      20, [&](int i) { return http("GET", paths[i % paths.size()], as(*nginx, "203.0.113.31")); });
  expect_too_many(no_token.back(), "no token");
  for (size_t i = 0; i + 1 < no_token.size(); ++i) EXPECT_TRUE(is_unauthenticated(no_token[i]));

  // Both are limited now; a client elsewhere is served, with or without a token.
  expect_too_many(http("GET", kTenants, as(*nginx, "203.0.113.31")), "no token, again");
  EXPECT_EQ(http("GET", kTenants, as(*nginx, "203.0.113.32", {.token = admin_token()})).status,
            200);
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, as(*nginx, "203.0.113.33"))));
}

// A refusal is expected traffic and is answered, not logged: a flood of
// them wrote a line each to the error log (201 MB in 15 s of
// bench/neighbour's unpaced neighbour), the server's disk or journal paying
// for the client's excess. Its 429 is in the access log.
TEST(AddressLimits, RateRefusalsWriteNoErrorLogLine) {
  auto nginx = start_nginx(kSmallRateLimit);
  ASSERT_TRUE(nginx->running()) << nginx->error();
  for (int i = 0; i < 3; ++i) {
    auto answers =
        until_limited(20, [&](int) { return http("GET", kTenants, as(*nginx, "203.0.113.40")); });
    expect_too_many(answers.back(), "a flood from one address");
  }
  EXPECT_EQ(file_text(nginx->error_log_path()), "");
}

// Only 127.0.0.1 is trusted to name the client: from 127.0.0.2 a new
// X-Forwarded-For on every request changes nothing, the budget is 127.0.0.2's.
TEST(AddressLimits, AnUntrustedPeerCannotPickItsAddress) {
  auto nginx = start_nginx(kSmallRateLimit);
  ASSERT_TRUE(nginx->running()) << nginx->error();
  auto answers = until_limited(20, [&](int i) {
    Call call = as(*nginx, "192.0.2." + std::to_string(i + 1));
    call.source_ip = "127.0.0.2";
    return http("GET", kTenants, call);
  });
  expect_too_many(answers.back(), "from 127.0.0.2, a fresh X-Forwarded-For each");
  EXPECT_GE(answers.size() - 1, size_t{kBurstPlusOne});
}

// /healthz and /ping are limited per address too, in a budget of their own:
// a flood of probes does not touch the address's API budget, nor the reverse.
TEST(AddressLimits, ProbesHaveAnAddressBudgetOfTheirOwn) {
  auto nginx = start_nginx(kSmallRateLimit);
  ASSERT_TRUE(nginx->running()) << nginx->error();
  auto probes = until_limited(20, [&](int i) {
    return http("GET", i % 2 == 0 ? "/healthz" : "/api/v2/admin/ping", as(*nginx, "203.0.113.40"));
  });
  expect_too_many(probes.back(), "probes");
  for (size_t i = 0; i + 1 < probes.size(); ++i) {
    EXPECT_EQ(probes[i].status, 200) << probes[i].body;
    EXPECT_EQ(probes[i].body, R"({"status":"ok"})");
  }
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, as(*nginx, "203.0.113.40"))));

  auto api =
      until_limited(20, [&](int) { return http("GET", kTenants, as(*nginx, "203.0.113.41")); });
  expect_too_many(api.back(), "API");
  EXPECT_EQ(http("GET", "/healthz", as(*nginx, "203.0.113.41")).status, 200);
}

// CONN_LIMIT_PER_IP: requests in progress per address. Two requests whose
// body never comes hold both of 203.0.113.50's; its third is refused at once
// while other clients are served, and one ending frees a place.
TEST(AddressLimits, RequestsInProgressAreLimitedPerForwardedAddress) {
  auto nginx = start_nginx({{"CONN_LIMIT_PER_IP", "2"}});
  ASSERT_TRUE(nginx->running()) << nginx->error();
  const std::string slow_body =
      "POST /api/v2/admin/login HTTP/1.1\r\nHost: test\r\nX-Forwarded-For: 203.0.113.50\r\n"
      "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
  std::vector<std::unique_ptr<Connection>> held(2);
  // nginx counts a request once it has read its header, and its workers
  // take connections in no set order: a poll read before a held request's
  // header gets a place (401), and that held request may then be the one
  // refused (429 at once). Such a held request is sent again.
  HttpResponse third;
  for (auto deadline = Clock::now() + 10s; Clock::now() < deadline;) {
    for (auto& h : held) {
      if (h != nullptr && !h->answered()) continue;
      h = std::make_unique<Connection>(port_of(*nginx));
      ASSERT_TRUE(h->send_all(slow_body));
    }
    std::this_thread::sleep_for(100ms);
    third = http("GET", kTenants, as(*nginx, "203.0.113.50"));
    if (third.status == 429 && !held[0]->answered() && !held[1]->answered()) break;
    if (third.status != 429) {
      EXPECT_TRUE(is_unauthenticated(third));
    }
  }
  expect_too_many(third, "a third request in progress");
  // Answered, not logged (as RateRefusalsWriteNoErrorLogLine).
  EXPECT_EQ(file_text(nginx->error_log_path()), "");
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, as(*nginx, "203.0.113.51"))));
  EXPECT_TRUE(is_unauthenticated(http("GET", kTenants, as(*nginx, ""))));

  held.back()->close();
  HttpResponse after;
  for (auto deadline = Clock::now() + 10s; Clock::now() < deadline;
       std::this_thread::sleep_for(100ms)) {
    after = http("GET", kTenants, as(*nginx, "203.0.113.50"));
    if (after.status != 429) break;
  }
  EXPECT_TRUE(is_unauthenticated(after)) << after.status << " " << after.body;
}

// The stack's own nginx runs with REAL_IP_FROM=127.0.0.1 (scripts/test): what
// 127.0.0.1 forwards is the client for every per-address decision, the
// /metrics allowlist (loopback) included; what another peer forwards is not.
TEST(AddressLimits, TheStackTakesTheClientAddressFromLoopbackOnly) {
  EXPECT_EQ(http("GET", "/metrics").status, 200);
  HttpResponse forwarded = http("GET", "/metrics", {.headers = {"X-Forwarded-For: 203.0.113.60"}});
  EXPECT_EQ(forwarded.status, 403);
  EXPECT_EQ(forwarded.body, R"({"error":"Forbidden"})");
  HttpResponse chain =
      http("GET", "/metrics", {.headers = {"X-Forwarded-For: 127.0.0.1, 203.0.113.61"}});
  EXPECT_EQ(chain.status, 403) << "the last untrusted hop is the client";
  HttpResponse spoofed = http(
      "GET", "/metrics", {.headers = {"X-Forwarded-For: 127.0.0.1"}, .source_ip = "127.0.0.2"});
  EXPECT_EQ(spoofed.status, 403) << "127.0.0.2 is not trusted to name the client";
}

}  // namespace
}  // namespace ca::test
