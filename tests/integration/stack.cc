#include "stack.h"

#include <curl/curl.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "jwt.h"
#include "mailbox.h"

extern char** environ;

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

Scope fresh_scope(const std::string& token) {
  return {.token = token, .tenant = create_tenant(token, unique("Scoped tenant"))};
}

int64_t create_address(const std::string& token, const std::string& street,
                       const std::string& city) {
  HttpResponse r = http("POST", "/api/v2/admin/addresses",
                        {.token = token,
                         .body = R"({"street":")" + street + R"(","city":")" + city +
                                 R"(","country":"DE","postal_code":"10115"})"});
  EXPECT_EQ(r.status, 201) << r.body;
  return r.integer("id");
}

int64_t create_product(const std::string& token, int64_t tenant, const std::string& name,
                       const std::string& price) {
  HttpResponse r = http("POST", "/api/v2/admin/products",
                        {.token = token,
                         .tenant = to_string(tenant),
                         .body = R"({"name":")" + name + R"(","price":)" + price + "}"});
  EXPECT_EQ(r.status, 201) << r.body;
  return r.integer("id");
}

Shop open_shop() {
  Shop s;
  s.admin = admin_token();
  s.tenant = create_tenant(s.admin, unique("shop"));
  s.buyer = add_user(s.admin, s.tenant, "MEMBER");
  s.address = create_address(s.buyer.token);
  s.product = create_product(s.admin, s.tenant, "Shirt");
  return s;
}

std::string members_path(int64_t tenant) {
  return "/api/v2/admin/team-members/" + to_string(tenant);
}

std::string json_text(const std::string& s) {
  Json v(cJSON_CreateString(s.c_str()));
  return json_dump(v.get());
}

std::string repeat(const std::string& unit, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += unit;
  return out;
}

void expect_body(const HttpResponse& r, long status, const std::string& expected) {
  EXPECT_EQ(r.status, status) << r.body;
  Json want = json_parse(expected);
  ASSERT_TRUE(want) << "bad expected JSON in the test: " << expected;
  ASSERT_TRUE(r.json) << "response is not JSON: " << r.body;
  EXPECT_EQ(json_dump(r.json.get()), json_dump(want.get()));
}

int64_t int_of(const cJSON* obj, const char* key) { return json_get_int(obj, key).value_or(-1); }

void expect_tenant_guards(const char* method, const std::string& path,
                          const std::optional<std::string>& body, const Scope& s,
                          const std::string& outsider_token) {
  SCOPED_TRACE(std::string(method) + " " + path);
  const char* kUnauthenticated = R"({"error":"Unauthenticated"})";
  HttpResponse no_token = http(method, path, {.tenant = s.tid(), .body = body});
  expect_body(no_token, 401, kUnauthenticated);
  EXPECT_EQ(no_token.headers["www-authenticate"], "Bearer");
  expect_body(http(method, path, {.token = "not-a-token", .tenant = s.tid(), .body = body}), 401,
              kUnauthenticated);
  // 401 comes before the header checks.
  expect_body(http(method, path, {.body = body}), 401, kUnauthenticated);
  expect_body(http(method, path, {.token = s.token, .body = body}), 400,
              R"({"error":"The X-Tenant-ID header is required"})");
  for (const char* garbage : {"abc", "-1", "0", "1.5", "12abc"}) {
    expect_body(http(method, path, {.token = s.token, .tenant = garbage, .body = body}), 400,
                R"({"error":"X-Tenant-ID must be a positive integer tenant id"})");
  }
  const char* kNotMember = R"({"error":"You are not a member of this tenant"})";
  expect_body(http(method, path, {.token = outsider_token, .tenant = s.tid(), .body = body}), 403,
              kNotMember);
  expect_body(http(method, path, {.token = s.token, .tenant = "9223372036854775807", .body = body}),
              403, kNotMember);
}

