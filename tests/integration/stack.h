// Test-side access to a running stack: an HTTP client (libcurl) and helpers
// to log in, create tenants and users, and read the database directly.
//
// The stack is started by scripts/test, which passes its address and the
// seeded admin in the environment (CA_BASE_URL, CA_ADMIN_EMAIL,
// CA_ADMIN_PASSWORD, CA_STATE_DIR). Each test process talks to it afresh.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
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
  std::string source_ip{};              // connect from this local address (e.g. 127.0.0.2)
  std::string base_url{};               // another nginx than the stack's (http://host:port)
};

// Environment of the running stack.
std::string base_url();
std::string admin_email();
std::string admin_password();
std::string state_dir();

// One HTTP request to base_url() (or call.base_url) + path.
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
// Creates a new account by inviting it to `tenant_id` (as `admin_token`) with
// `role` and accepting as a new account (invite_user(), accept_as_new_account()),
// then logs it in.
TestUser add_user(const std::string& admin_token, int64_t tenant_id,
                  const std::string& role = "MEMBER");
// A unique suffix for names and emails in this test run.
std::string unique(const std::string& prefix);

// Runs SQL against the stack's database; returns the first column of each row
// (NULL as "<null>"). Fails the test on SQL errors.
std::vector<std::string> sql(const std::string& query);

