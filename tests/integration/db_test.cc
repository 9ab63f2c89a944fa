// The Db class (common/db.h) against the stack's real PostgreSQL: the time
// limits a handler's connection runs with.
#include "db.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

std::string conninfo() {
  return "host=" + state_dir() + "/run dbname=commerce_admin user=postgres";
}

TEST(DbTimeouts, AStatementPastTheStatementTimeoutIsCancelled) {
  Db db(conninfo(), /*statement_timeout_ms=*/200);
  DbResult slow = db.exec_sql("SELECT pg_sleep(2)");
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().kind, DbErrorKind::kTimeout);
  EXPECT_EQ(slow.error().sqlstate, "57014");
  // The connection serves the next statement.
  DbResult fast = db.exec_sql("SELECT 1");
  EXPECT_TRUE(fast.ok());
}

TEST(DbTimeouts, ATransactionPastTheCommitDeadlineRollsBack) {
  std::string table = "db_test_" + std::to_string(::getpid());
  ASSERT_TRUE(sql("CREATE TABLE " + table + " (n integer)").empty());
  Db db(conninfo());
  {
    Transaction tx(db);
    ASSERT_TRUE(tx.began());
    ASSERT_TRUE(db.exec_sql(("INSERT INTO " + table + " VALUES (1)").c_str()).ok());
    db.set_request_deadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    DbResult committed = tx.commit();
    ASSERT_FALSE(committed.ok());
    EXPECT_EQ(committed.error().kind, DbErrorKind::kTimeout);
  }
  EXPECT_EQ(sql("SELECT count(*) FROM " + table), (std::vector<std::string>{"0"}));
  EXPECT_FALSE(db.in_transaction());
  // Before its deadline the same connection commits.
  db.set_request_deadline(std::chrono::steady_clock::now() + std::chrono::seconds(60));
  {
    Transaction tx(db);
    ASSERT_TRUE(db.exec_sql(("INSERT INTO " + table + " VALUES (2)").c_str()).ok());
    EXPECT_TRUE(tx.commit().ok());
  }
  EXPECT_EQ(sql("SELECT n FROM " + table), (std::vector<std::string>{"2"}));
  sql("DROP TABLE " + table);
}

// Outside a transaction a write commits when it ends, which may be as late
// as the statement timeout: one that could still be running at the
// request's deadline is not started. Reads are not held back.
TEST(DbTimeouts, AWriteThatCouldEndPastTheDeadlineIsNotStarted) {
  std::string table = "db_test_w_" + std::to_string(::getpid());
  ASSERT_TRUE(sql("CREATE TABLE " + table + " (n integer)").empty());
  std::string insert_sql = "INSERT INTO " + table + " VALUES (1)";
  std::string select_sql = "SELECT count(*) FROM " + table;
  Statement insert{"db_test_insert", insert_sql.c_str()};
  Statement select{"db_test_select", select_sql.c_str()};
  Db db(conninfo(), /*statement_timeout_ms=*/5000);

  db.set_request_deadline(std::chrono::steady_clock::now() + std::chrono::seconds(2));
  DbResult refused = db.exec(insert);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, DbErrorKind::kTimeout);
  DbResult read = db.exec(select);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->text(0, 0), "0");

  db.set_request_deadline(std::chrono::steady_clock::now() + std::chrono::seconds(60));
  EXPECT_TRUE(db.exec(insert).ok());
  EXPECT_EQ(sql(select_sql), (std::vector<std::string>{"1"}));
  sql("DROP TABLE " + table);
}

}  // namespace
}  // namespace ca::test