HttpResponse http(const std::string& method, const std::string& path, const Call& call) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResponse out;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  std::string url = (call.base_url.empty() ? base_url() : call.base_url) + path;
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
  // HEAD: headers only (curl would otherwise wait for Content-Length bytes).
  if (method == "HEAD") curl_easy_setopt(curl.get(), CURLOPT_NOBODY, 1L);
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
  std::string interface = "host!" + call.source_ip;
  if (!call.source_ip.empty()) curl_easy_setopt(curl.get(), CURLOPT_INTERFACE, interface.c_str());
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
  TestInvitation invitation = invite_user(admin, tenant_id, u.email, role);
  HttpResponse r = accept_as_new_account(invitation.token, "Test User", u.password);
  EXPECT_EQ(r.status, 201) << r.body;
  u.id = json_get_int(json_get(r.json.get(), "member"), "user_id").value_or(-1);
  u.token = login(u.email, u.password);
  return u;
}

// --- invitations ---------------------------------------------------------------

TestInvitation invite_user(const std::string& admin, int64_t tenant_id, const std::string& email,
                           const std::string& role) {
  Json body = json_object();
  json_add_str(body.get(), "email", email);
  json_add_str(body.get(), "role", role);
  HttpResponse r = http("POST", "/api/v2/admin/team-members/" + to_string(tenant_id),
                        {.token = admin, .body = json_dump(body.get())});
  EXPECT_EQ(r.status, 201) << r.body;
  // With mail on (the stack's sink), the token is only in the invitee's mail.
  return {json_get_int(json_get(r.json.get(), "invitation"), "id").value_or(-1),
          invitation_token_of(r, tenant_id)};
}

HttpResponse accept_as(const std::string& bearer, const std::string& invitation_token) {
  Json body = json_object();
  json_add_str(body.get(), "token", invitation_token);
  return http("POST", "/api/v2/admin/invitations/accept",
              {.token = bearer, .body = json_dump(body.get())});
}

HttpResponse accept_as_new_account(const std::string& invitation_token, const std::string& name,
                                   const std::string& password) {
  Json body = json_object();
  json_add_str(body.get(), "token", invitation_token);
  json_add_str(body.get(), "name", name);
  json_add_str(body.get(), "password", password);
  return http("POST", "/api/v2/admin/invitations/accept", {.body = json_dump(body.get())});
}

void join_tenant(const std::string& admin, int64_t tenant_id, const TestUser& user,
                 const std::string& role) {
  HttpResponse r = accept_as(user.token, invite_user(admin, tenant_id, user.email, role).token);
  EXPECT_EQ(r.status, 201) << r.body;
}

