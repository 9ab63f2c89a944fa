// On a Citus stack (CLUSTER=citus scripts/run, the Citus pass of scripts/test;
// skipped on single-node): a tenant's requests run on one shard. Every node
// logs every statement that Citus splits into several tasks (scripts/run
// sets citus.multi_task_query_log_level = log on each, and the statement
// follows the line), so a request whose statements are all router queries
// adds no such line to any node's log: the coordinator's, or a worker's
// where the handlers read there (CITUS_HANDLER_NODES=workers, decision
// 0128). A statement Citus runs in several steps (one with an INSERT in a
// CTE, docs/scaling.md) logs no such line either: the second test reads the
// commands the nodes send to each other (or run on their own shards) and
// checks that every shard they name is the tenant's (or a reference
// table's).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

// Every node's log: the coordinator's, then each worker's (scripts/run's
// log/postgres-worker<N>.log). With CITUS_HANDLER_NODES=workers the
// handlers' reads are planned and sent on by a worker (decision 0128), so a
// request's statements are logged where its handler connected.
std::vector<std::string> node_logs() {
  std::vector<std::string> logs = {state_dir() + "/log/postgres.log"};
  for (int w = 1;; ++w) {
    std::string path = state_dir() + "/log/postgres-worker" + std::to_string(w) + ".log";
    if (!std::ifstream(path)) break;
    logs.push_back(path);
  }
  return logs;
}

// Where each node's log ends now (bytes into it), in node_logs()' order.
using LogMark = std::vector<std::streamoff>;

LogMark log_size() {
  LogMark mark;
  for (const std::string& path : node_logs()) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    mark.push_back(in ? static_cast<std::streamoff>(in.tellg()) : 0);
  }
  return mark;
}

// Node `i`'s log (in node_logs()' order) since `from`.
std::string node_log_since(const LogMark& from, size_t i) {
  std::string path = node_logs().at(i);
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  in.seekg(i < from.size() ? from[i] : 0);
  // Not `out << in.rdbuf()`: with nothing new in this log it would set
  // `out`'s failbit.
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every node's log since `from`, one after the other.
std::string log_since(const LogMark& from) {
  std::string out;
  for (size_t i = 0; i < node_logs().size(); ++i) out += node_log_since(from, i) + "\n";
  return out;
}

// What a request made the nodes do since `from`, read from every node's log
// while a RemoteCommandLog is alive: the commands one node sent another
// ("issuing", with the node it went to from the DETAIL line after it), the
// commands a node ran on a shard of its own ("executing the command
// locally"), and every two-phase commit's PREPARE TRANSACTION.
struct NodeCommands {
  std::string all;                 // every node's log since `from`
  std::string sent;                // "issuing" lines, one a line
  std::string local;               // "executing the command locally" lines, one a line
  std::set<std::string> workers;   // the workers that ran something: "worker<N>"
  std::vector<std::string> multi;  // statements logged as multi-task
  bool prepared = false;           // a PREPARE TRANSACTION on any node
};

// "worker<N>" for each worker's port: the node that runs_command_on_workers
// reaches there runs in state_dir()/pg-worker<N> (scripts/run). Read once,
// before any RemoteCommandLog (it sends commands itself).
const std::map<std::string, std::string>& worker_names() {
  static const std::map<std::string, std::string> names = [] {
    std::map<std::string, std::string> out;
    for (const std::string& row : sql("SELECT nodeport || ' ' || result FROM "
                                      "run_command_on_workers('SHOW data_directory')")) {
      std::string::size_type space = row.find(' '), at = row.rfind("pg-worker");
      if (space == std::string::npos || at == std::string::npos) continue;
      out[row.substr(0, space)] = "worker" + row.substr(at + 9);
    }
    return out;
  }();
  return names;
}

NodeCommands node_commands(const LogMark& from) {
  NodeCommands out;
  std::vector<std::string> logs = node_logs();
  static const std::regex kServer(R"(DETAIL:  on server [^ ]*:([0-9]+) connectionId)");
  static const std::regex kFrom(R"(DETAIL:  from [^ ]*:([0-9]+)\s*$)");
  for (size_t i = 0; i < logs.size(); ++i) {
    std::ifstream in(logs[i], std::ios::binary);
    EXPECT_TRUE(in) << "cannot read " << logs[i];
    in.seekg(i < from.size() ? from[i] : 0);
    // The lines of the node's own background work are left out: Citus's
    // maintenance daemon asks every worker for its lock waits every few
    // seconds (dump_local_wait_edges(), the distributed deadlock check),
    // whatever the request does. A line names its process ("[pid]"); a
    // line without one continues the line before it.
    std::vector<std::string> lines;
    std::vector<std::string> pids;
    std::set<std::string> daemons;
    static const std::regex kPid(R"(^\S+ \S+ \S+ \[([0-9]+)\])");
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      pids.push_back(std::regex_search(line, m, kPid) ? m[1].str()
                                                      : (pids.empty() ? "" : pids.back()));
      if (line.find("Citus maintenance daemon") != std::string::npos) daemons.insert(pids.back());
      lines.push_back(std::move(line));
    }
    bool want_statement = false, local_pending = false;
    for (size_t at = 0; at < lines.size(); ++at) {
      if (daemons.count(pids[at])) continue;
      const std::string& line = lines[at];
      out.all += line + "\n";
      std::smatch m;
      if (line.find("PREPARE TRANSACTION") != std::string::npos) out.prepared = true;
      if (line.find("issuing ") != std::string::npos) out.sent += line + "\n";
      if (std::regex_search(line, m, kServer)) {
        auto name = worker_names().find(m[1].str());
        out.workers.insert(name != worker_names().end() ? name->second : "node:" + m[1].str());
      }
      // A worker's notice relayed by the coordinator, with "DETAIL:  from
      // host:port" after it, was the worker's; else the node's own.
      if (local_pending) {
        std::smatch from_worker;
        local_pending = false;
        if (std::regex_search(line, from_worker, kFrom)) {
          auto name = worker_names().find(from_worker[1].str());
          out.workers.insert(name != worker_names().end() ? name->second
                                                          : "node:" + from_worker[1].str());
        } else {
          out.workers.insert("coordinator");
        }
      }
      if (line.find("executing the command locally") != std::string::npos) {
        out.local += line + "\n";
        if (i == 0) {
          local_pending = true;
        } else {
          out.workers.insert("worker" + std::to_string(i));
        }
      }
      if (line.find("multi-task query about to be executed") != std::string::npos) {
        want_statement = true;
        out.multi.emplace_back("(statement not logged)");
      } else if (want_statement && line.find("STATEMENT:") != std::string::npos) {
        out.multi.back() = line.substr(line.find("STATEMENT:") + 10);
        want_statement = false;
      }
    }
  }
  return out;
}

