#include "stack.h"

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>

namespace ca::test {
namespace {

std::string env_or_fail(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    ADD_FAILURE() << name << " is not set: run the integration tests through scripts/test";
    return "";
  }
  return v;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    (*static_cast<std::map<std::string, std::string>*>(user))[name] = value;
  }
  return size * n;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

std::string HttpResponse::str(const char* key) const {
  auto v = json_get_str(json.get(), key);
  return v ? std::string(*v) : std::string("<missing " + std::string(key) + ">");
}

int64_t HttpResponse::integer(const char* key) const {
  return json_get_int(json.get(), key).value_or(-1);
}

std::string base_url() { return env_or_fail("CA_BASE_URL"); }
std::string admin_email() { return env_or_fail("CA_ADMIN_EMAIL"); }
std::string admin_password() { return env_or_fail("CA_ADMIN_PASSWORD"); }
std::string state_dir() { return env_or_fail("CA_STATE_DIR"); }
std::string to_string(int64_t v) { return std::to_string(v); }

HttpResponse http(const std::string& method, const std::string& path, const Call& call) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResponse out;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  std::string url = base_url() + path;
  curl_slist* raw = nullptr;
  if (!call.token.empty())
    raw = curl_slist_append(raw, ("Authorization: Bearer " + call.token).c_str());
  if (call.tenant) raw = curl_slist_append(raw, ("X-Tenant-ID: " + *call.tenant).c_str());
  if (call.body) raw = curl_slist_append(raw, "Content-Type: application/json");
  for (const std::string& h : call.headers) raw = curl_slist_append(raw, h.c_str());
  raw = curl_slist_append(raw, "Expect:");
  std::unique_ptr<curl_slist, SlistDeleter> headers(raw);
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  if (call.body) {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, call.body->data());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(call.body->size()));
  }
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &out.headers);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 30L);
  CURLcode rc = curl_easy_perform(curl.get());
  EXPECT_EQ(rc, CURLE_OK) << method << " " << path << ": " << curl_easy_strerror(rc);
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &out.status);
  out.json = json_parse(out.body);
  return out;
}

std::string unique(const std::string& prefix) {
  static std::atomic<int> counter{0};
  static const uint64_t run = std::random_device{}();
  return prefix + "-" + std::to_string(run % 1000000000) + "-" + std::to_string(++counter);
}

std::string login(const std::string& email, const std::string& password) {
  Json body = json_object();
  json_add_str(body.get(), "email", email);
  json_add_str(body.get(), "password", password);
  HttpResponse r = http("POST", "/api/v2/admin/login", {.body = json_dump(body.get())});
  EXPECT_EQ(r.status, 200) << "login " << email << ": " << r.body;
  return r.str("token");
}

std::string admin_token() { return login(admin_email(), admin_password()); }

int64_t create_tenant(const std::string& token, const std::string& name) {
  Json body = json_object();
  json_add_str(body.get(), "name", name);
  HttpResponse r =
      http("POST", "/api/v2/admin/tenants", {.token = token, .body = json_dump(body.get())});
  EXPECT_EQ(r.status, 201) << r.body;
  return r.integer("id");
}

TestUser add_user(const std::string& admin, int64_t tenant_id, const std::string& role) {
  TestUser u;
  u.email = unique("user") + "@test.local";
  u.password = "password-" + unique("pw");
  Json body = json_object();
  json_add_str(body.get(), "email", u.email);
  json_add_str(body.get(), "role", role);
  json_add_str(body.get(), "name", "Test User");
  json_add_str(body.get(), "password", u.password);
  HttpResponse r = http("POST", "/api/v2/admin/team-members/" + to_string(tenant_id),
                        {.token = admin, .body = json_dump(body.get())});
  EXPECT_EQ(r.status, 201) << r.body;
  u.id = json_get_int(json_get(r.json.get(), "member"), "user_id").value_or(-1);
  u.token = login(u.email, u.password);
  return u;
}

std::vector<std::string> sql(const std::string& query) {
  std::vector<std::string> out;
  std::string conninfo = "host=" + state_dir() + "/run dbname=commerce_admin user=postgres";
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect to the test database: " << PQerrorMessage(conn);
    PQfinish(conn);
    return out;
  }
  PGresult* res = PQexec(conn, query.c_str());
  ExecStatusType st = PQresultStatus(res);
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    ADD_FAILURE() << "SQL failed: " << query << ": " << PQerrorMessage(conn);
  } else {
    for (int i = 0; i < PQntuples(res); ++i) {
      out.push_back(PQgetisnull(res, i, 0) ? "<null>" : PQgetvalue(res, i, 0));
    }
  }
  PQclear(res);
  PQfinish(conn);
  return out;
}

}  // namespace ca::test