PgConn connect_database() {
  std::string conninfo = "host=" + state_dir() + "/run dbname=commerce_admin user=postgres";
  PgConn conn(PQconnectdb(conninfo.c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect to the test database: " << PQerrorMessage(conn.get());
    return nullptr;
  }
  return conn;
}

bool exec_ok(PGconn* conn, const std::string& query) {
  PgResult r(PQexec(conn, query.c_str()));
  ExecStatusType st = PQresultStatus(r.get());
  return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

bool on_citus() {
  static const bool citus = sql("SELECT ca_citus()::text") == std::vector<std::string>{"true"};
  return citus;
}

bool wait_for_lock_wait(const std::string& pattern) {
  // On Citus a tenant statement waits on a worker, as a shard query run for
  // the coordinator's backend, whose pid ends its global pid (the worker's
  // application_name "citus_internal gpid=<node id * 10^10 + pid>").
  // citus_lock_waits would say the same but also asks the coordinator over
  // TCP, where the test stack's coordinator does not listen. A handler's
  // read connected to a worker (CITUS_HANDLER_NODES=workers, decision 0128)
  // waits there as a backend of its own, not Citus's: counted too.
  std::string waiting_here = "wait_event_type = 'Lock'";
  std::string on_workers;
  if (on_citus()) {
    waiting_here +=
        " OR pid IN (SELECT (g::bigint % 10000000000)::integer "
        "FROM run_command_on_workers($$SELECT coalesce(string_agg(substring(application_name "
        "FROM 'gpid=([0-9]+)'), ','), '') FROM pg_stat_activity WHERE wait_event_type = "
        "'Lock'$$) r, unnest(string_to_array(r.result, ',')) g WHERE r.success AND g <> '')";
    on_workers =
        " + (SELECT coalesce(sum(result::bigint), 0) FROM run_command_on_workers($$SELECT "
        "count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name NOT "
        "LIKE 'citus_internal%' AND query LIKE '" +
        pattern + "'$$) WHERE success)";
  }
  std::string query = "SELECT (SELECT count(*) FROM pg_stat_activity WHERE (" + waiting_here +
                      ") AND query LIKE '" + pattern + "')" + on_workers;
  for (int i = 0; i < 300; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (sql(query) == std::vector<std::string>{"1"}) return true;
  }
  return false;
}

void sql_allowing_triggers(const std::string& query) {
  PgConn conn = connect_database();
  if (!conn) return;
  EXPECT_TRUE(exec_ok(conn.get(), "SET citus.enable_unsafe_triggers = on"))
      << PQerrorMessage(conn.get());
  EXPECT_TRUE(exec_ok(conn.get(), query)) << query << ": " << PQerrorMessage(conn.get());
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CategoryInsertFailure::CategoryInsertFailure() : name_(unique("explode")) {
  std::replace(name_.begin(), name_.end(), '-', '_');
  sql("CREATE FUNCTION " + name_ +
      "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "IF NEW.name = '" +
      name_ + "' THEN RAISE EXCEPTION 'injected failure " + name_ +
      "'; END IF; RETURN NEW; END $$");
  sql_allowing_triggers("CREATE TRIGGER " + name_ +
                        " BEFORE INSERT ON categories FOR EACH ROW EXECUTE FUNCTION " + name_ +
                        "()");
}

CategoryInsertFailure::~CategoryInsertFailure() {
  sql_allowing_triggers("DROP TRIGGER IF EXISTS " + name_ + " ON categories");
  sql("DROP FUNCTION IF EXISTS " + name_ + "()");
}

std::vector<std::string> sql(const std::string& query) {
  std::vector<std::string> out;
  PgConn conn = connect_database();
  if (!conn) return out;
  PgResult res(PQexec(conn.get(), query.c_str()));
  ExecStatusType st = PQresultStatus(res.get());
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    ADD_FAILURE() << "SQL failed: " << query << ": " << PQerrorMessage(conn.get());
    return out;
  }
  for (int i = 0; i < PQntuples(res.get()); ++i) {
    out.push_back(PQgetisnull(res.get(), i, 0) ? "<null>" : PQgetvalue(res.get(), i, 0));
  }
  return out;
}

std::string token_secret() {
  std::ifstream in(state_dir() + "/token_secret", std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << state_dir() << "/token_secret";
  std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Trailing line ends are not part of the key (common/config.cc strips them too).
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  return secret;
}

HttpResponse login_response(const std::string& email, const std::string& password) {
  Json body = json_object();
  json_add_str(body.get(), "email", email);
  json_add_str(body.get(), "password", password);
  return http("POST", "/api/v2/admin/login", {.body = json_dump(body.get())});
}

std::vector<HttpResponse> http_concurrent(int count, int threads,
                                          const std::function<HttpResponse(int)>& make) {
  std::vector<HttpResponse> out(static_cast<size_t>(count));
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < count; i = next++) out[static_cast<size_t>(i)] = make(i);
    });
  }
  for (std::thread& t : pool) t.join();
  return out;
}

