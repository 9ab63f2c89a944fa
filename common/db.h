// PostgreSQL access: one persistent connection, named prepared statements,
// transactions, and reconnect after the server went away.
//
// Reading rows (issue 28): columns are read by name, never by position.
//   DbResult r = db.exec(kList, {...});
//   const Col json = r->col("json"), total = r->col("total");  // once per result
//   for (int i = 0; i < r->size(); ++i) use(r->text(i, json));
//   bool on = r->boolean(0, "is_published");  // one-off read: looks the name up
// Name every selected expression with AS when its name is not obvious
// (`count(*) AS total`, `x IS NOT NULL AS is_read`). A name the result does
// not hold, or holds twice, aborts the process with the name and the
// result's columns in the log: a programming error that the first test
// running the statement finds, never a read of another column.
//
// A Db belongs to exactly one thread (each serve-loop worker has its own).
// Statements are declared as constants next to the handler that runs them and
// are prepared lazily, once per connection. Every call checks the result
// status; failures come back as DbError values, never exceptions.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <variant>
#include <vector>

#include "pg_timestamp.h"

namespace ca {

// A prepared statement: its name on every connection and its text. Whether
// a statement may be repeated on a fresh connection is not read from its
// text: it is the route's (Db::SendMode, common/request_tx.h).
//
// `tenant_param` (1-based; 0: none) names the parameter that is the tenant's
// id in a read worth preparing once per tenant on Citus
// (Db::set_tenant_constant).
struct Statement {
  constexpr Statement() = default;
  constexpr Statement(const char* n, const char* s) : name(n), sql(s) {}
  constexpr Statement(const char* n, const char* s, int t) : name(n), sql(s), tenant_param(t) {}
  const char* name = nullptr;
  const char* sql = nullptr;
  int tenant_param = 0;
};

// At most this many statements prepared with a tenant's id in their text
// are kept per connection; one more deallocates them all first.
inline constexpr size_t kTenantStatementsKept = 64;

enum class DbErrorKind {
  kUniqueViolation,      // 23505
  kForeignKeyViolation,  // 23503
  kCheckViolation,       // 23514, 23502
  kBadData,              // 22xxx
  kConnection,           // 08xxx, or no connection at all
  kSerialization,        // 40001, 40P01
  kTimeout,              // 57014: statement_timeout (or a cancel)
  kOther,
};

struct DbError {
  DbErrorKind kind = DbErrorKind::kOther;
  std::string sqlstate;
  std::string message;
  std::string constraint;
};

// Maps a SQLSTATE to its error kind (the one place that knows the codes).
DbErrorKind db_error_kind(std::string_view sqlstate);
// db_error_kind(), and a Citus shard split or move that removed the shard a
// statement was planned for while it ran (an internal error by its SQLSTATE,
// by its message a transaction rolled back whole that may be run again):
// kSerialization.
DbErrorKind classify_db_error(std::string_view sqlstate, std::string_view message);

struct PgResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResultPtr = std::unique_ptr<PGresult, PgResultDeleter>;

// A column of one result, found by name (Rows::col). Only Rows makes one,
// so a read through a Col is a read by name.
class Col {
 public:
  int index() const { return index_; }

 private:
  friend class Rows;
  explicit Col(int index) : index_(index) {}
  int index_;
};

// Rows of a successful statement, read by column name (see the top of this
// file). timestamptz columns read as text in the API's format
// (pg_timestamp.h), converted once when the result arrives.
class Rows {
 public:
  explicit Rows(PgResultPtr res);
  int size() const { return PQntuples(res_.get()); }
  bool empty() const { return size() == 0; }
  int64_t affected() const;

  // The column called `name` (exactly, as PQfname gives it). Aborts, logging
  // the name and the result's column names, when there is no such column or
  // more than one: a statement and its reader disagree, which no request
  // may survive by reading some other column. A scan of the result's column
  // names (a few string compares): resolve once per result, not per row.
  Col col(std::string_view name) const;

  bool is_null(int row, Col col) const { return is_null(row, col.index()); }
  std::string_view text(int row, Col col) const { return text(row, col.index()); }
  std::string str(int row, Col col) const { return str(row, col.index()); }
  std::optional<std::string> opt_str(int row, Col col) const { return opt_str(row, col.index()); }
  std::optional<std::string_view> opt_text(int row, Col col) const {
    return opt_text(row, col.index());
  }
  int64_t int64(int row, Col col) const { return int64(row, col.index()); }
  std::optional<int64_t> opt_int64(int row, Col col) const { return opt_int64(row, col.index()); }
  double number(int row, Col col) const { return number(row, col.index()); }
  bool boolean(int row, Col col) const { return boolean(row, col.index()); }