struct PgConnFinish {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct PgResultClear {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgConn = std::unique_ptr<PGconn, PgConnFinish>;
using PgResult = std::unique_ptr<PGresult, PgResultClear>;
// A connection of its own to the stack's database (as postgres), for a test
// that holds a transaction open; null, with the test failed, when it cannot
// connect.
PgConn connect_database();
// Runs `query` on `conn`; true when it succeeded.
bool exec_ok(PGconn* conn, const std::string& query);
// Waits (up to 30 s) until a backend running a statement LIKE `pattern`
// waits for a lock; false when none did. On Citus the wait happens on a
// worker, for the coordinator's backend running that statement.
bool wait_for_lock_wait(const std::string& pattern);
// True when the stack is a Citus cluster (CLUSTER=citus scripts/run).
bool on_citus();
// sql() for a test's own CREATE/DROP TRIGGER on a tenant table: Citus
// refuses triggers on distributed tables unless citus.enable_unsafe_triggers
// is on in the session (set first, as a statement of its own: Citus sends
// the DDL's whole query string to the workers; a placeholder setting on
// single-node).
void sql_allowing_triggers(const std::string& query);

// A trigger that makes inserting a category named name() fail with
// "injected failure <name>" (a 500 from the handler), dropped with its
// function when the object goes, whatever happens in the test.
class CategoryInsertFailure {
 public:
  CategoryInsertFailure();
  ~CategoryInsertFailure();
  CategoryInsertFailure(const CategoryInsertFailure&) = delete;
  CategoryInsertFailure& operator=(const CategoryInsertFailure&) = delete;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

std::string to_string(int64_t v);

// The whole file, bytes as they are; empty when it cannot be read.
std::string file_text(const std::string& path);

// Small helpers shared by the resource tests.

// A fresh tenant of a freshly logged-in admin; each test gets its own.
struct Scope {
  std::string token;
  int64_t tenant = 0;
  std::string tid() const { return to_string(tenant); }
  Call call(std::optional<std::string> body = std::nullopt) const {
    return {.token = token, .tenant = tid(), .body = std::move(body)};
  }
};
Scope fresh_scope(const std::string& token);

// A tenant of the seeded admin (`admin`, its token), with a MEMBER who
// orders (`buyer`), the buyer's address (Main Street 1, Berlin) and one
// product ("Shirt", 4.50): what an order needs.
struct Shop {
  std::string admin;
  int64_t tenant = 0;
  TestUser buyer;
  int64_t address = 0;
  int64_t product = 0;
  std::string tenant_str() const { return to_string(tenant); }
  Scope scope() const { return {.token = admin, .tenant = tenant}; }
};
Shop open_shop();
// Creates an address of `token`'s user (country DE, postal code 10115);
// returns its id.
int64_t create_address(const std::string& token, const std::string& street = "Main Street 1",
                       const std::string& city = "Berlin");
// Creates a product of `tenant` as `token`; returns its id.
int64_t create_product(const std::string& token, int64_t tenant, const std::string& name,
                       const std::string& price = "4.5");

// /api/v2/admin/team-members/{tenant}: the tenant's members and invitations.
std::string members_path(int64_t tenant);

// `s` as a JSON string literal (quoted and escaped).
std::string json_text(const std::string& s);
// `unit` repeated `n` times.
std::string repeat(const std::string& unit, int n);
// The response has `status` and exactly this JSON body (same keys, order, values).
void expect_body(const HttpResponse& r, long status, const std::string& expected);
// The body is the JSON text `expected` (object member order ignored).
void expect_json(const HttpResponse& r, const std::string& expected);
// The integer member `key` of `obj`, or -1.
int64_t int_of(const cJSON* obj, const char* key);

// One call of a tenant-scoped (X-Tenant-ID) endpoint.
struct GuardedCall {
  const char* method;
  std::string path;
  std::optional<std::string> body;
};
// The access checks every X-Tenant-ID endpoint shares, in the order of
// docs/design/api-conventions.md:
// 401 without a usable token (before any header check), 400 for a missing or
// garbage X-Tenant-ID, 403 for a tenant the caller is not a member of or that
// does not exist. `s` is a tenant of the caller; `outsider_token` a user of
// another tenant.
void expect_tenant_guards(const char* method, const std::string& path,
                          const std::optional<std::string>& body, const Scope& s,
                          const std::string& outsider_token);

// The stack's token signing key ($CA_STATE_DIR/token_secret, as the handlers read it).
std::string token_secret();

// POST /login with this email and password; the raw response (no assertion).
HttpResponse login_response(const std::string& email, const std::string& password);

// Runs `make(i)` for i in [0, count) on `threads` threads at once; responses in i order.
std::vector<HttpResponse> http_concurrent(int count, int threads,
                                          const std::function<HttpResponse(int)>& make);

// Polls (every 100 ms, up to `seconds`) until a login of the seeded admin from
// `source_ip` (empty: the default address) succeeds; true when it did.
bool wait_for_login(const std::string& source_ip = "", int seconds = 30);

// The member names of a JSON object, sorted.
std::vector<std::string> json_keys(const cJSON* object);

// Whether `actual` equals the JSON text `expected` (object member order ignored).
::testing::AssertionResult json_eq(const cJSON* actual, const std::string& expected);

// 401 {"error":"Unauthenticated"} with WWW-Authenticate: Bearer.
::testing::AssertionResult is_unauthenticated(const HttpResponse& r);

// The user id (`sub`) inside a token the service issued; 0 when unreadable.
int64_t token_user_id(const std::string& token);

// UTC, microseconds, Z: 2026-11-22T01:26:12.123456Z.
bool is_timestamp(const cJSON* value);

// --- invitations: the only way into a tenant one did not create ---------------

struct TestInvitation {
  int64_t id = 0;
  std::string token;  // the one-time token of the invite's answer
};
// POST /team-members/{tenantId} as `admin_token` (asserts 201).
TestInvitation invite_user(const std::string& admin_token, int64_t tenant_id,
                           const std::string& email, const std::string& role = "MEMBER");
// POST /invitations/accept with `bearer` as the accepting account; the raw response.
HttpResponse accept_as(const std::string& bearer, const std::string& invitation_token);
// POST /invitations/accept without a bearer token, creating the account; the raw response.
HttpResponse accept_as_new_account(const std::string& invitation_token, const std::string& name,
                                   const std::string& password);
// Invites the existing account `user` and accepts as it (asserts both).
void join_tenant(const std::string& admin_token, int64_t tenant_id, const TestUser& user,
                 const std::string& role = "MEMBER");

// --- worker processes ----------------------------------------------------------
//
// Tests that must decide which worker takes a row pause the stack's own
// worker and start their own `commerce-admin-worker --loop` processes with
// the stack's environment. Nothing in the product has a test hook.

// A value the stack was started with, from $CA_STATE_DIR/env (scripts/run).
std::optional<std::string> stack_env(const std::string& name);

// The workers of this stack that this test did not start (the stack's own
// `commerce-admin-worker --loop`): worker processes whose DATABASE_URL is
// this stack's and whose parent is not this process.
std::vector<pid_t> find_stack_workers();
// The same for any of the stack's programs ("commerce-admin-auth").
std::vector<pid_t> find_stack_processes(const std::string& program);
// CPU time (user and system) `pid` has used.
double cpu_seconds(pid_t pid);

// Keeps the stack's worker stopped (SIGSTOP) for the scope, so rows stay
// pending until this test's own workers or a resume() take them.
class StackWorkerPause {
 public:
  StackWorkerPause();
  ~StackWorkerPause() { resume(); }
  StackWorkerPause(const StackWorkerPause&) = delete;
  StackWorkerPause& operator=(const StackWorkerPause&) = delete;
  // SIGCONT; also done by the destructor, so a failing test never leaves it stopped.
  void resume();

