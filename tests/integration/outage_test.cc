// The stack with its PostgreSQL stopped: every endpoint answers 503 in its
// own documented shape (issue 27: the orders endpoints answered the session
// check's 503 as {error}, though every other orders error, and OpenAPI, say
// {success:false, message}), and once PostgreSQL is back every handler
// serves again without a restart, writes included.
//
// This stops the test stack's own PostgreSQL, so nothing else may run
// meanwhile: it is its own executable, and tests/CMakeLists.txt marks its
// tests RUN_SERIAL (ctest never runs another test beside one, even with -j).
// Whatever happens, PostgreSQL is started again before the test ends (an
// RAII guard) and the test waits until the stack is healthy, so the tests
// that run after it find the stack as they expect. It is started with
// `pg_ctl restart`, which reuses the options scripts/run started it with
// (PGDATA/postmaster.opts: socket directory, max_connections, ...).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

// As scripts/lib.sh's pg_bin; the data directory is scripts/run's.
const char* kPgCtl = "/usr/lib/postgresql/15/bin/pg_ctl";

// The servers the stack's handlers connect to, as scripts/run's data
// directories: the coordinator's (single-node's) pg/, and with
// CITUS_HANDLER_NODES=workers every worker's too (pg-worker<N>/, their
// reads go there: decision 0128), or reads would still be answered.
std::vector<std::string> servers() {
  std::vector<std::string> dirs = {"pg"};
  if (stack_env("CITUS_HANDLER_NODES") == "workers") {
    for (int w = 1; std::ifstream(state_dir() + "/pg-worker" + std::to_string(w) + "/PG_VERSION");
         ++w) {
      dirs.push_back("pg-worker" + std::to_string(w));
    }
  }
  return dirs;
}

int pg_ctl(const std::string& dir, const std::string& args) {
  std::string command = "runuser -u postgres -- " + std::string(kPgCtl) + " -D " +
                        shell_quote(state_dir() + "/" + dir) + " " + args + " >/dev/null 2>&1";
  return std::system(command.c_str());
}

bool healthy() { return http("GET", "/healthz").status == 200; }

// Stops PostgreSQL (every server of servers()) for its lifetime (fast
// shutdown: sessions are ended, as in a crash or a restart), and starts it
// again however the test ends.
class DatabaseStopped {
 public:
  DatabaseStopped() {
    stopped_ = true;
    for (const std::string& dir : servers()) {
      stopped_ = pg_ctl(dir, "-m fast -w -t 60 stop") == 0 && stopped_;
    }
  }
  ~DatabaseStopped() { start(); }
  DatabaseStopped(const DatabaseStopped&) = delete;
  DatabaseStopped& operator=(const DatabaseStopped&) = delete;
  bool stopped() const { return stopped_; }
  // Starts them again (once; the workers before the coordinator) and waits
  // until they accept connections.
  bool start() {
    if (!stopped_) return true;
    stopped_ = false;
    std::vector<std::string> dirs = servers();
    bool started = true;
    for (auto dir = dirs.rbegin(); dir != dirs.rend(); ++dir) {
      std::string log = *dir == "pg" ? "postgres" : "postgres-" + dir->substr(3);
      started = pg_ctl(*dir, "-l " + shell_quote(state_dir() + "/log/" + log + ".log") +
                                 " -w -t 60 restart") == 0 &&
                started;
    }
    return started;
  }

 private:
  bool stopped_ = false;
};

struct Endpoint {
  const char* method;
  std::string path;
  bool tenant_header;  // sends X-Tenant-ID
  bool orders;         // documents {success:false, message} for 503
};

// Every route of every handler (handlers/*/main.cc), with what it needs to
// get past the checks that need no database: a well-formed token, an
// X-Tenant-ID where one is read, and a JSON body where one is read. The
// database is asked first by the session check, so none of them gets further.
std::vector<Endpoint> every_endpoint(int64_t tenant) {
  std::string t = to_string(tenant);
  return {
      {"POST", "/api/v2/admin/logout", false, false},
      {"GET", "/api/v2/admin/tenants", false, false},
      {"POST", "/api/v2/admin/tenants", false, false},
      {"GET", "/api/v2/admin/tenants/" + t, false, false},
      {"POST", "/api/v2/admin/tenants/" + t, false, false},
      {"GET", "/api/v2/admin/team-members/" + t, false, false},
      {"POST", "/api/v2/admin/team-members/" + t, false, false},
      {"POST", "/api/v2/admin/team-members/" + t + "/1", false, false},
      {"DELETE", "/api/v2/admin/team-members/" + t + "/1", false, false},
      {"GET", "/api/v2/admin/category", true, false},
      {"POST", "/api/v2/admin/category/create", true, false},
      {"PATCH", "/api/v2/admin/category/1", true, false},
      {"POST", "/api/v2/admin/category/1", true, false},
      {"DELETE", "/api/v2/admin/category/1", true, false},
      {"GET", "/api/v2/admin/products", true, false},
      {"POST", "/api/v2/admin/products", true, false},
      {"GET", "/api/v2/admin/products/1", true, false},
      {"POST", "/api/v2/admin/products/1", true, false},
      {"DELETE", "/api/v2/admin/products/1", true, false},
      {"GET", "/api/v2/admin/addresses", false, false},
      {"POST", "/api/v2/admin/addresses", false, false},
      {"GET", "/api/v2/admin/orders", true, true},
      {"POST", "/api/v2/admin/orders", true, true},
      {"GET", "/api/v2/admin/orders/1", true, true},
      {"POST", "/api/v2/admin/orders/1/status", true, true},
      {"GET", "/api/v2/admin/announcements", true, false},
      {"POST", "/api/v2/admin/announcements", true, false},
      {"GET", "/api/v2/admin/announcements/active", true, false},
      {"GET", "/api/v2/admin/announcements/1", true, false},
      {"POST", "/api/v2/admin/announcements/1", true, false},
      {"DELETE", "/api/v2/admin/announcements/1", true, false},
      {"POST", "/api/v2/admin/announcements/1/read", true, false},
      {"POST", "/api/v2/admin/announcements/1/dismiss", true, false},
      {"GET", "/api/v2/admin/webhooks/" + t, false, false},
      {"POST", "/api/v2/admin/webhooks/" + t, false, false},
      {"DELETE", "/api/v2/admin/webhooks/" + t + "?id=1", false, false},
      {"GET", "/api/v2/admin/webhooks/" + t + "/deliveries", false, false},
  };
}