  // The same by name, looked up on every call: for a value read once.
  bool is_null(int row, const char* name) const { return is_null(row, col(name)); }
  std::string_view text(int row, const char* name) const { return text(row, col(name)); }
  std::string str(int row, const char* name) const { return str(row, col(name)); }
  std::optional<std::string> opt_str(int row, const char* name) const {
    return opt_str(row, col(name));
  }
  std::optional<std::string_view> opt_text(int row, const char* name) const {
    return opt_text(row, col(name));
  }
  int64_t int64(int row, const char* name) const { return int64(row, col(name)); }
  std::optional<int64_t> opt_int64(int row, const char* name) const {
    return opt_int64(row, col(name));
  }
  double number(int row, const char* name) const { return number(row, col(name)); }
  bool boolean(int row, const char* name) const { return boolean(row, col(name)); }

 private:
  // By position: only through a Col (above), never a hand-kept index.
  bool is_null(int row, int col) const { return PQgetisnull(res_.get(), row, col) != 0; }
  std::string_view text(int row, int col) const;
  std::string str(int row, int col) const { return std::string(text(row, col)); }
  std::optional<std::string> opt_str(int row, int col) const;
  // Like text(); valid while this Rows lives.
  std::optional<std::string_view> opt_text(int row, int col) const;
  int64_t int64(int row, int col) const;
  std::optional<int64_t> opt_int64(int row, int col) const;
  double number(int row, int col) const;
  bool boolean(int row, int col) const { return text(row, col) == "t"; }

  PgResultPtr res_;
  std::vector<int> timestamp_slot_;  // per column: its slot in timestamps_, or -1
  int timestamp_columns_ = 0;
  std::vector<char> timestamps_;  // per row, per slot: kIsoTimestampSize bytes; '\0' = as sent
};

// One text-format statement parameter; default-constructed is SQL NULL.
class Param {
 public:
  Param() = default;
  Param(std::nullopt_t) {}                                       // NOLINT
  Param(std::string_view v) : value_(v), null_(false) {}         // NOLINT
  Param(const std::string& v) : value_(v), null_(false) {}       // NOLINT
  Param(const char* v) : value_(v), null_(false) {}              // NOLINT
  Param(int64_t v) : value_(std::to_string(v)), null_(false) {}  // NOLINT
  Param(int v) : value_(std::to_string(v)), null_(false) {}      // NOLINT
  Param(bool v) : value_(v ? "t" : "f"), null_(false) {}         // NOLINT
  Param(double v);                                               // NOLINT
  template <class T>
  Param(const std::optional<T>& v) {  // NOLINT
    if (v) *this = Param(*v);
  }

  const char* c_str() const { return null_ ? nullptr : value_.c_str(); }

 private:
  std::string value_;
  bool null_ = true;
};

class [[nodiscard]] DbResult {
 public:
  DbResult(Rows rows) : v_(std::move(rows)) {}       // NOLINT
  DbResult(DbError error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  Rows& rows() { return std::get<0>(v_); }
  Rows* operator->() { return &std::get<0>(v_); }
  const DbError& error() const { return std::get<1>(v_); }

 private:
  std::variant<Rows, DbError> v_;
};

class Db {
 public:
  // `statement_timeout_ms` > 0 bounds every statement of the session
  // (PostgreSQL's statement_timeout); 0 leaves the server's setting.
  explicit Db(std::string conninfo, int statement_timeout_ms = 0);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // How the sends of the current request go out; set per request by its
  // RequestTx (common/request_tx.h) from the route, never from a
  // statement's text. Outside a request (the worker, the CLI): the default,
  // nothing repeated, nothing marked.
  struct SendMode {
    // The route's statements may be repeated: a send that fails because
    // the connection was lost, outside a transaction, is sent once more on
    // a new connection (a server restart costs no request). Off, a send
    // may have written before its reply was lost: never repeated, and not
    // started when it could still be running at the request's deadline.
    bool repeatable = false;
    // Every send outside a transaction runs READ ONLY: the connection's
    // default_transaction_read_only is on while its sends are a read
    // route's. Switched only when a send's mode differs from the
    // connection's, by a statement in the same round trip (db.cc,
    // kReadOnlyOn and kReadOnlyOff): a connection serving reads one after
    // another sends nothing more for it.
    bool read_only = false;
  };
  void set_send_mode(SendMode mode) { mode_ = mode; }
  SendMode send_mode() const { return mode_; }

  // Runs a named prepared statement: one send (see SendMode).
  DbResult exec(const Statement& stmt, const std::vector<Param>& params = {});

  // Runs several statements in one round trip (libpq pipeline mode) and
  // returns their results in order. Outside a transaction they run in one
  // implicit transaction (PostgreSQL commits it at the pipeline's Sync): if
  // one fails, the ones after it come back as errors and none of it
  // commits. Repeated like exec() (SendMode).
  struct Query {
    const Statement* stmt;
    std::vector<Param> params;
  };
  std::vector<DbResult> pipeline(const std::vector<Query>& queries);

  // Runs plain SQL without parameters (migrations).
  DbResult exec_sql(const char* sql);

