#include "db.h"

#include <poll.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "log.h"
#include "tenant_constant.h"

namespace ca {

DbErrorKind db_error_kind(std::string_view sqlstate) {
  if (sqlstate == "23505") return DbErrorKind::kUniqueViolation;
  if (sqlstate == "23503") return DbErrorKind::kForeignKeyViolation;
  if (sqlstate == "23514" || sqlstate == "23502") return DbErrorKind::kCheckViolation;
  if (sqlstate == "40001" || sqlstate == "40P01") return DbErrorKind::kSerialization;
  if (sqlstate == "57014") return DbErrorKind::kTimeout;
  if (sqlstate.substr(0, 2) == "22") return DbErrorKind::kBadData;
  if (sqlstate.substr(0, 2) == "08" || sqlstate == "57P01" || sqlstate == "57P02" ||
      sqlstate == "57P03") {
    return DbErrorKind::kConnection;
  }
  return DbErrorKind::kOther;
}

DbErrorKind classify_db_error(std::string_view sqlstate, std::string_view message) {
  // Citus's words for a shard (or its placement) its metadata no longer
  // holds (13.2: metadata_cache.c, metadata_utility.c), without a SQLSTATE
  // of their own; seen under bench/move-tenant, reads on the tenant's node
  // during a split. (Its "shard for the given value does not exist" is
  // 40001 already.)
  static constexpr std::string_view kShardGone = "could not find valid entry for shard ";
  if (sqlstate == "XX000" && message.substr(0, kShardGone.size()) == kShardGone) {
    return DbErrorKind::kSerialization;
  }
  return db_error_kind(sqlstate);
}

Rows::Rows(PgResultPtr res) : res_(std::move(res)) {
  constexpr Oid kTimestamptzOid = 1184;
  const int columns = PQnfields(res_.get());
  for (int col = 0; col < columns; ++col) {
    if (PQftype(res_.get(), col) != kTimestamptzOid) continue;
    if (timestamp_slot_.empty()) timestamp_slot_.assign(static_cast<size_t>(columns), -1);
    timestamp_slot_[static_cast<size_t>(col)] = timestamp_columns_++;
  }
  if (timestamp_columns_ == 0) return;
  const int rows = size();
  timestamps_.resize(static_cast<size_t>(rows) * static_cast<size_t>(timestamp_columns_) *
                     kIsoTimestampSize);
  char* out = timestamps_.data();
  for (int row = 0; row < rows; ++row) {
    for (int col = 0; col < columns; ++col) {
      if (timestamp_slot_[static_cast<size_t>(col)] < 0) continue;
      std::string_view pg(PQgetvalue(res_.get(), row, col),
                          static_cast<size_t>(PQgetlength(res_.get(), row, col)));
      if (!iso_from_pg_timestamptz(pg, out)) out[0] = '\0';
      out += kIsoTimestampSize;
    }
  }
}

Col Rows::col(std::string_view name) const {
  const int columns = res_ ? PQnfields(res_.get()) : 0;
  int found = -1;
  int matches = 0;
  for (int i = 0; i < columns; ++i) {
    if (name == PQfname(res_.get(), i)) {
      found = i;
      ++matches;
    }
  }
  if (matches == 1) return Col(found);
  std::string names;
  for (int i = 0; i < columns; ++i) {
    if (i > 0) names += ", ";
    names += PQfname(res_.get(), i);
  }
  log_error("statement result has %s column \"%.*s\" (its columns: %s)",
            matches == 0 ? "no" : "more than one", static_cast<int>(name.size()), name.data(),
            names.c_str());
  std::abort();
}

int64_t Rows::affected() const {
  const char* n = PQcmdTuples(res_.get());
  return n[0] == '\0' ? 0 : std::strtoll(n, nullptr, 10);
}

std::string_view Rows::text(int row, int col) const {
  if (!timestamp_slot_.empty() && timestamp_slot_[static_cast<size_t>(col)] >= 0) {
    const char* iso =
        timestamps_.data() + (static_cast<size_t>(row) * static_cast<size_t>(timestamp_columns_) +
                              static_cast<size_t>(timestamp_slot_[static_cast<size_t>(col)])) *
                                 kIsoTimestampSize;
    if (iso[0] != '\0') return std::string_view(iso, kIsoTimestampSize);
  }
  return std::string_view(PQgetvalue(res_.get(), row, col),
                          static_cast<size_t>(PQgetlength(res_.get(), row, col)));
}

std::optional<std::string> Rows::opt_str(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return str(row, col);
}

std::optional<std::string_view> Rows::opt_text(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return text(row, col);
}

int64_t Rows::int64(int row, int col) const {
  return std::strtoll(PQgetvalue(res_.get(), row, col), nullptr, 10);
}

std::optional<int64_t> Rows::opt_int64(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return int64(row, col);
}

double Rows::number(int row, int col) const {
  return std::strtod(PQgetvalue(res_.get(), row, col), nullptr);
}

Param::Param(double v) : null_(false) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  value_ = buf;
}

