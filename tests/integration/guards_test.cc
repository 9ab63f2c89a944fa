// Defence in depth in the handlers (issue 42): what nginx guards, the
// handlers guard again for a caller that bypasses nginx (any local process
// that can open the sockets speaks FastCGI to them directly), and /healthz
// costs the database at most one statement per second per process, however
// many probes come through nginx, which does not rate limit it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "own_handler.h"
#include "own_nginx.h"
#include "stack.h"

namespace ca::test {
namespace {

using namespace std::chrono_literals;

// The lines of the file at `path` that contain `needle`.
std::vector<std::string> lines_with(const std::string& path, const std::string& needle) {
  return text_lines_with(file_text(path), needle);
}

bool is_fresh_id(const std::string& id) {
  static const std::regex kId("^[0-9a-f]{32}$");
  return std::regex_match(id, kId);
}

// --- /metrics: METRICS_ALLOW, checked by the handler too ----------------------------

// A GET /metrics as nginx would pass it on, from `address`.
OwnAnswer metrics_from(const OwnHandler& handler, const std::string& address) {
  return handler.call({.uri = "/metrics", .remote_addr = address});
}

void expect_forbidden(const OwnAnswer& a, const std::string& address) {
  EXPECT_EQ(a.status, "Status: 403 Forbidden") << address;
  EXPECT_EQ(a.body, R"({"error":"Forbidden"})") << address;
}

void expect_metrics(const OwnAnswer& a, const std::string& address) {
  EXPECT_EQ(a.status, "Status: 200 OK") << address;
  EXPECT_NE(a.body.find("# TYPE commerce_admin_http_requests_total counter"), std::string::npos)
      << address << ": " << a.body;
}

TEST(MetricsAllow, TheHandlerServesMetricsOnlyToTheListedAddresses) {
  std::string dir = state_dir() + "/metrics-allow-" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + shell_quote(dir)).c_str()), 0);
  OwnHandler handler(
      "commerce-admin-auth", "metrics-allow",
      {{"METRICS_ALLOW", "10.1.0.0/16 2001:db8::/32 192.0.2.7"}, {"METRICS_DIR", dir}});
  for (const char* address : {"10.1.0.1", "10.1.255.254", "192.0.2.7", "2001:db8::7",
                              "2001:db8:ffff::1", "::ffff:10.1.2.3"}) {
    expect_metrics(metrics_from(handler, address), address);
  }
  // Loopback too: only what is listed (nginx is on this host, but a local
  // process is exactly who bypasses it).
  for (const char* address : {"10.2.0.1", "192.0.2.8", "127.0.0.1", "::1", "2001:db9::1", "",
                              "unix:", "10.1.0.1, 127.0.0.1"}) {
    expect_forbidden(metrics_from(handler, address), address);
  }
  // Only /metrics is guarded.
  EXPECT_EQ(handler.call({.uri = "/api/v2/admin/ping", .remote_addr = "10.2.0.1"}).status,
            "Status: 200 OK");
}

TEST(MetricsAllow, ByDefaultOnlyLoopbackGetsMetrics) {
  std::string dir = state_dir() + "/metrics-default-" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + shell_quote(dir)).c_str()), 0);
  OwnHandler handler("commerce-admin-auth", "metrics-default",
                     {{"METRICS_ALLOW", kUnset}, {"METRICS_DIR", dir}});
  expect_metrics(metrics_from(handler, "127.0.0.1"), "127.0.0.1");
  expect_metrics(metrics_from(handler, "::1"), "::1");
  for (const char* address : {"127.0.0.2", "10.0.0.1", "203.0.113.9", "fe80::1"}) {
    expect_forbidden(metrics_from(handler, address), address);
  }
}

// --- Request ids: nginx's rule, applied by the handler too --------------------------