 private:
  std::vector<pid_t> pids_;
};

// `value` as one single-quoted shell word.
std::string shell_quote(const std::string& value);
// An override value that unsets the variable instead.
inline constexpr const char* kUnset = "<unset>";
// Shell commands that give what follows them the stack's environment
// ($CA_STATE_DIR/env: PATH, DATABASE_URL, TOKEN_SECRET_FILE, ...), the
// sanitizers' log paths, and `overrides` on top (kUnset unsets).
std::string stack_shell_prelude(const std::map<std::string, std::string>& overrides = {});

// Runs `command` (a program on the stack's PATH and its arguments) with the
// stack's environment ($CA_STATE_DIR/env) plus `overrides`, stderr appended
// to `log`; it dies with the test process (PR_SET_PDEATHSIG). 0 on failure.
pid_t start_with_stack_env(const std::string& command, const std::string& log,
                           const std::map<std::string, std::string>& overrides = {});
// SIGTERM, then waits up to `seconds` (SIGKILL after). True when the process
// exited with status 0 in time.
bool stop_process(pid_t pid, int seconds);

// One pass of `commerce-admin-worker` (what the systemd timer runs) with the
// stack's environment plus `overrides`; true when it exited 0 within 60 s.
bool run_worker_once(const std::map<std::string, std::string>& overrides = {});

// A `commerce-admin-worker --loop` of this test, with the stack's environment
// plus `overrides`; its log goes to $CA_STATE_DIR/log/test-worker-<pid>-<n>.log.
// It dies with the test process (PR_SET_PDEATHSIG), however that ends.
class WorkerProcess {
 public:
  explicit WorkerProcess(const std::map<std::string, std::string>& overrides = {});
  ~WorkerProcess() { stop(); }
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // SIGTERM: the worker finishes its pass (in-flight sends included) and
  // exits. True when it then exited with status 0 (it was still running and
  // ended cleanly); false when it had died or had to be killed.
  bool stop();
  // SIGKILL, at once (a worker dying mid-send).
  void kill_now();
  // Items this worker reported for `task` ("<task>: N processed" log lines,
  // e.g. "webhook deliveries", "push notifications").
  int processed(const std::string& task) const;

 private:
  pid_t pid_ = 0;
  std::string log_;
};

// --- small pieces several test files share --------------------------------------

// The one row sql() returns for `query`, or "<N rows>" when it returns another number.
std::string sql_one(const std::string& query);
// Everything stored for a tenant's catalog and its events (categories,
// products and events as JSON), to prove a request changed nothing.
std::string catalog_snapshot(int64_t tenant);

// The lines of `text` that contain `needle`, in order.
std::vector<std::string> text_lines_with(const std::string& text, const std::string& needle);
// The request line (LOG_FORMAT=json, "message":"request") of request `id`
// in the log text `log`, parsed; null when there is none.
Json json_request_line(const std::string& log, const std::string& id);

// A TCP socket (close-on-exec) bound to 127.0.0.1 on a port the kernel
// chose, not listening; -1 when that failed. Its port in *port.
int bind_loopback(int* port);

// Runs `script` with /bin/bash -c; its exit status, 128 + N when signal N killed it.
int shell_status(const std::string& script);

// What a short-lived program of the stack said and how it ended.
struct Outcome {
  int status = -1;  // exit code; 128 + N when killed by signal N
  std::string out;
  std::string err;
};
// Runs `command` with the stack's environment (stack_shell_prelude), `env`
// on top, `input` on stdin. Killed after 10 s, so a hang fails the test as
// status 137 instead of blocking it.
Outcome run_with_stack_env(const std::string& command,
                           const std::map<std::string, std::string>& env = {},
                           const std::string& input = "");

// nginx's per-address limits: sends rounds (at most 5) of 150 requests
// `request(i)` 16 at a time until some are limited. Every answer is 429
// {"error":"Too many requests"} or `passed_status`, and there is at least one
// of each (the burst lets the first ones through).
void expect_storm_limited(const std::function<HttpResponse(int)>& request, long passed_status);

// Two fresh tenants of the seeded admin and a new MEMBER of both, who
// joined `second` last (so it is the member's current tenant).
struct MemberOfTwo {
  std::string admin;
  int64_t first = 0;
  int64_t second = 0;
  TestUser user;
};
MemberOfTwo member_of_two_tenants(const std::string& first_name, const std::string& second_name);

// The answers of requests by an outsider and by a logged-out former member,
// alternating (outsider first): 403 "You are not a member of this tenant",
// then 401 Unauthenticated.
void expect_outsider_and_former_refused(const std::vector<HttpResponse>& answers);
// Requests refused before any statement of theirs runs: with `tables` locked
// (ACCESS EXCLUSIVE) by a transaction of this test, `refused()` is answered
// within 20 s and its answers are expect_outsider_and_former_refused's,
// while `member()`, which does run, waits for the lock (a backend running a
// statement LIKE `member_statement`). The member's answer, once the lock
// is gone.
HttpResponse expect_refused_without_work(const std::string& tables,
                                         const std::function<std::vector<HttpResponse>()>& refused,
                                         const std::function<HttpResponse()>& member,
                                         const std::string& member_statement);

// The value of the sample `series` (name and labels, exactly as printed) in
// a /metrics body; -1 when absent.
double metrics_sample(const std::string& body, const std::string& series);

// A first page that holds every row: the page envelope's members in order
// (data, current_page, last_page, per_page, total), page 1 of 1, 15 per page
// (the default), `total` rows.
void expect_single_page(const HttpResponse& r, int64_t total);

}  // namespace ca::test
