// On a Citus stack (CLUSTER=citus scripts/run, the Citus pass of scripts/test;
// skipped on single-node): a tenant's requests run on one shard. The
// coordinator logs every statement that Citus splits into several tasks
// (scripts/run sets citus.multi_task_query_log_level = log there, and the
// statement follows the line), so a request whose statements are all router
// queries adds no such line.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

std::string coordinator_log() { return state_dir() + "/log/postgres.log"; }

std::streamoff log_size() {
  std::ifstream in(coordinator_log(), std::ios::binary | std::ios::ate);
  return in ? static_cast<std::streamoff>(in.tellg()) : 0;
}

// The statements the coordinator logged as multi-task since `from` (bytes
// into its log), one string each.
std::vector<std::string> multi_shard_statements(std::streamoff from) {
  std::ifstream in(coordinator_log(), std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << coordinator_log();
  in.seekg(from);
  std::vector<std::string> found;
  std::string line;
  bool want_statement = false;
  while (std::getline(in, line)) {
    if (line.find("multi-task query about to be executed") != std::string::npos) {
      want_statement = true;
      found.emplace_back("(statement not logged)");
    } else if (want_statement) {
      std::string::size_type at = line.find("STATEMENT:");
      if (at != std::string::npos) {
        found.back() = line.substr(at + 10);
        want_statement = false;
      }
    }
  }
  return found;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "\n  " + l;
  return out;
}

TEST(Citus, TenantRequestsRunOnOneShard) {
  if (!on_citus()) GTEST_SKIP() << "not a Citus stack";
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("citus"));
  std::string tid = to_string(tenant);
  TestUser buyer = add_user(admin, tenant, "MEMBER");
  HttpResponse address = http("POST", "/api/v2/admin/addresses",
                              {.token = buyer.token,
                               .body = R"({"street":"Main Street 1","city":"Berlin",)"
                                       R"("country":"DE","postal_code":"10115"})"});
  ASSERT_EQ(address.status, 201) << address.body;
  HttpResponse product =
      http("POST", "/api/v2/admin/products",
           {.token = admin, .tenant = tid, .body = R"({"name":"Shirt","price":4.5})"});
  ASSERT_EQ(product.status, 201) << product.body;
  std::string product_id = to_string(product.integer("id"));
  std::string order = R"({"address_id":)" + to_string(address.integer("id")) +
                      R"(,"payment_type":1,"total_amount":4.50,"order_items":[{"product_id":)" +
                      product_id + R"(,"qty":1,"amount":4.50}]})";
  // The stack's worker claims across tenants (multi-shard on purpose).
  StackWorkerPause pause;

  // The log catches a multi-shard statement (else the check below proves nothing).
  std::streamoff before = log_size();
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
  const std::vector<Request> requests = {
      {"GET", "/api/v2/admin/products/" + product_id, admin, std::nullopt, 200},
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

}  // namespace
}  // namespace ca::test
