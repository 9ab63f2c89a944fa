// Test-side access to a running stack: an HTTP client (libcurl) and helpers
// to log in, create tenants and users, and read the database directly.
//
// The stack is started by scripts/test, which passes its address and the
// seeded admin in the environment (CA_BASE_URL, CA_ADMIN_EMAIL,
// CA_ADMIN_PASSWORD, CA_STATE_DIR). Each test process talks to it afresh.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "json.h"

namespace ca::test {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  Json json;                                   // parsed body (null when not JSON)

  const cJSON* operator[](const char* key) const { return json_get(json.get(), key); }
  std::string str(const char* key) const;
  int64_t integer(const char* key) const;
};

struct Call {
  std::string token{};                  // Authorization: Bearer <token> when set
  std::optional<std::string> tenant{};  // X-Tenant-ID when set
  std::optional<std::string> body{};    // sent as application/json when set
  std::vector<std::string> headers{};   // extra raw "Name: value" lines
};

// Environment of the running stack.
std::string base_url();
std::string admin_email();
std::string admin_password();
std::string state_dir();

// One HTTP request to base_url() + path.
HttpResponse http(const std::string& method, const std::string& path, const Call& call = {});

// Helpers on top of the API (each asserts success with gtest).
std::string login(const std::string& email, const std::string& password);
std::string admin_token();
// Creates a tenant as `token`'s user; returns its id.
int64_t create_tenant(const std::string& token, const std::string& name = "Test tenant");
struct TestUser {
  int64_t id = 0;
  std::string email;
  std::string password;
  std::string token;
};
// Creates a new account by adding it to `tenant_id` (as `admin_token`) with
// `role`, then logs it in.
TestUser add_user(const std::string& admin_token, int64_t tenant_id,
                  const std::string& role = "MEMBER");
// A unique suffix for names and emails in this test run.
std::string unique(const std::string& prefix);

// Runs SQL against the stack's database; returns the first column of each row
// (NULL as "<null>"). Fails the test on SQL errors.
std::vector<std::string> sql(const std::string& query);

std::string to_string(int64_t v);

}  // namespace ca::test