Db::Db(std::string conninfo, int statement_timeout_ms)
    : conninfo_(std::move(conninfo)), statement_timeout_ms_(statement_timeout_ms) {}

Db::~Db() { disconnect(); }

void Db::disconnect() {
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
  prepared_.clear();
  prepared_tenant_forms_.clear();
  session_read_only_ = false;  // a new connection starts read-write
}

// libpq's messages end with a newline and may span lines; logs are one line.
static std::string one_line(const char* message) {
  std::string msg = message;
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  for (char& c : msg) {
    if (c == '\n') c = ' ';
  }
  return msg;
}

bool Db::ensure_connected() {
  if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) return true;
  disconnect();
  conn_ = PQconnectdb(conninfo_.c_str());
  if (PQstatus(conn_) != CONNECTION_OK) {
    log_error("database connection failed: %s", one_line(PQerrorMessage(conn_)).c_str());
    disconnect();
    return false;
  }
  // Every statement here is a short OLTP query. JIT compilation (tens to
  // hundreds of ms) and parallel workers (ms to start) only pay for long
  // analytic scans, yet a row estimate PostgreSQL cannot make (a condition
  // on now(), say) is enough to trigger them: both off for these sessions.
  //
  // Generic plans: each statement is prepared once per connection and its
  // text already fixes the access path (one statement per filter
  // combination; pages chosen as `id = ANY (ARRAY(...))`). By default
  // PostgreSQL re-plans a parameterized statement on every execution when it
  // guesses a custom plan is cheaper, which for the list statements cost more
  // than running them (product list 3.1k -> 5.0k req/s at 8 connections).
  // Not on Citus (the server has loaded it: citus.version exists), whose
  // planner cannot make a generic distributed plan of several statements
  // (docs/scaling.md): there PostgreSQL's default, auto.
  //
  // UTC and ISO: timestamptz values arrive as `2026-12-01 10:00:00.5+00`,
  // which Rows turns into the API's format (pg_timestamp.h), whatever the
  // server's or the role's defaults are.
  //
  // A statement timeout, when set (the handlers: DB_STATEMENT_TIMEOUT_SECONDS),
  // frees a thread stuck behind a lock some other session holds: the
  // request is answered 503 instead of waiting as long as the lock does.
  std::string sql =
      "SET jit = off; SET max_parallel_workers_per_gather = 0; "
      "SELECT set_config('plan_cache_mode', CASE WHEN current_setting('citus.version', true) "
      "IS NULL THEN 'force_generic_plan' ELSE 'auto' END, false); "
      "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, MDY'";
  if (statement_timeout_ms_ > 0) {
    sql += "; SET statement_timeout = " + std::to_string(statement_timeout_ms_);
  }
  PgResultPtr setup(PQexec(conn_, sql.c_str()));
  if (PQresultStatus(setup.get()) != PGRES_COMMAND_OK) {
    log_error("database session setup failed: %s", one_line(PQerrorMessage(conn_)).c_str());
    disconnect();
    return false;
  }
  return true;
}

bool Db::in_transaction() const {
  return conn_ != nullptr && PQtransactionStatus(conn_) != PQTRANS_IDLE;
}