bool wait_for_login(const std::string& source_ip, int seconds) {
  Json body = json_object();
  json_add_str(body.get(), "email", admin_email());
  json_add_str(body.get(), "password", admin_password());
  std::string text = json_dump(body.get());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    HttpResponse r = http("POST", "/api/v2/admin/login", {.body = text, .source_ip = source_ip});
    if (r.status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::vector<std::string> json_keys(const cJSON* object) {
  std::vector<std::string> keys;
  if (!cJSON_IsObject(object)) return keys;
  for (const cJSON* c = object->child; c != nullptr; c = c->next) keys.emplace_back(c->string);
  std::sort(keys.begin(), keys.end());
  return keys;
}

::testing::AssertionResult json_eq(const cJSON* actual, const std::string& expected) {
  Json want = json_parse(expected);
  if (!want) return ::testing::AssertionFailure() << "expected text is not JSON: " << expected;
  if (actual != nullptr && cJSON_Compare(actual, want.get(), true)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "\n  actual:   " << (actual ? json_dump(actual) : std::string("<none>"))
         << "\n  expected: " << json_dump(want.get());
}

::testing::AssertionResult is_unauthenticated(const HttpResponse& r) {
  auto challenge = r.headers.find("www-authenticate");
  if (r.status == 401 && r.body == R"({"error":"Unauthenticated"})" &&
      challenge != r.headers.end() && challenge->second == "Bearer") {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "status " << r.status << ", body " << r.body << ", WWW-Authenticate "
         << (challenge == r.headers.end() ? std::string("<absent>") : challenge->second);
}

int64_t token_user_id(const std::string& token) {
  size_t d1 = token.find('.');
  size_t d2 = d1 == std::string::npos ? d1 : token.find('.', d1 + 1);
  if (d2 == std::string::npos) return 0;
  auto payload = base64url_decode(token.substr(d1 + 1, d2 - d1 - 1));
  if (!payload) return 0;
  return json_get_int(json_parse(*payload).get(), "sub").value_or(0);
}

bool is_timestamp(const cJSON* value) {
  static const std::regex kTimestamp(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$)");
  return cJSON_IsString(value) && std::regex_match(value->valuestring, kTimestamp);
}

// --- worker processes ----------------------------------------------------------

std::optional<std::string> stack_env(const std::string& name) {
  std::ifstream in(state_dir() + "/env");
  std::string line, prefix = "export " + name + "=";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::string raw = line.substr(prefix.size()), value;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size()) ++i;  // printf %q escapes
      value += raw[i];
    }
    return value;
  }
  return std::nullopt;
}

std::vector<pid_t> find_stack_workers() { return find_stack_processes("commerce-admin-worker"); }

double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  // Fields after the command (which may hold spaces): state is field 3,
  // utime and stime fields 14 and 15.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::vector<pid_t> find_stack_processes(const std::string& program) {
  std::string marker = "DATABASE_URL=host=" + state_dir() + "/run ";
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  while (dirent* e = proc ? readdir(proc) : nullptr) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::string base = std::string("/proc/") + e->d_name;
    std::ifstream cmd(base + "/cmdline");
    std::string argv0;
    std::getline(cmd, argv0, '\0');
    const std::string name = "/" + program;
    if (argv0.size() < name.size() ||
        argv0.compare(argv0.size() - name.size(), name.size(), name) != 0) {
      continue;
    }
    std::ifstream stat(base + "/stat");
    std::string pid_text, comm, state;
    long ppid = 0;
    stat >> pid_text >> comm >> state >> ppid;
    if (ppid == getpid()) continue;
    std::ifstream env(base + "/environ");
    std::string var;
    bool ours = false;
    while (std::getline(env, var, '\0')) ours = ours || var.rfind(marker, 0) == 0;
    if (ours) found.push_back(pid);
  }
  if (proc) closedir(proc);
  return found;
}

namespace {

char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, comm;
  char state = '?';
  stat >> pid_text >> comm >> state;
  return state;
}

std::atomic<int> worker_counter{0};

}  // namespace