  // `queries` in one round trip as one implicit transaction, committed when
  // the last one succeeded, all rolled back when one failed (the ones after
  // it come back as errors). Never repeated. Not started past the request's
  // deadline, like a send that may not be repeated: every result is then a
  // kTimeout error.
  std::vector<DbResult> write_pipeline(const std::vector<Query>& queries);

  // An explicit transaction over several round trips (common/request_tx.h
  // is its one user in the handlers): begin() sends BEGIN in the same round
  // trip as `queries` (libpq pipeline), which then run inside it, and
  // returns their results; the transaction is open when BEGIN succeeded,
  // whatever the queries did. While it is open a lost connection fails
  // every statement instead of reconnecting into autocommit.
  std::vector<DbResult> begin(const std::vector<Query>& queries);
  // Runs `queries`, then COMMIT, in one round trip; every result, one per
  // query, then COMMIT's. Rolls back when one of them fails (the failed one
  // and those after it are errors) or past the request's deadline (all
  // kTimeout errors).
  std::vector<DbResult> commit(const std::vector<Query>& queries);
  // Rolls the open transaction back (nothing when none is open).
  void rollback();
  bool transaction_open() const { return tx_open_; }

  bool in_transaction() const;
  // Nothing this connection writes commits after `deadline`: commit() then
  // rolls back and fails with kTimeout, and a send that may not be repeated
  // outside a transaction and could still be running then (it may take the
  // statement timeout) is not started (kTimeout). The serve loop sets it
  // per request, so that nothing commits once nginx may have given up
  // waiting: statements that each stay under the statement timeout can
  // take longer in total, and a request may have waited for a thread
  // before. None by default.
  void set_request_deadline(std::chrono::steady_clock::time_point deadline) {
    deadline_ = deadline;
  }
  // Connects if needed; false (and logs) when the server cannot be reached.
  bool ensure_connected();

  // Set per request (0: none; the default). With a tenant set, a statement
  // that names its tenant parameter (Statement::tenant_param) and is sent
  // with this very tenant's id in it runs as a statement of its own,
  // prepared on this connection with the id a constant of its text
  // (common/tenant_constant.h): on Citus, a plan kept for the tenant instead
  // of one made on every execution. The serve loop sets it for a read sent
  // to the node holding the tenant's shards (CITUS_READ_ROUTING=tenant,
  // docs/decisions/0134-a-tenants-reads-prepared-with-its-id.md).
  void set_tenant_constant(int64_t tenant) { tenant_constant_ = tenant; }

 private:
  // How a statement is prepared and run on this connection for this send:
  // as itself, or its tenant's form (set_tenant_constant).
  struct Form {
    const Statement* stmt = nullptr;
    std::string tenant_name;  // empty: the statement itself
    const char* name() const { return tenant_name.empty() ? stmt->name : tenant_name.c_str(); }
  };
  Form form_of(const Statement& stmt, const std::vector<Param>& params) const;
  bool is_prepared(const Form& form) const;
  // Queues its Parse in the pipeline.
  bool send_prepare(const Form& form, size_t n_params);
  void mark_prepared(const Form& form);
  // Before `form` is prepared: deallocates the tenants' forms when there
  // are kTenantStatementsKept and `form` would be one more.
  void bound_tenant_forms(const Form& form);

  DbResult run(const Statement& stmt, const std::vector<Param>& params);
  // Prepares `form` on this connection unless it already is.
  DbResult prepare(const Form& form, size_t n_params);
  // `queries` in one round trip; with `sync_after` > 0, the first that many
  // are a part of their own (a Sync after them: their own implicit
  // transaction, which a failure after them does not undo).
  std::vector<DbResult> run_pipeline(const std::vector<Query>& queries, size_t sync_after = 0);
  // A send outside a transaction, in the mode's read-only default (switched
  // first, in the same round trip, when the connection's differs).
  std::vector<DbResult> send_outside(const std::vector<Query>& queries);
  // A send outside a transaction that may not be repeated and could still
  // be running at the request's deadline.
  bool too_late_to_start() const;
  DbResult check(PGresult* raw);
  void disconnect();
  // Before a write that is never retried: a connection the server closed
  // while it sat idle (a restart) has its FATAL message and end of file
  // waiting to be read; it is dropped here, without sending anything, so
  // the write goes out on a new connection. (Reads find out by failing and
  // are retried.) One poll() of the socket.
  void drop_if_closed();

  std::string conninfo_;
  int statement_timeout_ms_ = 0;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  PGconn* conn_ = nullptr;
  SendMode mode_;
  // The connection's default_transaction_read_only, as last set here.
  bool session_read_only_ = false;
  // Set between begin()'s BEGIN and the transaction's end.
  bool tx_open_ = false;
  std::unordered_set<const Statement*> prepared_;
  int64_t tenant_constant_ = 0;
  std::unordered_set<std::string> prepared_tenant_forms_;
};

}  // namespace ca