// A REQUEST_ID nginx would never pass (a newline that starts a forged log
// line, a quote, more than 64 characters) is replaced by a fresh id: the
// 500 body and every log line carry that one, and the forged text is in
// neither. A sane one is kept.
TEST(RequestIdCleaning, AForgedRequestIdNeverReachesTheLogOrTheBody) {
  Scope s = fresh_scope(admin_token());
  CategoryInsertFailure failure;
  const std::string& name = failure.name();
  OwnHandler handler("commerce-admin-categories", "request-id", {});
  auto fail_with_id = [&](const std::string& request_id) {
    return handler.call({.method = "POST",
                         .uri = "/api/v2/admin/category/create",
                         .token = s.token,
                         .body = "{\"name\":\"" + name + "\"}",
                         .request_id = request_id,
                         .params = {{"HTTP_X_TENANT_ID", s.tid()}}});
  };

  std::string marker = unique("forged");
  std::string too_long = marker + std::string(65 - marker.size(), 'x');
  ASSERT_EQ(too_long.size(), 65u);
  for (const std::string& forged : {marker + "\n" + name + ": error: forged line", marker + "\"}",
                                    too_long, marker + " with spaces", marker + "\r"}) {
    OwnAnswer a = fail_with_id(forged);
    ASSERT_EQ(a.status, "Status: 500 Internal Server Error") << forged;
    EXPECT_EQ(a.body.find(marker), std::string::npos) << a.body;
    Json body = json_parse(a.body);
    ASSERT_TRUE(body) << a.body;
    std::string fresh(json_get_str(body.get(), "request_id").value_or(""));
    EXPECT_TRUE(is_fresh_id(fresh)) << a.body;
    // The handler's error line for this request names the fresh id.
    EXPECT_EQ(lines_with(handler.log(), "request_id=" + fresh).size(), 1u)
        << file_text(handler.log());
  }
  // A request with no id at all gets a fresh one too.
  OwnAnswer none = fail_with_id("");
  Json none_body = json_parse(none.body);
  ASSERT_TRUE(none_body) << none.body;
  EXPECT_TRUE(is_fresh_id(std::string(json_get_str(none_body.get(), "request_id").value_or(""))))
      << none.body;

  std::string log = file_text(handler.log());
  EXPECT_EQ(log.find(marker), std::string::npos) << log;
  EXPECT_EQ(log.find("forged line"), std::string::npos) << log;

  // 1 to 64 characters of [A-Za-z0-9._-]: kept, in the body and the log.
  std::string sane = unique("sane.id_1");
  OwnAnswer kept = fail_with_id(sane);
  EXPECT_EQ(kept.status, "Status: 500 Internal Server Error");
  Json kept_body = json_parse(kept.body);
  ASSERT_TRUE(kept_body) << kept.body;
  EXPECT_EQ(json_get_str(kept_body.get(), "request_id").value_or(""), sane);
  EXPECT_EQ(lines_with(handler.log(), "request_id=" + sane).size(), 1u) << file_text(handler.log());
}

// --- /healthz: one database round trip per second per process ----------------------

// An auth handler of 4 threads behind an nginx of this test, its request
// lines in JSON: a burst of probes through nginx asks the database at most
// once per second (each request line counts its round trips), and a probe
// after a quiet second asks it again.
TEST(HealthzCost, ABurstOfProbesThroughNginxAsksTheDatabaseAtMostOnceASecond) {
  std::string dir = state_dir() + "/healthz-" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + shell_quote(dir + "/metrics")).c_str()), 0);
  int handler_port = free_port();
  ASSERT_GT(handler_port, 0);
  std::string log = dir + "/auth.log";
  pid_t handler = start_tcp_handler("commerce-admin-auth", "--threads 4", handler_port, log,
                                    {{"LOG_FORMAT", "json"}, {"METRICS_DIR", dir + "/metrics"}});
  ASSERT_GT(handler, 0) << file_text(log);
  {
    OwnNginx nginx(dir, {{"HANDLER_HOSTS_AUTH", "127.0.0.1:" + std::to_string(handler_port)}});
    ASSERT_TRUE(nginx.running()) << nginx.error();
    auto probe = [&](const std::string& id) {
      return http("GET", "/healthz", {.headers = {"X-Request-Id: " + id}, .base_url = nginx.url()});
    };
    // The handler's first request opens its connection.
    expect_body(probe(unique("warm")), 200, R"({"status":"ok"})");

    std::string prefix = unique("burst");
    constexpr int kProbes = 60;
    auto started = std::chrono::steady_clock::now();
    std::vector<HttpResponse> answers =
        http_concurrent(kProbes, 6, [&](int i) { return probe(prefix + "-" + std::to_string(i)); });
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    int asked = 0;
    for (int i = 0; i < kProbes; ++i) {
      expect_body(answers[static_cast<size_t>(i)], 200, R"({"status":"ok"})");
      Json line = json_request_line(file_text(log), prefix + "-" + std::to_string(i));
      ASSERT_TRUE(line) << "no request line for probe " << i << "\n" << file_text(log);
      EXPECT_EQ(json_get_str(line.get(), "route").value_or(""), "/healthz");
      if (json_get_int(line.get(), "db_round_trips").value_or(-1) > 0) ++asked;
    }
    // A new answer at most once a second, the first one included.
    EXPECT_LE(asked, 1 + static_cast<int>(std::floor(seconds)))
        << kProbes << " probes in " << seconds << " s";

    // A second later the answer is stale: the next probe asks again.
    std::this_thread::sleep_for(1100ms);
    std::string fresh = unique("fresh");
    expect_body(probe(fresh), 200, R"({"status":"ok"})");
    Json line = json_request_line(file_text(log), fresh);
    ASSERT_TRUE(line) << file_text(log);
    EXPECT_GE(json_get_int(line.get(), "db_round_trips").value_or(-1), 1);
  }
  EXPECT_TRUE(stop_process(handler, 20));
}

}  // namespace
}  // namespace ca::test