TEST(DatabaseOutage, EveryEndpointAnswers503InItsOwnShapeAndServesAgainAfter) {
  ASSERT_TRUE(healthy()) << "the stack is not healthy before the test";
  std::string token = admin_token();
  int64_t tenant = create_tenant(token, unique("Outage"));
  std::vector<Endpoint> endpoints = every_endpoint(tenant);

  {
    DatabaseStopped db;
    ASSERT_TRUE(db.stopped()) << "pg_ctl stop failed";

    const std::string plain = R"({"error":"Service temporarily unavailable"})";
    const std::string orders = R"({"success":false,"message":"Service temporarily unavailable"})";
    for (const Endpoint& e : endpoints) {
      SCOPED_TRACE(std::string(e.method) + " " + e.path);
      Call call{.token = token, .body = std::string("{}")};
      if (e.tenant_header) call.tenant = to_string(tenant);
      HttpResponse r = http(e.method, e.path, call);
      expect_body(r, 503, e.orders ? orders : plain);
      EXPECT_EQ(r.headers["retry-after"], "1");
    }
    // Login asks the database before any session exists; the probes. A
    // process reuses /healthz's answer for a second (common/health_cache.h):
    // one from before the stop may still be served until then.
    expect_body(login_response(admin_email(), admin_password()), 503, plain);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    expect_body(http("GET", "/healthz"), 503, R"({"status":"unavailable"})");
    expect_body(http("GET", "/api/v2/admin/ping"), 200, R"({"status":"ok"})");

    ASSERT_TRUE(db.start()) << "pg_ctl restart failed";
  }

  // Handlers reconnect on their next statement: no restart of theirs.
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!healthy() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The process that answered has seen the database; the other one may
  // still serve its answer from the outage, for up to a second.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(healthy()) << "the stack did not become healthy within 30 s";

  // Every group reads again with the token issued before the outage (its
  // session survived), and writes go through on connections that sat idle
  // through the restart: a write is never retried, but each request's first
  // statement is the session check, a read, which is retried on a new
  // connection when the old one turns out dead. (Concurrent, to use every
  // connection of the group, and more writes than it has connections.)
  std::string t = to_string(tenant);
  Call scoped{.token = token, .tenant = t};
  for (const auto& [path, header] :
       std::vector<std::pair<std::string, bool>>{{"/api/v2/admin/tenants/" + t, false},
                                                 {"/api/v2/admin/team-members/" + t, false},
                                                 {"/api/v2/admin/category", true},
                                                 {"/api/v2/admin/products", true},
                                                 {"/api/v2/admin/orders", true},
                                                 {"/api/v2/admin/addresses", false},
                                                 {"/api/v2/admin/announcements", true},
                                                 {"/api/v2/admin/webhooks/" + t, false}}) {
    HttpResponse r = http("GET", path, header ? scoped : Call{.token = token});
    EXPECT_EQ(r.status, 200) << path << " " << r.body;
  }
  std::vector<HttpResponse> created = http_concurrent(32, 8, [&](int i) {
    return http("POST", "/api/v2/admin/category/create",
                {.token = token,
                 .tenant = t,
                 .body = R"({"name":")" + unique("After outage " + std::to_string(i)) + R"("})"});
  });
  for (size_t i = 0; i < created.size(); ++i) {
    EXPECT_EQ(created[i].status, 201) << i << " " << created[i].body;
  }
  // The same through common/request_tx.h, whose session check goes out with the
  // write (never retried): a connection found closed is replaced before it.
  std::vector<HttpResponse> addresses = http_concurrent(32, 8, [&](int) {
    return http(
        "POST", "/api/v2/admin/addresses",
        {.token = token,
         .body = R"({"street":"Main 1","city":"Berlin","country":"DE","postal_code":"1"})"});
  });
  for (size_t i = 0; i < addresses.size(); ++i) {
    EXPECT_EQ(addresses[i].status, 201) << i << " " << addresses[i].body;
  }
  EXPECT_EQ(http("POST", "/api/v2/admin/logout", {.token = token}).status, 200);
}

}  // namespace
}  // namespace ca::test