// The statements the nodes logged as multi-task since `from`, one string each.
std::vector<std::string> multi_shard_statements(const LogMark& from) {
  return node_commands(from).multi;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "\n  " + l;
  return out;
}

// Turns on every node's log of every command it sends to another node
// (citus.log_remote_commands) or runs on a shard of its own
// (citus.log_local_commands: a worker planning a handler's read runs the
// shards it holds itself), at NOTICE, for its lifetime; with `statements`,
// every statement a client sends too (log_statement, `execute NAME: ...` for
// a prepared one). Every backend takes the setting at its next statement
// after the reload.
class RemoteCommandLog {
 public:
  explicit RemoteCommandLog(bool statements = false) : statements_(statements) {
    worker_names();  // read before the nodes log what it sends
    for (const char* command : {"ALTER SYSTEM SET citus.log_remote_commands = on",
                                "ALTER SYSTEM SET citus.log_local_commands = on",
                                "ALTER SYSTEM SET log_min_messages = notice",
                                statements_ ? "ALTER SYSTEM SET log_statement = 'all'" : "SELECT 1",
                                "SELECT pg_reload_conf()"}) {
      on_every_node(command);
    }
  }
  ~RemoteCommandLog() {
    for (const char* command :
         {"ALTER SYSTEM RESET citus.log_remote_commands",
          "ALTER SYSTEM RESET citus.log_local_commands", "ALTER SYSTEM RESET log_min_messages",
          statements_ ? "ALTER SYSTEM RESET log_statement" : "SELECT 1",
          "SELECT pg_reload_conf()"}) {
      on_every_node(command);
    }
  }
  RemoteCommandLog(const RemoteCommandLog&) = delete;
  RemoteCommandLog& operator=(const RemoteCommandLog&) = delete;

 private:
  bool statements_;
  // The coordinator, then each worker (run_command_on_workers sends the
  // command alone, outside a transaction block, as ALTER SYSTEM needs).
  static void on_every_node(const std::string& command) {
    sql(command);
    EXPECT_EQ(
        sql("SELECT DISTINCT success::text FROM run_command_on_workers($ca$" + command + "$ca$)"),
        std::vector<std::string>{"true"})
        << command;
  }
};

// With a RemoteCommandLog on, each backend takes its settings at its next
// statement: sends `request` (at most 50 times, 100 ms apart) until the
// nodes' logs since it satisfy `logged`, then lets them settle. False if
// they never did.
bool until_logged(const std::function<void()>& request,
                  const std::function<bool(const std::string&)>& logged) {
  for (int i = 0; i < 50; ++i) {
    LogMark before = log_size();
    request();
    if (logged(log_since(before))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// `data.id` of a `{success, data}` answer.
std::string data_id(const HttpResponse& r) {
  const cJSON* id = cJSON_GetObjectItemCaseSensitive(r["data"], "id");
  return cJSON_IsNumber(id) ? to_string(static_cast<int64_t>(id->valuedouble)) : "none";
}

// The shard ids named in the commands sent to workers (`public.<table>_<id>`).
std::set<std::string> shards_named(const std::string& log) {
  static const std::regex kShard(R"(public\.[a-z_]+_([0-9]{6,}))");
  std::set<std::string> found;
  for (std::sregex_iterator it(log.begin(), log.end(), kShard), end; it != end; ++it) {
    found.insert((*it)[1].str());
  }
  return found;
}

// Each test: on a Citus stack only, a tenant with a product, a buyer (a
// member) with an address, and the body of an order of that product by
// that buyer.
class Citus : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!on_citus()) GTEST_SKIP() << "not a Citus stack";
    admin = admin_token();
    int64_t tenant = create_tenant(admin, unique("citus"));
    tid = to_string(tenant);
    buyer = add_user(admin, tenant, "MEMBER");
    HttpResponse address = http("POST", "/api/v2/admin/addresses",
                                {.token = buyer.token,
                                 .body = R"({"street":"Main Street 1","city":"Berlin",)"
                                         R"("country":"DE","postal_code":"10115"})"});
    ASSERT_EQ(address.status, 201) << address.body;
    HttpResponse product =
        http("POST", "/api/v2/admin/products",
             {.token = admin, .tenant = tid, .body = R"({"name":"Shirt","price":4.5})"});
    ASSERT_EQ(product.status, 201) << product.body;
    product_id = to_string(product.integer("id"));
    order = R"({"address_id":)" + to_string(address.integer("id")) +
            R"(,"payment_type":1,"total_amount":4.50,"order_items":[{"product_id":)" + product_id +
            R"(,"qty":1,"amount":4.50}]})";
  }

  std::string admin;
  std::string tid;
  TestUser buyer;
  std::string product_id;
  std::string order;
};