// The constraint a violation (class 23) names in its message, for errors
// without the constraint field: Citus relays a worker's error with its
// SQLSTATE and message but not that field. Read from PostgreSQL's English
// message (`... constraint "name"`): a worker whose lc_messages translates
// it gives no name, and the violation stays a 500 as before.
static std::string constraint_in_message(const std::string& sqlstate, const std::string& message) {
  if (sqlstate.compare(0, 2, "23") != 0) return "";
  static constexpr std::string_view kMarker = "constraint \"";
  size_t start = message.rfind(kMarker);
  if (start == std::string::npos) return "";
  start += kMarker.size();
  size_t end = message.find('"', start);
  return end == std::string::npos ? "" : message.substr(start, end - start);
}

DbResult Db::check(PGresult* raw) {
  PgResultPtr res(raw);
  ExecStatusType st = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return Rows(std::move(res));
  if (st == PGRES_PIPELINE_ABORTED) {
    return DbError{DbErrorKind::kOther, "", "not run: an earlier statement of the pipeline failed",
                   ""};
  }
  DbError err;
  const char* state = res ? PQresultErrorField(res.get(), PG_DIAG_SQLSTATE) : nullptr;
  err.sqlstate = state ? state : "";
  const char* primary = res ? PQresultErrorField(res.get(), PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  err.message = primary ? primary : PQerrorMessage(conn_);
  const char* constraint = res ? PQresultErrorField(res.get(), PG_DIAG_CONSTRAINT_NAME) : nullptr;
  err.constraint = constraint ? constraint : constraint_in_message(err.sqlstate, err.message);
  err.kind = err.sqlstate.empty() || PQstatus(conn_) != CONNECTION_OK
                 ? DbErrorKind::kConnection
                 : classify_db_error(err.sqlstate, err.message);
  return err;
}

Db::Form Db::form_of(const Statement& stmt, const std::vector<Param>& params) const {
  Form form{&stmt, {}};
  if (tenant_constant_ == 0 || stmt.tenant_param == 0 ||
      params.size() < static_cast<size_t>(stmt.tenant_param)) {
    return form;
  }
  const char* value = params[stmt.tenant_param - 1].c_str();
  std::string tenant = std::to_string(tenant_constant_);
  if (value == nullptr || tenant != value) return form;
  std::string name = stmt.name;
  name += '@';
  name += tenant;
  // PostgreSQL keeps NAMEDATALEN - 1 bytes of a statement's name: a longer
  // one could be another tenant's, cut. Such a statement runs as itself.
  if (name.size() < 64) form.tenant_name = std::move(name);
  return form;
}

bool Db::is_prepared(const Form& form) const {
  return form.tenant_name.empty() ? prepared_.count(form.stmt) != 0
                                  : prepared_tenant_forms_.count(form.tenant_name) != 0;
}

void Db::mark_prepared(const Form& form) {
  if (form.tenant_name.empty()) {
    prepared_.insert(form.stmt);
  } else {
    prepared_tenant_forms_.insert(form.tenant_name);
  }
}

namespace {
// A tenant's form: its text, and its parameters' types, the tenant's given
// (int8) since the text no longer refers to it, the others left to the
// server.
struct TenantFormText {
  std::string sql;
  std::vector<Oid> types;
  TenantFormText(const Statement& stmt, int64_t tenant, size_t n_params)
      : sql(with_tenant_constant(stmt.sql, stmt.tenant_param, tenant)), types(n_params, 0) {
    types[stmt.tenant_param - 1] = 20;  // INT8OID
  }
};
}  // namespace

bool Db::send_prepare(const Form& form, size_t n_params) {
  if (form.tenant_name.empty()) {
    return PQsendPrepare(conn_, form.stmt->name, form.stmt->sql, 0, nullptr) == 1;
  }
  TenantFormText text(*form.stmt, tenant_constant_, n_params);
  return PQsendPrepare(conn_, form.name(), text.sql.c_str(), static_cast<int>(n_params),
                       text.types.data()) == 1;
}

void Db::bound_tenant_forms(const Form& form) {
  if (form.tenant_name.empty() || prepared_tenant_forms_.size() < kTenantStatementsKept ||
      is_prepared(form) || in_transaction()) {
    return;
  }
  std::string sql;
  for (const std::string& name : prepared_tenant_forms_) {
    sql += "DEALLOCATE \"";
    sql += name;
    sql += "\"; ";
  }
  PgResultPtr done(PQexec(conn_, sql.c_str()));
  if (PQresultStatus(done.get()) == PGRES_COMMAND_OK) prepared_tenant_forms_.clear();
}

DbResult Db::prepare(const Form& form, size_t n_params) {
  if (is_prepared(form)) return Rows(nullptr);
  ++log_request_context().db_round_trips;  // the Parse, before the statement's own
  PGresult* raw;
  if (form.tenant_name.empty()) {
    raw = PQprepare(conn_, form.stmt->name, form.stmt->sql, 0, nullptr);
  } else {
    TenantFormText text(*form.stmt, tenant_constant_, n_params);
    raw = PQprepare(conn_, form.name(), text.sql.c_str(), static_cast<int>(n_params),
                    text.types.data());
  }
  DbResult prep = check(raw);
  if (!prep.ok()) {
    if (prep.error().kind != DbErrorKind::kConnection) {
      log_error("prepare %s failed: %s", form.name(), prep.error().message.c_str());
    }
    return prep;
  }
  mark_prepared(form);
  return prep;
}

static std::vector<const char*> param_values(const std::vector<Param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const Param& p : params) values.push_back(p.c_str());
  return values;
}