StackWorkerPause::StackWorkerPause() : pids_(find_stack_workers()) {
  EXPECT_FALSE(pids_.empty()) << "the stack's worker process was not found";
  for (pid_t pid : pids_) {
    kill(pid, SIGSTOP);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (process_state(pid) != 'T' && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(process_state(pid), 'T') << "the stack's worker " << pid << " did not stop";
  }
}

void StackWorkerPause::resume() {
  for (pid_t pid : pids_) kill(pid, SIGCONT);
  pids_.clear();
}

std::string shell_quote(const std::string& value) {
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string stack_shell_prelude(const std::map<std::string, std::string>& overrides) {
  std::string script = ". " + shell_quote(state_dir() + "/env") + "; ";
  // Sanitizer builds report into the stack's log dir, where scripts/test looks.
  script += "export ASAN_OPTIONS=log_path=" + state_dir() +
            "/log/asan:detect_leaks=1 UBSAN_OPTIONS=log_path=" + state_dir() +
            "/log/ubsan:print_stacktrace=1:halt_on_error=1; ";
  for (const auto& [k, v] : overrides) {
    script += v == kUnset ? "unset " + k + "; " : "export " + k + "=" + shell_quote(v) + "; ";
  }
  return script;
}

pid_t start_with_stack_env(const std::string& command, const std::string& log,
                           const std::map<std::string, std::string>& overrides) {
  std::string script =
      stack_shell_prelude(overrides) + "exec " + command + " 2>>" + shell_quote(log);
  std::vector<std::string> args = {"/bin/bash", "-c", script};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // fork + execve only (nothing else between them: this process has threads).
  pid_t pid = fork();
  if (pid == 0) {
    // Dies with this test, whatever way it ends, so nothing outlives it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    execve("/bin/bash", argv.data(), environ);
    _exit(127);
  }
  if (pid < 0) {
    ADD_FAILURE() << "cannot start " << command;
    return 0;
  }
  return pid;
}

bool stop_process(pid_t pid, int seconds) {
  if (pid <= 0) return false;
  kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  bool clean = true;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "process " << pid << " did not stop on SIGTERM";
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      clean = false;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return clean && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool run_worker_once(const std::map<std::string, std::string>& overrides) {
  std::string log = state_dir() + "/log/test-worker-once-" + std::to_string(getpid()) + "-" +
                    std::to_string(++worker_counter) + ".log";
  pid_t pid = start_with_stack_env("commerce-admin-worker", log, overrides);
  if (pid <= 0) return false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "a worker pass took over 60 s";
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

WorkerProcess::WorkerProcess(const std::map<std::string, std::string>& overrides) {
  log_ = state_dir() + "/log/test-worker-" + std::to_string(getpid()) + "-" +
         std::to_string(++worker_counter) + ".log";
  pid_ = start_with_stack_env("commerce-admin-worker --loop", log_, overrides);
}

bool WorkerProcess::stop() {
  bool clean = stop_process(pid_, 40);
  pid_ = 0;
  return clean;
}

void WorkerProcess::kill_now() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = 0;
}

int WorkerProcess::processed(const std::string& task) const {
  std::ifstream in(log_);
  std::string line;
  int total = 0;
  const std::string marker = task + ": ";
  while (std::getline(in, line)) {
    size_t at = line.find(marker);
    if (at != std::string::npos) total += std::atoi(line.c_str() + at + marker.size());
  }
  return total;
}

std::string sql_one(const std::string& query) {
  std::vector<std::string> rows = sql(query);
  return rows.size() == 1 ? rows[0] : "<" + std::to_string(rows.size()) + " rows>";
}

std::string catalog_snapshot(int64_t tenant) {
  std::string snapshot;
  for (const char* table : {"categories", "products", "events"}) {
    snapshot +=
        sql_one(std::string("SELECT coalesce(json_agg(t ORDER BY t.id)::text, '[]') FROM ") +
                table + " t WHERE tenant_id = " + to_string(tenant));
  }
  return snapshot;
}

std::vector<std::string> text_lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) out.push_back(line);
  }
  return out;
}

Json json_request_line(const std::string& log, const std::string& id) {
  for (const std::string& line : text_lines_with(log, "\"request_id\":\"" + id + "\"")) {
    Json parsed = json_parse(line);
    if (parsed && json_get_str(parsed.get(), "message").value_or("") == "request") return parsed;
  }
  return nullptr;
}

int bind_loopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