TEST_F(Citus, TenantRequestsRunOnOneShard) {
  // The stack's worker claims across tenants (multi-shard on purpose).
  StackWorkerPause pause;

  // The log catches a multi-shard statement (else the check below proves nothing).
  LogMark before = log_size();
  sql("SELECT count(*) FROM products");
  std::vector<std::string> control = multi_shard_statements(before);
  ASSERT_EQ(control.size(), 1u) << joined(control);
  EXPECT_NE(control[0].find("SELECT count(*) FROM products"), std::string::npos) << control[0];

  // Each request also runs the session check.
  struct Request {
    const char* method;
    std::string path;
    std::string token;
    std::optional<std::string> body;
    long status;
  };
  // And with an API key instead (issue 40): its check runs on the tenant's shard.
  HttpResponse made_key =
      http("POST", "/api/v2/admin/api-keys/" + tid,
           {.token = admin, .body = R"({"name":"Citus","scopes":["products:write"]})"});
  ASSERT_EQ(made_key.status, 201) << made_key.body;
  const std::string key = made_key.str("key");
  const std::vector<Request> requests = {
      {"GET", "/api/v2/admin/products/" + product_id, admin, std::nullopt, 200},
      {"GET", "/api/v2/admin/products/" + product_id, key, std::nullopt, 200},
      {"GET", "/api/v2/admin/products", key, std::nullopt, 200},
      {"POST", "/api/v2/admin/products", key, R"({"name":"Keyed","price":1})", 201},
      {"GET", "/api/v2/admin/products", admin, std::nullopt, 200},
      {"GET", "/api/v2/admin/products?q=shi&published=true", admin, std::nullopt, 200},
      {"POST", "/api/v2/admin/orders", buyer.token, order, 201},
      {"GET", "/api/v2/admin/orders", admin, std::nullopt, 200},
      {"GET", "/api/v2/admin/orders?status=pending", admin, std::nullopt, 200},
  };
  for (const Request& r : requests) {
    before = log_size();
    HttpResponse got = http(r.method, r.path, {.token = r.token, .tenant = tid, .body = r.body});
    EXPECT_EQ(got.status, r.status) << r.method << " " << r.path << ": " << got.body;
    std::vector<std::string> multi = multi_shard_statements(before);
    EXPECT_TRUE(multi.empty()) << r.method << " " << r.path
                               << " ran statements on every shard:" << joined(multi);
  }
}