namespace {
// Adds the time of its scope to the request's database time (the per-request
// log line): two clock reads per round trip.
// Counts the round trip too (the request line's db_round_trips).
struct DbTimer {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  DbTimer() { ++log_request_context().db_round_trips; }
  ~DbTimer() { log_request_context().db_time += std::chrono::steady_clock::now() - start; }
};
}  // namespace

std::vector<DbResult> Db::run_pipeline(const std::vector<Query>& queries, size_t sync_after) {
  DbTimer timer;
  // DbResult owns its PGresult and cannot be copied: one error value each.
  auto fail_all = [&](const DbError& err) {
    std::vector<DbResult> out;
    for (size_t i = 0; i < queries.size(); ++i) out.emplace_back(err);
    return out;
  };
  if (!ensure_connected()) return fail_all({DbErrorKind::kConnection, "", "no connection", ""});
  // Each query's form; with no tenant set (single-node, writes), each
  // statement itself, and nothing allocated for it.
  std::vector<Form> tenant_forms;
  if (tenant_constant_ != 0) {
    tenant_forms.reserve(queries.size());
    for (const Query& q : queries) {
      tenant_forms.push_back(form_of(*q.stmt, q.params));
      bound_tenant_forms(tenant_forms.back());
    }
  }
  const Form itself;
  auto form_at = [&](size_t i) -> const Form& {
    return tenant_forms.empty() ? itself : tenant_forms[i];
  };
  auto name_at = [&](size_t i) {
    const Form& form = form_at(i);
    return form.stmt == nullptr ? queries[i].stmt->name : form.name();
  };
  auto prepared_at = [&](size_t i) {
    const Form& form = form_at(i);
    return form.stmt == nullptr ? prepared_.count(queries[i].stmt) != 0 : is_prepared(form);
  };
  if (PQenterPipelineMode(conn_) != 1) return fail_all({DbErrorKind::kOther, "", "pipeline", ""});
  // A statement not yet prepared on this connection is prepared in the same
  // round trip, just before it runs. So after a failure nothing later in the
  // pipeline is even parsed (no locks taken on its tables), and a first use
  // costs no extra round trip.
  constexpr size_t kResult = SIZE_MAX;
  std::vector<size_t> preparing;  // one entry per result: the query whose Parse it is, or kResult
  bool sent = true;
  for (size_t i = 0; i < queries.size(); ++i) {
    const Query& q = queries[i];
    if (i == sync_after && sync_after > 0) sent = sent && PQpipelineSync(conn_) == 1;
    bool needs_prepare =
        !prepared_at(i) && std::none_of(preparing.begin(), preparing.end(), [&](size_t parsed) {
          return parsed != kResult && std::strcmp(name_at(parsed), name_at(i)) == 0;
        });
    if (needs_prepare) {
      const Form& form = form_at(i);
      sent = sent && send_prepare(form.stmt == nullptr ? Form{q.stmt, {}} : form, q.params.size());
      preparing.push_back(i);
    }
    std::vector<const char*> values = param_values(q.params);
    sent = sent && PQsendQueryPrepared(conn_, name_at(i), static_cast<int>(values.size()),
                                       values.data(), nullptr, nullptr, 0) == 1;
    preparing.push_back(kResult);
  }
  sent = sent && PQpipelineSync(conn_) == 1;
  std::vector<DbResult> out;
  if (sent) {
    for (size_t parsed : preparing) {
      DbResult r = check(PQgetResult(conn_));
      // Each query's results end with a NULL.
      while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);
      if (parsed == kResult) {
        out.push_back(std::move(r));
        // The first part's PGRES_PIPELINE_SYNC.
        if (out.size() == sync_after) PgResultPtr sync(PQgetResult(conn_));
      } else if (r.ok()) {
        const Form& form = form_at(parsed);
        mark_prepared(form.stmt == nullptr ? Form{queries[parsed].stmt, {}} : form);
      } else if (r.error().kind != DbErrorKind::kConnection && !r.error().sqlstate.empty()) {
        // (Skipped after an earlier failure: no SQLSTATE, nothing to report.)
        log_error("prepare %s failed: %s", name_at(parsed), r.error().message.c_str());
      }
    }
    PgResultPtr sync(PQgetResult(conn_));  // PGRES_PIPELINE_SYNC
  }
  if (!sent || PQexitPipelineMode(conn_) != 1 || PQstatus(conn_) != CONNECTION_OK) {
    disconnect();
    return fail_all({DbErrorKind::kConnection, "", "connection lost in pipeline", ""});
  }
  return out;
}