int shell_status(const std::string& script) {
  int raw = std::system(("/bin/bash -c " + shell_quote(script)).c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

Outcome run_with_stack_env(const std::string& command,
                           const std::map<std::string, std::string>& env,
                           const std::string& input) {
  static std::atomic<int> n{0};
  std::string base = state_dir() + "/run-" + std::to_string(getpid()) + "-" + std::to_string(++n);
  {
    std::ofstream in(base + ".in");
    in << input;
  }
  Outcome r;
  r.status = shell_status(stack_shell_prelude(env) + "exec timeout -s KILL 10 " + command + " <" +
                          shell_quote(base + ".in") + " >" + shell_quote(base + ".out") + " 2>" +
                          shell_quote(base + ".err"));
  r.out = file_text(base + ".out");
  r.err = file_text(base + ".err");
  return r;
}

void expect_storm_limited(const std::function<HttpResponse(int)>& request, long passed_status) {
  int limited = 0, passed = 0;
  for (int round = 0; round < 5 && limited == 0; ++round) {
    for (const HttpResponse& r : http_concurrent(150, 16, request)) {
      if (r.status == 429) {
        ++limited;
        EXPECT_EQ(r.body, R"({"error":"Too many requests"})");
      } else {
        ++passed;
        EXPECT_EQ(r.status, passed_status) << r.body;
      }
    }
  }
  EXPECT_GT(limited, 0) << "nothing was limited";
  EXPECT_GT(passed, 0) << "the burst should let the first ones through";
}

MemberOfTwo member_of_two_tenants(const std::string& first_name, const std::string& second_name) {
  MemberOfTwo m;
  m.admin = admin_token();
  m.first = create_tenant(m.admin, unique(first_name));
  m.second = create_tenant(m.admin, unique(second_name));
  m.user = add_user(m.admin, m.first, "MEMBER");
  join_tenant(m.admin, m.second, m.user);
  return m;
}

void expect_json(const HttpResponse& r, const std::string& expected) {
  EXPECT_TRUE(json_eq(r.json.get(), expected)) << r.body;
}

void expect_outsider_and_former_refused(const std::vector<HttpResponse>& answers) {
  for (size_t i = 0; i < answers.size(); ++i) {
    if (i % 2 == 0) {
      EXPECT_EQ(answers[i].status, 403);
      EXPECT_EQ(answers[i].body, R"({"error":"You are not a member of this tenant"})");
    } else {
      EXPECT_TRUE(is_unauthenticated(answers[i])) << answers[i].status << " " << answers[i].body;
    }
  }
}

HttpResponse expect_refused_without_work(const std::string& tables,
                                         const std::function<std::vector<HttpResponse>()>& refused,
                                         const std::function<HttpResponse()>& member,
                                         const std::string& member_statement) {
  PgConn conn = connect_database();
  if (!conn) return {};
  EXPECT_TRUE(exec_ok(conn.get(), "BEGIN"));
  EXPECT_TRUE(exec_ok(conn.get(), "LOCK TABLE " + tables + " IN ACCESS EXCLUSIVE MODE"));
  std::future<std::vector<HttpResponse>> refusals = std::async(std::launch::async, refused);
  bool answered = refusals.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  // The lock is real: the member's request waits for it.
  std::future<HttpResponse> member_answer = std::async(std::launch::async, member);
  bool member_waited = wait_for_lock_wait(member_statement);
  // EXPECT, not ASSERT: the requests must be waited for before `conn` goes away.
  EXPECT_TRUE(exec_ok(conn.get(), "ROLLBACK"));
  EXPECT_TRUE(answered) << "a refused request waited for the tables: it was run";
  EXPECT_TRUE(member_waited);
  expect_outsider_and_former_refused(refusals.get());
  return member_answer.get();
}

void expect_single_page(const HttpResponse& r, int64_t total) {
  std::vector<std::string> keys;
  for (const cJSON* c = r.json ? r.json.get()->child : nullptr; c != nullptr; c = c->next) {
    keys.emplace_back(c->string);
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"data", "current_page", "last_page", "per_page", "total"}));
  EXPECT_EQ(r.integer("current_page"), 1);
  EXPECT_EQ(r.integer("last_page"), 1);
  EXPECT_EQ(r.integer("per_page"), 15);
  EXPECT_EQ(r.integer("total"), total);
}

double metrics_sample(const std::string& body, const std::string& series) {
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

}  // namespace ca::test
