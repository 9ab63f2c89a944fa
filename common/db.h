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

namespace statement_text {
constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
constexpr bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
// `word` (upper case) at `at` in `sql`, in any case.
constexpr bool word_at(std::string_view sql, size_t at, std::string_view word) {
  if (at + word.size() > sql.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (lower(sql[at + i]) != lower(word[i])) return false;
  }
  return true;
}
// True when `word` stands in `sql` as a whole word, in any case.
constexpr bool has_word(std::string_view sql, std::string_view word) {
  for (size_t i = 0; i + word.size() <= sql.size(); ++i) {
    if (!word_at(sql, i, word)) continue;
    bool starts = i == 0 || !word_char(sql[i - 1]);
    bool ends = i + word.size() == sql.size() || !word_char(sql[i + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}
}  // namespace statement_text

// True for a statement that only reads, which is safe to repeat on a fresh
// connection: "SELECT ...", or "WITH ..." whose common table expressions
// modify nothing (the list statements: a total and a page). Conservative: a
// WITH that names INSERT, UPDATE or DELETE anywhere (FOR UPDATE included) is
// not repeated.
constexpr bool statement_reads(std::string_view sql) {
  using namespace statement_text;
  size_t start = 0;
  while (start < sql.size() && (sql[start] == ' ' || sql[start] == '\n' || sql[start] == '\t')) {
    ++start;
  }
  sql.remove_prefix(start);
  if (word_at(sql, 0, "SELECT")) return true;
  if (!word_at(sql, 0, "WITH")) return false;
  return !has_word(sql, "INSERT") && !has_word(sql, "UPDATE") && !has_word(sql, "DELETE");
}

// A prepared statement: its name on every connection and its text. Whether
// it only reads (statement_reads()) is decided once, when it is made (at
// compile time for a constant), not on every execution: the text of a
// write is thousands of characters.
struct Statement {
  constexpr Statement() = default;
  constexpr Statement(const char* n, const char* s) : name(n), sql(s), reads(statement_reads(s)) {}
  const char* name = nullptr;
  const char* sql = nullptr;
  bool reads = false;
};

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

  // Runs a named prepared statement. Outside a transaction a plain SELECT
  // that fails because the connection was lost is retried once on a new
  // connection (a server restart costs no request). A write is never
  // retried: its reply may be what was lost, and running it twice is worse.
  DbResult exec(const Statement& stmt, const std::vector<Param>& params = {});

  // Runs several statements in one round trip (libpq pipeline mode) and
  // returns their results in order. They run in one implicit transaction: if
  // one fails, the ones after it come back as errors too. Not inside a
  // Transaction. Retried like exec() when every statement is a plain SELECT.
  struct Query {
    const Statement* stmt;
    std::vector<Param> params;
  };
  std::vector<DbResult> pipeline(const std::vector<Query>& queries);

  // Runs plain SQL without parameters (BEGIN, COMMIT, migrations).
  DbResult exec_sql(const char* sql);

  // For writes outside a transaction (common/write.h): `queries` in one round
  // trip as one implicit transaction, committed when the last one succeeded,
  // all rolled back when one failed (the ones after it come back as errors).
  // Never retried. Not started past the request's deadline, like a write by
  // exec(): every result is then a kTimeout error.
  std::vector<DbResult> write_pipeline(const std::vector<Query>& queries);

  bool in_transaction() const;
  // Nothing this connection writes commits after `deadline`: a Transaction
  // then rolls back and commit() fails with kTimeout, and a write outside a
  // transaction that could still be running then (it may take the statement
  // timeout) is not started (kTimeout). The serve loop sets it per request,
  // so that nothing commits once nginx may have given up waiting: statements
  // that each stay under the statement timeout can take longer in total,
  // and a request may have waited for a thread before. None by default.
  void set_request_deadline(std::chrono::steady_clock::time_point deadline) {
    deadline_ = deadline;
  }
  // Connects if needed; false (and logs) when the server cannot be reached.
  bool ensure_connected();

  // The request transaction: one transaction around a whole request, so
  // that what its handler writes and what the request records about itself
  // (common/idempotency.h) commit together. begin_request() sends BEGIN in
  // the same round trip as `queries` (libpq pipeline), which then run inside
  // it, and returns their results; the transaction is open when BEGIN
  // succeeded, whatever the queries did (request_open()). While it is open, a
  // Transaction joins it instead of starting its own: its BEGIN and COMMIT
  // are skipped, and one that ends without commit() marks the request
  // transaction failed (request_failed()); nothing of it may then commit. A
  // handler must not write after a Transaction of its own ended without
  // commit (without a request transaction that write would commit).
  std::vector<DbResult> begin_request(const std::vector<Query>& queries);
  bool request_open() const { return request_tx_; }
  bool request_failed() const { return request_failed_; }
  // Runs `queries`, then COMMIT, in one round trip. Fails (and rolls back)
  // when one of them fails or past the request's deadline, like commit().
  DbResult commit_request(const std::vector<Query>& queries);
  // The same, with every result: one per query, then COMMIT's. On a failure
  // (rolled back) the failed one and those after it are errors.
  std::vector<DbResult> commit_request_results(const std::vector<Query>& queries);
  // A request transaction that must not commit any more (a write of it
  // failed): request_failed() becomes true.
  void fail_request() {
    if (request_tx_) request_failed_ = true;
  }
  // Rolls the request transaction back (nothing when none is open).
  void rollback_request();

 private:
  DbResult run(const Statement& stmt, const std::vector<Param>& params);
  // Prepares `stmt` on this connection unless it already is.
  DbResult prepare(const Statement& stmt);
  std::vector<DbResult> run_pipeline(const std::vector<Query>& queries);
  DbResult check(PGresult* raw);
  void disconnect();
  // Before a write that is never retried: a connection the server closed
  // while it sat idle (a restart) has its FATAL message and end of file
  // waiting to be read; it is dropped here, without sending anything, so
  // the write goes out on a new connection. (Reads find out by failing and
  // are retried.) One poll() of the socket.
  void drop_if_closed();

  friend class Transaction;

  std::string conninfo_;
  int statement_timeout_ms_ = 0;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  PGconn* conn_ = nullptr;
  // Set between a Transaction's BEGIN and its end: a lost connection then
  // fails every statement instead of reconnecting into autocommit.
  bool tx_open_ = false;
  // A request transaction is open (begin_request()); a Transaction in it
  // ended without commit.
  bool request_tx_ = false;
  bool request_failed_ = false;
  std::unordered_set<const Statement*> prepared_;
};

// A transaction on `db`: BEGIN at construction, ROLLBACK at destruction
// unless commit() succeeded. Inside a request transaction it is part of that
// one (see Db::begin_request): commit() then commits nothing yet.
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // False when BEGIN failed; begin_error() then says why (answer it with
  // Error::database: a database that cannot be reached is a 503).
  bool began() const { return began_; }
  const DbError& begin_error() const { return begin_error_; }
  DbResult commit();

 private:
  Db& db_;
  bool began_ = false;
  bool done_ = false;
  bool joined_ = false;  // part of the request transaction
  DbError begin_error_;
};

}  // namespace ca