namespace {

// The session's read-only default (Db::SendMode::read_only), switched
// only when the mode of a send differs from the connection's. On: in the
// send's own implicit transaction, which it makes read-only too (a
// transaction may become read-only at any point). Off: in a part of the
// pipeline of its own (its own Sync, same round trip), since a read-only
// transaction cannot become read-write once it ran a query, and the send's
// implicit transaction began read-only.
const Statement kReadOnlyOn{"ca_read_only_on",
                            "SELECT set_config('default_transaction_read_only', 'on', false) "
                            "AS session, set_config('transaction_read_only', 'on', true) AS now"};
const Statement kReadOnlyOff{
    "ca_read_only_off",
    "SELECT set_config('default_transaction_read_only', 'off', false) AS session"};

std::vector<DbResult> all_failed(size_t n, const DbError& err) {
  std::vector<DbResult> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.emplace_back(err);
  return out;
}

DbError not_started() {
  return DbError{DbErrorKind::kTimeout, "",
                 "not started: it could still be running at the request's time limit", ""};
}

DbError lost_in_transaction() {
  return DbError{DbErrorKind::kConnection, "", "connection lost inside a transaction", ""};
}

}  // namespace

bool Db::too_late_to_start() const {
  return deadline_ - std::chrono::steady_clock::now() <
         std::chrono::milliseconds(statement_timeout_ms_);
}

std::vector<DbResult> Db::send_outside(const std::vector<Query>& queries) {
  if (!ensure_connected()) {
    return all_failed(queries.size(), {DbErrorKind::kConnection, "", "no connection", ""});
  }
  const bool read_only = mode_.read_only;
  if (read_only == session_read_only_) return run_pipeline(queries);
  std::vector<Query> all;
  all.reserve(queries.size() + 1);
  all.push_back({read_only ? &kReadOnlyOn : &kReadOnlyOff, {}});
  all.insert(all.end(), queries.begin(), queries.end());
  std::vector<DbResult> r = run_pipeline(all, read_only ? 0 : 1);
  // A setting made in a transaction that failed is undone with it.
  bool switched = r[0].ok();
  if (read_only) {
    for (const DbResult& each : r) switched = switched && each.ok();
  }
  if (switched && conn_ != nullptr) session_read_only_ = read_only;
  r.erase(r.begin());
  return r;
}

std::vector<DbResult> Db::pipeline(const std::vector<Query>& queries) {
  if (tx_open_) return run_pipeline(queries);
  if (!mode_.repeatable) {
    drop_if_closed();
    if (too_late_to_start()) return all_failed(queries.size(), not_started());
  }
  std::vector<DbResult> r = send_outside(queries);
  if (mode_.repeatable && !r.empty() && !r[0].ok() &&
      r[0].error().kind == DbErrorKind::kConnection) {
    // The server restarted or the connection broke: one fresh try.
    disconnect();
    r = send_outside(queries);
  }
  return r;
}