// Stronger than the multi-task log: the shards a request's commands name on
// the workers. A write statement with INSERT CTEs runs as several steps on
// Citus, each routed on its own; every step must still name only the
// tenant's shards (of any of its tables) and reference tables' shards.
TEST_F(Citus, TenantRequestsNameOnlyTheTenantsShards) {
  // The tenant's shards of every tenant table, and every reference table's.
  std::vector<std::string> mine =
      sql("SELECT get_shard_id_for_distribution_column(logicalrelid, " + tid +
          ")::text FROM pg_dist_partition WHERE partmethod = 'h'");
  std::vector<std::string> reference =
      sql("SELECT s.shardid::text FROM pg_dist_shard s JOIN pg_dist_partition p USING "
          "(logicalrelid) WHERE p.partmethod = 'n'");
  ASSERT_FALSE(mine.empty());
  std::set<std::string> allowed(mine.begin(), mine.end());
  allowed.insert(reference.begin(), reference.end());
  StackWorkerPause pause;
  RemoteCommandLog remote_log;

  const std::string product_path = "/api/v2/admin/products/" + product_id;
  // The log shows the commands once every backend took the setting: a
  // product read's (a handler has several backends; a few tries each).
  ASSERT_TRUE(until_logged(
      [&] { EXPECT_EQ(http("GET", product_path, {.token = admin, .tenant = tid}).status, 200); },
      [](const std::string& log) { return !shards_named(log).empty(); }))
      << "no node logs its remote commands";

  // Multi-shard on purpose (docs/scaling.md): removing a member reads the
  // user's other memberships, on any shard, for the user's fallback tenant.
  std::vector<std::string> memberships =
      sql("SELECT shardid::text FROM pg_dist_shard WHERE logicalrelid = 'memberships'::regclass");

  // Each request (its session check included) names only allowed shards
  // (and `also`), and at least one of the tenant's.
  auto check = [&](const char* method, const std::string& path, const std::string& token,
                   std::optional<std::string> body, long status,
                   std::vector<std::string> headers = {},
                   const std::vector<std::string>& also = {}) {
    LogMark before = log_size();
    HttpResponse got =
        http(method, path, {.token = token, .tenant = tid, .body = body, .headers = headers});
    EXPECT_EQ(got.status, status) << method << " " << path << ": " << got.body;
    bool named_mine = false;
    for (const std::string& shard : shards_named(log_since(before))) {
      bool listed = std::find(also.begin(), also.end(), shard) != also.end();
      EXPECT_TRUE(allowed.count(shard) || listed) << method << " " << path << " named shard "
                                                  << shard << ", not one of tenant " << tid << "'s";
      named_mine |= std::find(mine.begin(), mine.end(), shard) != mine.end();
    }
    EXPECT_TRUE(named_mine) << method << " " << path << " named none of the tenant's shards";
    return got;
  };
  const std::string hooks = "/api/v2/admin/webhooks/" + tid;
  const std::string members = "/api/v2/admin/team-members/" + tid;
  const std::string tenant_path = "/api/v2/admin/tenants/" + tid;
  check("GET", tenant_path, admin, std::nullopt, 200);
  check("POST", tenant_path, admin, R"({"name":"Citus shop"})", 200);
  check("GET", product_path, admin, std::nullopt, 200);
  check("GET", "/api/v2/admin/products", admin, std::nullopt, 200);
  check("GET", "/api/v2/admin/products?q=shi", admin, std::nullopt, 200);
  check("POST", "/api/v2/admin/products", admin, R"({"name":"Hat","price":2})", 201);
  check("POST", "/api/v2/admin/products", admin, R"({"name":"Cap","price":3})", 201,
        {"Idempotency-Key: " + unique("citus-key")});
  check("POST", product_path, admin, R"({"stock":3})", 200);
  HttpResponse hook =
      check("POST", hooks, admin, R"({"url":"http://127.0.0.1:1024/in","events":["*"]})", 201);
  check("GET", hooks, admin, std::nullopt, 200);
  HttpResponse made = check("POST", "/api/v2/admin/orders", buyer.token, order, 201);
  check("POST", "/api/v2/admin/orders", buyer.token, order, 201,
        {"Idempotency-Key: " + unique("citus-key")});
  const std::string order_path = "/api/v2/admin/orders/" + data_id(made);
  check("GET", order_path, admin, std::nullopt, 200);
  check("GET", "/api/v2/admin/orders", admin, std::nullopt, 200);
  check("GET", "/api/v2/admin/orders?status=pending", admin, std::nullopt, 200);
  check("POST", order_path + "/status", admin, R"({"status":"processing"})", 200);
  HttpResponse category =
      check("POST", "/api/v2/admin/category/create", admin, R"({"name":"Hats"})", 201);
  const std::string category_path = "/api/v2/admin/category/" + data_id(category);
  check("GET", "/api/v2/admin/category", admin, std::nullopt, 200);
  check("POST", category_path, admin, R"({"name":"Caps"})", 200);
  check("DELETE", category_path, admin, std::nullopt, 200);
  HttpResponse news = check("POST", "/api/v2/admin/announcements", admin,
                            R"({"title":"Hello","type":"info","status":"published"})", 201);
  const std::string news_path = "/api/v2/admin/announcements/" + data_id(news);
  check("GET", "/api/v2/admin/announcements", admin, std::nullopt, 200);
  check("GET", news_path, admin, std::nullopt, 200);
  check("POST", news_path, admin, R"({"title":"Hello again"})", 200);
  check("GET", "/api/v2/admin/announcements/active", admin, std::nullopt, 200);
  check("POST", news_path + "/read", admin, std::nullopt, 200);
  check("POST", news_path + "/dismiss", admin, std::nullopt, 200);
  check("DELETE", news_path, admin, std::nullopt, 200);
  HttpResponse invited =
      check("POST", members, admin,
            R"({"email":")" + unique("citus-invitee") + R"(@test.local","role":"MEMBER"})", 201);
  const int64_t invitation =
      json_get_int(json_get(invited.json.get(), "invitation"), "id").value_or(-1);
  check("GET", members, admin, std::nullopt, 200);
  check("GET", members + "/invitations", admin, std::nullopt, 200);
  check("DELETE", members + "/invitations/" + to_string(invitation), admin, std::nullopt, 200);
  check("POST", members + "/" + to_string(buyer.id), admin, R"({"role":"ADMIN"})", 200);
  check("GET", hooks + "/deliveries", admin, std::nullopt, 200);
  // Issue 41: the events feed (both statements) and the webhook operations.
  check("GET", "/api/v2/admin/events/" + tid, admin, std::nullopt, 200);
  check("GET", "/api/v2/admin/events/" + tid + "?types=order.created,member.role_updated&after=1",
        admin, std::nullopt, 200);
  const std::string hook_path = hooks + "/" + to_string(hook.integer("id"));
  check("POST", hook_path, admin, R"({"description":"Citus"})", 200);
  check("POST", hook_path + "/rotate-secret", admin, std::nullopt, 200);
  HttpResponse test = check("POST", hook_path + "/test", admin, std::nullopt, 202);
  const std::string test_id = to_string(json_get_int(test["data"], "id").value_or(-1));
  sql("UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL WHERE tenant_id = " +
      tid + " AND id = " + test_id);
  check("POST", hooks + "/deliveries/" + test_id + "/redeliver", admin, std::nullopt, 202);
  check("DELETE", hooks + "?id=" + to_string(hook.integer("id")), admin, std::nullopt, 200);
  // Issue 40: API keys, created, listed and revoked with the session; every
  // request with a key (its check, and the last_used_at stamp, included)
  // on the tenant's shards, a revoked key's 401 too.
  const std::string keys = "/api/v2/admin/api-keys/" + tid;
  HttpResponse made_key =
      check("POST", keys, admin,
            R"({"name":"Citus","scopes":["products:write","orders:write","webhooks:read"]})", 201);
  const std::string key = made_key.str("key");
  check("GET", keys, admin, std::nullopt, 200);
  check("GET", product_path, key, std::nullopt, 200);
  check("GET", "/api/v2/admin/products?q=shi", key, std::nullopt, 200);
  check("POST", "/api/v2/admin/products", key, R"({"name":"Keyed","price":1})", 201);
  check("POST", "/api/v2/admin/products", key, R"({"name":"Keyed again","price":1})", 201,
        {"Idempotency-Key: " + unique("citus-key")});
  check("POST", product_path, key, R"({"stock":4})", 200);
  check("GET", hooks, key, std::nullopt, 200);
  check("POST", order_path + "/status", key, R"({"status":"completed"})", 200);
  check("GET", "/api/v2/admin/category", key, std::nullopt, 403);
  sql("UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE tenant_id = " + tid);
  check("GET", product_path, key, std::nullopt, 200);
  check("DELETE", keys + "/" + to_string(made_key.integer("id")), admin, std::nullopt, 200);
  check("GET", product_path, key, std::nullopt, 401);
  check("DELETE", product_path, admin, std::nullopt, 200);
  check("DELETE", members + "/" + to_string(buyer.id), admin, std::nullopt, 200, {}, memberships);
}

// The dev cluster's nodes talk over loopback without SSL (scripts/run sets
// citus.node_conninfo on every node; decision 0125). On each worker, no
// connection from another node is SSL, run_command_on_workers' own (which
// this asks through) included, and there is one (a TCP client address).
// POST /orders is one call that Citus runs on the tenant's worker
// (docs/decisions/0137-order-create-is-one-delegated-call.md): the
// coordinator sends the worker the call of ca_order_create() and nothing of
// its body (no insert into a shard of orders), and commits in one phase (no
// PREPARE TRANSACTION), with an Idempotency-Key too, whose claim is on the
// same worker. The order's delivery to a subscription is written by it.
TEST_F(Citus, AnOrderIsOneCallRunOnTheTenantsWorkerWithAOnePhaseCommit) {
  HttpResponse hook = http(
      "POST", "/api/v2/admin/webhooks/" + tid,
      {.token = admin, .body = R"({"url":"http://127.0.0.1:1024/in","events":["order.created"]})"});
  ASSERT_EQ(hook.status, 201) << hook.body;
  StackWorkerPause pause;
  RemoteCommandLog remote_log;
  // The log shows the commands once every backend of the orders handler took
  // the setting: an order's call (a few tries).
  ASSERT_TRUE(until_logged(
      [&] {
        EXPECT_EQ(http("POST", "/api/v2/admin/orders",
                       {.token = buyer.token, .tenant = tid, .body = order})
                      .status,
                  201);
      },
      [](const std::string& log) { return log.find("ca_order_create(") != std::string::npos; }))
      << "the coordinator does not log the order's call";

  for (bool keyed : {false, true}) {
    SCOPED_TRACE(keyed ? "with an Idempotency-Key" : "without a key");
    std::vector<std::string> headers;
    if (keyed) headers.push_back("Idempotency-Key: " + unique("citus-order"));
    LogMark before = log_size();
    HttpResponse made =
        http("POST", "/api/v2/admin/orders",
             {.token = buyer.token, .tenant = tid, .body = order, .headers = headers});
    ASSERT_EQ(made.status, 201) << made.body;
    NodeCommands done = node_commands(before);
    const std::string &sent = done.sent, &local = done.local, &log = done.all;
    size_t calls = 0;
    for (size_t at = sent.find("public.ca_order_create("); at != std::string::npos;
         at = sent.find("public.ca_order_create(", at + 1)) {
      ++calls;
    }
    EXPECT_EQ(calls, 1u) << sent;
    EXPECT_EQ(sent.find("INSERT INTO public.orders_"), std::string::npos) << sent;
    EXPECT_NE(local.find("INSERT INTO public.orders_"), std::string::npos) << log;
    EXPECT_FALSE(done.prepared) << log;
    EXPECT_EQ(done.workers.size(), 1u) << log;
    EXPECT_EQ(sql("SELECT count(*) FROM webhook_deliveries d JOIN events e ON e.tenant_id = " +
                  tid + " AND e.id = d.event_id WHERE d.tenant_id = " + tid +
                  " AND d.webhook_id = " + to_string(hook.integer("id")) +
                  " AND e.payload ->> 'order_id' = '" + data_id(made) + "'"),
              std::vector<std::string>{"1"});
  }
}

// With CITUS_HANDLER_NODES=workers (the CI pass) a tenant's read connects to
// the worker holding the tenant's shards (CITUS_READ_ROUTING=tenant,
// decision 0133): the session check and the read run there, locally, and
// no node sends another any of it.
// Where `tenant`'s shards are: its worker's place in node_logs() (the
// coordinator's log first, then the workers' in the order of their ports).
size_t tenant_home_log(const std::string& tenant) {
  std::vector<std::string> ports =
      sql("SELECT nodeport FROM pg_dist_node WHERE groupid > 0 AND noderole = 'primary' "
          "ORDER BY nodeport");
  EXPECT_EQ(node_logs().size(), ports.size() + 1);
  std::vector<std::string> home =
      sql("SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) "
          "WHERE p.shardid = get_shard_id_for_distribution_column('products', " +
          tenant + ")");
  EXPECT_EQ(home.size(), 1u);
  auto at = std::find(ports.begin(), ports.end(), home.empty() ? "" : home[0]);
  EXPECT_NE(at, ports.end());
  return 1 + static_cast<size_t>(at - ports.begin());
}

TEST_F(Citus, ATenantsReadRunsOnTheWorkerHoldingItsShards) {
  if (stack_env("CITUS_HANDLER_NODES").value_or("coordinator") != "workers") {
    GTEST_SKIP() << "the handlers read on the coordinator (CITUS_HANDLER_NODES)";
  }
  const size_t workers = node_logs().size() - 1;
  auto home_log = tenant_home_log;
  // A tenant with a product on every worker (a tenant's shards are where
  // its id hashes): whichever worker the products group's other reads go
  // to, one of them is elsewhere.
  struct Placed {
    std::string tenant, product;
  };
  std::map<size_t, Placed> on_worker = {{home_log(tid), {tid, product_id}}};
  for (int i = 0; i < 40 && on_worker.size() < workers; ++i) {
    std::string tenant = to_string(create_tenant(admin, unique("citus-node")));
    size_t home = home_log(tenant);
    if (on_worker.count(home) != 0) continue;
    HttpResponse made =
        http("POST", "/api/v2/admin/products",
             {.token = admin, .tenant = tenant, .body = R"({"name":"Shirt","price":4.5})"});
    ASSERT_EQ(made.status, 201) << made.body;
    on_worker[home] = {tenant, to_string(made.integer("id"))};
  }
  ASSERT_EQ(on_worker.size(), workers);

  StackWorkerPause pause;
  RemoteCommandLog remote_log;
  // The log shows the commands once the products handlers' backends took
  // the setting (a few tries).
  ASSERT_TRUE(until_logged(
      [&] {
        EXPECT_EQ(
            http("GET", "/api/v2/admin/products/" + product_id, {.token = admin, .tenant = tid})
                .status,
            200);
      },
      [](const std::string& log) { return log.find("public.products_") != std::string::npos; }))
      << "no node logs the product read";

  for (const auto& [home, placed] : on_worker) {
    SCOPED_TRACE("tenant " + placed.tenant + " on node " + std::to_string(home));
    for (int i = 0; i < 3; ++i) {
      LogMark before = log_size();
      HttpResponse got = http("GET", "/api/v2/admin/products/" + placed.product,
                              {.token = admin, .tenant = placed.tenant});
      ASSERT_EQ(got.status, 200) << got.body;
      EXPECT_EQ(got.str("name"), "Shirt");
      for (size_t node = 0; node < node_logs().size(); ++node) {
        std::string log = node_log_since(before, node);
        std::string sent, local;
        std::istringstream lines(log);
        for (std::string line; std::getline(lines, line);) {
          if (line.find("issuing ") != std::string::npos) sent += line + "\n";
          if (line.find("executing the command locally") != std::string::npos) local += line + "\n";
        }
        SCOPED_TRACE("node " + std::to_string(node) + " (0: the coordinator)");
        EXPECT_EQ(sent.find("products_"), std::string::npos) << sent;
        EXPECT_EQ(sent.find("memberships_"), std::string::npos) << sent;
        if (node == home) {
          EXPECT_NE(local.find("FROM public.products_"), std::string::npos) << log;
          EXPECT_NE(local.find("FROM public.memberships_"), std::string::npos) << log;
        } else {
          EXPECT_EQ(log.find("public.products_"), std::string::npos) << log;
        }
      }
    }
  }
}

// Decision 0134: on the worker holding a tenant's shards, the tenant's
// session or key check and its product read run as statements prepared for
// that tenant, its id a constant of their text (Citus keeps their plans
// instead of making one per execution); another tenant's reads, on the same
// pools, as statements prepared for it. The same answers as without.
TEST_F(Citus, ATenantsReadsOnItsWorkerArePreparedWithItsId) {
  if (stack_env("CITUS_HANDLER_NODES").value_or("coordinator") != "workers") {
    GTEST_SKIP() << "the handlers read on the coordinator (CITUS_HANDLER_NODES)";
  }
  HttpResponse made_key =
      http("POST", "/api/v2/admin/api-keys/" + tid,
           {.token = admin, .body = R"({"name":"Prepared","scopes":["products:read"]})"});
  ASSERT_EQ(made_key.status, 201) << made_key.body;
  const std::string key = made_key.str("key");
  const std::string other = to_string(create_tenant(admin, unique("citus-prepared")));
  HttpResponse made =
      http("POST", "/api/v2/admin/products",
           {.token = admin, .tenant = other, .body = R"({"name":"Sock","price":1})"});
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string other_product = to_string(made.integer("id"));

  StackWorkerPause pause;
  RemoteCommandLog remote_log(true);
  const std::string read = "/api/v2/admin/products/" + product_id;
  ASSERT_TRUE(until_logged(
      [&] { EXPECT_EQ(http("GET", read, {.token = admin, .tenant = tid}).status, 200); },
      [&](const std::string& log) {
        return log.find("execute products_read@" + tid + ":") != std::string::npos;
      }))
      << "no node logs the product read as prepared for tenant " << tid;

  struct Case {
    std::string tenant, path, credential, check;
  };
  for (const Case& c :
       {Case{tid, read, admin, "auth_session_for_read"}, Case{tid, read, key, "auth_api_key"},
        Case{other, "/api/v2/admin/products/" + other_product, admin, "auth_session_for_read"}}) {
    SCOPED_TRACE(c.check + " for tenant " + c.tenant);
    const size_t home = tenant_home_log(c.tenant);
    // Every read until the statements' plans are kept (PostgreSQL's sixth
    // execution on a connection): each answer the same.
    for (int i = 0; i < 8; ++i) {
      LogMark before = log_size();
      HttpResponse got = http("GET", c.path, {.token = c.credential, .tenant = c.tenant});
      ASSERT_EQ(got.status, 200) << got.body;
      EXPECT_EQ(got.str("name"), c.tenant == tid ? "Shirt" : "Sock");
      std::string log = node_log_since(before, home);
      const std::string constant = "'" + c.tenant + "'::bigint";
      for (const std::string& statement : {c.check, std::string("products_read")}) {
        size_t at = log.find("execute " + statement + "@" + c.tenant + ":");
        ASSERT_NE(at, std::string::npos) << log;
        std::string line = log.substr(at, log.find('\n', at) - at);
        EXPECT_NE(line.find(constant), std::string::npos) << line;
      }
      EXPECT_EQ(log.find("execute products_read:"), std::string::npos) << log;
    }
  }
  // The product list too: its statement (no filter) prepared for the tenant.
  LogMark before = log_size();
  HttpResponse list = http("GET", "/api/v2/admin/products", {.token = admin, .tenant = tid});
  ASSERT_EQ(list.status, 200) << list.body;
  std::string log = node_log_since(before, tenant_home_log(tid));
  EXPECT_NE(log.find("execute products_list_0@" + tid + ":"), std::string::npos) << log;
}

// Issue 39: every tenant write is one router task on Citus. For each write
// route, with an active subscription to every event present: no node
// prepares a transaction (no two-phase commit), the request's commands
// (its session check included) run on one worker, and the write's events
// have their deliveries: every route, since decisions 0142 and 0143 (the
// member removal, the tenant update). The test prints what each route did
// ("[ findings ]").
TEST_F(Citus, EveryTenantWriteIsOneRouterTaskWithAOnePhaseCommit) {
  const std::string hooks = "/api/v2/admin/webhooks/" + tid;
  HttpResponse all =
      http("POST", hooks,
           {.token = admin, .body = R"({"url":"http://127.0.0.1:1024/in","events":["*"]})"});
  ASSERT_EQ(all.status, 201) << all.body;
  const std::string deliveries =
      "SELECT count(*)::text FROM webhook_deliveries WHERE tenant_id = " + tid +
      " AND webhook_id = " + to_string(all.integer("id"));
  StackWorkerPause pause;
  RemoteCommandLog remote_log;
  // A backend idle when the setting came takes it after its next statement:
  // one statement on every write connection of every handler group first (a
  // body that is not JSON: the caller's check, then the 400), many at once.
  const std::string members = "/api/v2/admin/team-members/" + tid;
  const std::string keys = "/api/v2/admin/api-keys/" + tid;
  for (const std::string& path :
       {std::string("/api/v2/admin/products"), std::string("/api/v2/admin/category/create"),
        std::string("/api/v2/admin/announcements"), hooks, members, keys,
        "/api/v2/admin/tenants/" + tid}) {
    for (const HttpResponse& r : http_concurrent(20, 10, [&](int) {
           return http("POST", path, {.token = admin, .tenant = tid, .body = "{"});
         })) {
      ASSERT_EQ(r.status, 400) << path << ": " << r.body;
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  std::ostringstream findings;
  // One write: its status, and `events` deliveries more for the subscription.
  auto write = [&](const std::string& route, const char* method, const std::string& path,
                   std::optional<std::string> body, long status, int events) {
    SCOPED_TRACE(route);
    int before_deliveries = std::stoi(sql(deliveries).at(0));
    LogMark before = log_size();
    HttpResponse got = http(method, path, {.token = admin, .tenant = tid, .body = body});
    EXPECT_EQ(got.status, status) << got.body;
    NodeCommands done = node_commands(before);
    EXPECT_EQ(std::stoi(sql(deliveries).at(0)), before_deliveries + events);
    std::string workers;
    for (const std::string& w : done.workers) workers += (workers.empty() ? "" : ",") + w;
    size_t issued = 0;
    for (size_t at = done.sent.find("issuing "); at != std::string::npos;
         at = done.sent.find("issuing ", at + 1)) {
      ++issued;
    }
    findings << "\n  " << route << ": nodes {" << workers << "}, "
             << (done.prepared ? "2PC" : "1PC") << ", " << issued << " sent, " << done.multi.size()
             << " multi-task";
    EXPECT_FALSE(done.prepared) << done.all;
    EXPECT_EQ(done.workers.size(), 1u) << workers << "\n" << done.all;
    return got;
  };

  const std::string products = "/api/v2/admin/products";
  HttpResponse hat =
      write("product create", "POST", products, R"({"name":"Hat","price":2})", 201, 1);
  const std::string hat_path = products + "/" + to_string(hat.integer("id"));
  write("product update", "POST", hat_path, R"({"stock":3,"price":2.5})", 200, 1);
  write("product delete", "DELETE", hat_path, std::nullopt, 200, 1);
  HttpResponse category = write("category create", "POST", "/api/v2/admin/category/create",
                                R"({"name":"Hats"})", 201, 1);
  const std::string category_path = "/api/v2/admin/category/" + data_id(category);
  write("category update", "POST", category_path, R"({"name":"Caps"})", 200, 0);
  write("category toggle", "PATCH", category_path, std::nullopt, 200, 0);
  write("product create (in a category)", "POST", products,
        R"({"name":"Cap","price":3,"category_id":)" + data_id(category) + "}", 201, 1);
  write("category delete", "DELETE", category_path, std::nullopt, 200, 1);
  const std::string news = "/api/v2/admin/announcements";
  HttpResponse published = write("announcement create", "POST", news,
                                 R"({"title":"Hello","type":"info","status":"published"})", 201, 1);
  const std::string published_path = news + "/" + data_id(published);
  write("announcement update", "POST", published_path, R"({"title":"Hello again"})", 200, 0);
  write("announcement read", "POST", published_path + "/read", std::nullopt, 200, 0);
  write("announcement dismiss", "POST", published_path + "/dismiss", std::nullopt, 200, 0);
  HttpResponse draft = write("announcement create (draft)", "POST", news,
                             R"({"title":"Later","type":"info","status":"draft"})", 201, 0);
  write("announcement update (published)", "POST", news + "/" + data_id(draft),
        R"({"status":"published"})", 200, 1);
  write("announcement delete", "DELETE", published_path, std::nullopt, 200, 0);
  HttpResponse hook =
      write("webhook create", "POST", hooks,
            R"({"url":"http://127.0.0.1:1024/b","events":["order.created"]})", 201, 0);
  write("webhook update", "POST", hooks + "/" + to_string(hook.integer("id")),
        R"({"description":"Citus"})", 200, 0);
  write("webhook rotate secret", "POST",
        hooks + "/" + to_string(hook.integer("id")) + "/rotate-secret", std::nullopt, 200, 0);
  HttpResponse test =
      write("webhook test", "POST", hooks + "/" + to_string(hook.integer("id")) + "/test",
            std::nullopt, 202, 0);
  sql("UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL WHERE tenant_id = " +
      tid + " AND id = " + data_id(test));
  write("webhook redeliver", "POST", hooks + "/deliveries/" + data_id(test) + "/redeliver",
        std::nullopt, 202, 0);
  HttpResponse made =
      http("POST", "/api/v2/admin/orders", {.token = buyer.token, .tenant = tid, .body = order});
  ASSERT_EQ(made.status, 201) << made.body;
  write("order status change", "POST", "/api/v2/admin/orders/" + data_id(made) + "/status",
        R"({"status":"processing"})", 200, 1);
  HttpResponse invited =
      write("invitation create", "POST", members,
            R"({"email":")" + unique("citus-invitee") + R"(@test.local","role":"MEMBER"})", 201, 0);
  write("invitation revoke", "DELETE",
        members + "/invitations/" +
            to_string(json_get_int(json_get(invited.json.get(), "invitation"), "id").value_or(-1)),
        std::nullopt, 200, 0);
  write("webhook delete", "DELETE", hooks + "?id=" + to_string(hook.integer("id")), std::nullopt,
        200, 0);
  write("member role change", "POST", members + "/" + to_string(buyer.id), R"({"role":"ADMIN"})",
        200, 1);
  write("tenant settings update", "POST", "/api/v2/admin/tenants/" + tid,
        R"({"name":"Citus shop","settings":{"locale":"de"}})", 200, 0);
  HttpResponse key = write("api key create", "POST", keys,
                           R"({"name":"Citus","scopes":["products:write"]})", 201, 0);
  write("api key revoke", "DELETE", keys + "/" + to_string(key.integer("id")), std::nullopt, 200,
        0);
  write("member removal", "DELETE", members + "/" + to_string(buyer.id), std::nullopt, 200, 1);
  std::cout << "[ findings ] per write route:" << findings.str() << std::endl;
}

TEST(CitusCluster, DevNodesConnectWithoutSsl) {
  if (!on_citus()) GTEST_SKIP() << "not a Citus stack";
  EXPECT_EQ(sql("SHOW citus.node_conninfo"), std::vector<std::string>{"sslmode=disable"});
  EXPECT_EQ(sql("SELECT success::text || ' ' || result FROM run_command_on_workers($$"
                "SELECT count(*) FILTER (WHERE s.ssl) || ' ssl, ' || count(*) FILTER ("
                "WHERE NOT s.ssl) || ' without' FROM pg_stat_ssl s JOIN pg_stat_activity a "
                "USING (pid) WHERE a.client_addr IS NOT NULL AND a.pid = pg_backend_pid()$$) "
                "ORDER BY nodeport"),
            (std::vector<std::string>{"true 0 ssl, 1 without", "true 0 ssl, 1 without"}));
  EXPECT_EQ(sql("SELECT DISTINCT result FROM run_command_on_workers($$"
                "SELECT count(*) FROM pg_stat_ssl WHERE ssl$$)"),
            std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace ca::test