DbResult Db::run(const Statement& stmt, const std::vector<Param>& params) {
  if (tx_open_ && (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK)) {
    return lost_in_transaction();
  }
  if (!ensure_connected()) return DbError{DbErrorKind::kConnection, "", "no connection", ""};
  DbTimer timer;
  Form form = form_of(stmt, params);
  bound_tenant_forms(form);
  DbResult prep = prepare(form, params.size());
  if (!prep.ok()) return prep;
  std::vector<const char*> values = param_values(params);
  return check(PQexecPrepared(conn_, form.name(), static_cast<int>(values.size()), values.data(),
                              nullptr, nullptr, 0));
}

DbResult Db::exec(const Statement& stmt, const std::vector<Param>& params) {
  if (tx_open_ || in_transaction()) return run(stmt, params);
  if (!mode_.repeatable && too_late_to_start()) return not_started();
  auto once = [&]() -> DbResult {
    // A send that switches the session's read-only default is a pipeline.
    if (ensure_connected() && mode_.read_only == session_read_only_) return run(stmt, params);
    return std::move(send_outside({{&stmt, params}})[0]);
  };
  DbResult r = once();
  if (!r.ok() && r.error().kind == DbErrorKind::kConnection && mode_.repeatable) {
    // The server restarted or the connection broke: one fresh try.
    disconnect();
    r = once();
  }
  return r;
}

DbResult Db::exec_sql(const char* sql) {
  if (tx_open_ && (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK)) {
    return lost_in_transaction();
  }
  if (!ensure_connected()) return DbError{DbErrorKind::kConnection, "", "no connection", ""};
  DbTimer timer;
  return check(PQexec(conn_, sql));
}

std::vector<DbResult> Db::begin(const std::vector<Query>& queries) {
  // Prepared once per connection like any statement: the extended protocol
  // takes transaction control too.
  static const Statement kBegin{"ca_begin", "BEGIN"};
  drop_if_closed();
  std::vector<Query> all;
  all.reserve(queries.size() + 1);
  all.push_back({&kBegin, {}});
  all.insert(all.end(), queries.begin(), queries.end());
  std::vector<DbResult> r = send_outside(all);
  if (r[0].ok()) tx_open_ = true;
  r.erase(r.begin());
  return r;
}

void Db::rollback() {
  if (!tx_open_) return;
  DbResult r = exec_sql("ROLLBACK");
  (void)r;
  tx_open_ = false;
}

std::vector<DbResult> Db::commit(const std::vector<Query>& queries) {
  static const Statement kCommit{"ca_commit", "COMMIT"};
  if (!tx_open_) {
    return all_failed(queries.size() + 1, {DbErrorKind::kOther, "", "no transaction", ""});
  }
  if (std::chrono::steady_clock::now() > deadline_) {
    rollback();
    return all_failed(
        queries.size() + 1,
        {DbErrorKind::kTimeout, "",
         "the request ran past its time limit; rolled back instead of committed", ""});
  }
  std::vector<Query> all = queries;
  all.push_back({&kCommit, {}});
  std::vector<DbResult> r = run_pipeline(all);
  // A statement that failed left the transaction aborted and the COMMIT
  // after it unsent: roll back. (COMMIT of an aborted transaction would also
  // "succeed", as a ROLLBACK: the statements before it are what tells.)
  for (DbResult& result : r) {
    if (result.ok()) continue;
    if (conn_ != nullptr && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      DbResult rolled_back = exec_sql("ROLLBACK");
      (void)rolled_back;
    }
    break;
  }
  tx_open_ = false;
  return r;
}

void Db::drop_if_closed() {
  if (conn_ == nullptr || tx_open_) return;
  // An idle connection is sent nothing (no LISTEN here): anything to read,
  // the server's FATAL "terminating connection" included (libpq still calls
  // the connection good until it reads the end of file), means it is gone.
  pollfd p{PQsocket(conn_), POLLIN, 0};
  if (poll(&p, 1, 0) != 0) disconnect();
}

std::vector<DbResult> Db::write_pipeline(const std::vector<Query>& queries) {
  drop_if_closed();
  if (too_late_to_start()) return all_failed(queries.size(), not_started());
  return send_outside(queries);
}

}  // namespace ca
