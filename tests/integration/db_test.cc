// The Db class (common/db.h) against the stack's real PostgreSQL: the time
// limits a handler's connection runs with; the two database roles the
// stack runs with (docs/decisions/0370-two-database-roles.md); and where a
// handler's reads and writes connect (DATABASE_READ_URL).
#include "db.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "own_handler.h"
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
  std::string insert_1 = "INSERT INTO " + table + " VALUES (1)";
  std::string insert_2 = "INSERT INTO " + table + " VALUES (2)";
  Statement first{"db_test_tx_insert_1", insert_1.c_str()};
  Statement second{"db_test_tx_insert_2", insert_2.c_str()};
  Db db(conninfo());
  std::vector<DbResult> begun = db.begin({{&first, {}}});
  ASSERT_TRUE(begun[0].ok());
  ASSERT_TRUE(db.transaction_open());
  db.set_request_deadline(std::chrono::steady_clock::now() - std::chrono::seconds(1));
  std::vector<DbResult> committed = db.commit({});
  ASSERT_FALSE(committed.back().ok());
  EXPECT_EQ(committed.back().error().kind, DbErrorKind::kTimeout);
  EXPECT_EQ(sql("SELECT count(*) FROM " + table), (std::vector<std::string>{"0"}));
  EXPECT_FALSE(db.in_transaction());
  EXPECT_FALSE(db.transaction_open());
  // Before its deadline the same connection commits.
  db.set_request_deadline(std::chrono::steady_clock::now() + std::chrono::seconds(60));
  EXPECT_TRUE(db.begin({}).empty());
  ASSERT_TRUE(db.transaction_open());
  EXPECT_TRUE(db.commit({{&second, {}}}).back().ok());
  EXPECT_EQ(sql("SELECT n FROM " + table), (std::vector<std::string>{"2"}));
  sql("DROP TABLE " + table);
}

// Outside a transaction a write commits when it ends, which may be as late
// as the statement timeout: a send of a route whose sends may not be
// repeated (Db::SendMode, a write route's) that could still be running at
// the request's deadline is not started. A read route's are not held back.
TEST(DbTimeouts, AWriteThatCouldEndPastTheDeadlineIsNotStarted) {
  std::string table = "db_test_w_" + std::to_string(::getpid());
  ASSERT_TRUE(sql("CREATE TABLE " + table + " (n integer)").empty());
  std::string insert_sql = "INSERT INTO " + table + " VALUES (1)";
  std::string select_sql = "SELECT count(*) AS n FROM " + table;
  Statement insert{"db_test_insert", insert_sql.c_str()};
  Statement select{"db_test_select", select_sql.c_str()};
  Db db(conninfo(), /*statement_timeout_ms=*/5000);

  db.set_request_deadline(std::chrono::steady_clock::now() + std::chrono::seconds(2));
  DbResult refused = db.exec(insert);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, DbErrorKind::kTimeout);
  db.set_send_mode({/*repeatable=*/true, /*read_only=*/true});
  DbResult read = db.exec(select);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->text(0, "n"), "0");

  db.set_send_mode({});
  db.set_request_deadline(std::chrono::steady_clock::now() + std::chrono::seconds(60));
  EXPECT_TRUE(db.exec(insert).ok());
  EXPECT_EQ(sql(select_sql), (std::vector<std::string>{"1"}));
  sql("DROP TABLE " + table);
}

// A read route's sends run READ ONLY (Db::SendMode, docs/decisions/0130):
// a statement that writes is refused (25006) and writes nothing, while reads
// answer as before. The connection stays read-only from one read send to
// the next (nothing more is sent for it), and a write route's send turns it
// back in its own round trip: the same write then goes through.
TEST(DbSendMode, AReadRoutesSendIsReadOnly) {
  std::string table = "db_test_ro_" + std::to_string(::getpid());
  ASSERT_TRUE(sql("CREATE TABLE " + table + " (n integer)").empty());
  std::string insert_sql = "INSERT INTO " + table + " VALUES (1)";
  std::string select_sql = "SELECT count(*) AS n FROM " + table;
  Statement insert{"db_test_ro_insert", insert_sql.c_str()};
  Statement select{"db_test_ro_select", select_sql.c_str()};
  Db db(conninfo());
  db.set_send_mode({/*repeatable=*/true, /*read_only=*/true});
  DbResult refused = db.exec(insert);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().sqlstate, "25006");
  std::vector<DbResult> piped = db.pipeline({{&select, {}}, {&insert, {}}});
  ASSERT_EQ(piped.size(), 2u);
  ASSERT_TRUE(piped[0].ok());
  EXPECT_EQ(piped[0]->text(0, "n"), "0");
  ASSERT_FALSE(piped[1].ok());
  EXPECT_EQ(piped[1].error().sqlstate, "25006");
  EXPECT_EQ(sql(select_sql), (std::vector<std::string>{"0"}));
  ASSERT_TRUE(db.exec(select).ok());
  DbResult still_refused = db.exec(insert);
  ASSERT_FALSE(still_refused.ok());
  EXPECT_EQ(still_refused.error().sqlstate, "25006");
  db.set_send_mode({});
  EXPECT_TRUE(db.exec(insert).ok());
  db.set_send_mode({/*repeatable=*/true, /*read_only=*/true});
  EXPECT_FALSE(db.exec(insert).ok());
  db.set_send_mode({});
  std::vector<DbResult> written = db.pipeline({{&insert, {}}, {&select, {}}});
  ASSERT_TRUE(written[1].ok());
  EXPECT_EQ(written[1]->text(0, "n"), "2");
  EXPECT_EQ(sql(select_sql), (std::vector<std::string>{"2"}));
  sql("DROP TABLE " + table);
}

// --- database roles ------------------------------------------------------------------
//
// The stack's processes connect with $CA_STATE_DIR/env's DATABASE_URL (the
// runtime role); `commerce-admin migrate` with its MIGRATE_DATABASE_URL (the
// owner).

PgConn connect_as(const std::string& conninfo) {
  PgConn conn(PQconnectdb(conninfo.c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect with " << conninfo << ": " << PQerrorMessage(conn.get());
    return nullptr;
  }
  return conn;
}

// Runs `query` inside a transaction that is rolled back, whatever happens:
// "ok", or the SQLSTATE and message it failed with.
std::string try_and_roll_back(PGconn* conn, const std::string& query) {
  EXPECT_TRUE(exec_ok(conn, "BEGIN"));
  PgResult r(PQexec(conn, query.c_str()));
  ExecStatusType st = PQresultStatus(r.get());
  std::string outcome = "ok";
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
    const char* message = PQresultErrorField(r.get(), PG_DIAG_MESSAGE_PRIMARY);
    outcome = std::string(state ? state : "?") + " " + (message ? message : "?");
  }
  EXPECT_TRUE(exec_ok(conn, "ROLLBACK"));
  return outcome;
}

// The first column of each row of `query` on `conn` ("<null>" for NULL).
std::vector<std::string> rows_of(PGconn* conn, const std::string& query) {
  PgResult r(PQexec(conn, query.c_str()));
  EXPECT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK) << query << ": " << PQerrorMessage(conn);
  std::vector<std::string> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    out.push_back(PQgetisnull(r.get(), i, 0) ? "<null>" : PQgetvalue(r.get(), i, 0));
  }
  return out;
}

std::string runtime_url() { return stack_env("DATABASE_URL").value_or("<unset>"); }
std::string owner_url() { return stack_env("MIGRATE_DATABASE_URL").value_or("<unset>"); }

// Decision 0134: with a tenant set, a statement naming its tenant parameter
// and sent with that tenant's id runs as a statement of its own, prepared
// with the id written into its text; with another id, as itself. At most
// kTenantStatementsKept of them per connection; one more deallocates them
// first, in a read route's read-only session too.
const Statement kTenantForm{"db_test_tenant_form",
                            "SELECT $1::bigint + 0 AS tenant, $2::text AS other", 1};
const Statement kTenantForms{"db_test_list_forms",
                             "SELECT name, statement FROM pg_prepared_statements "
                             "WHERE name LIKE 'db\\_test\\_tenant\\_form%' ORDER BY name"};

std::map<std::string, std::string> prepared_forms(Db& db) {
  DbResult r = db.exec(kTenantForms);
  EXPECT_TRUE(r.ok());
  std::map<std::string, std::string> out;
  for (int i = 0; r.ok() && i < r->size(); ++i) out[r->str(i, "name")] = r->str(i, "statement");
  return out;
}

TEST(DbTenantConstant, ATenantsStatementIsPreparedWithItsIdAndOnlyForIt) {
  Db db(conninfo());
  db.set_tenant_constant(42);
  DbResult own = db.exec(kTenantForm, {int64_t{42}, "a"});
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_EQ(own->text(0, "tenant"), "42");
  EXPECT_EQ(own->text(0, "other"), "a");
  DbResult other = db.exec(kTenantForm, {int64_t{7}, "b"});
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_EQ(other->text(0, "tenant"), "7");
  std::vector<DbResult> piped =
      db.pipeline({{&kTenantForm, {int64_t{42}, "c"}}, {&kTenantForm, {int64_t{42}, "d"}}});
  ASSERT_TRUE(piped[1].ok());
  EXPECT_EQ(piped[1]->text(0, "other"), "d");
  EXPECT_EQ(prepared_forms(db),
            (std::map<std::string, std::string>{
                {"db_test_tenant_form", kTenantForm.sql},
                {"db_test_tenant_form@42",
                 "SELECT '42'::bigint::bigint + 0 AS tenant, $2::text AS other"}}));
  // No tenant set (single-node, a write, the worker): the statement itself.
  Db plain(conninfo());
  ASSERT_TRUE(plain.exec(kTenantForm, {int64_t{42}, "e"}).ok());
  EXPECT_EQ(prepared_forms(plain),
            (std::map<std::string, std::string>{{"db_test_tenant_form", kTenantForm.sql}}));
}

TEST(DbTenantConstant, AConnectionKeepsAtMostSoManyTenantsStatements) {
  Db db(conninfo());
  db.set_send_mode({/*repeatable=*/true, /*read_only=*/true});
  const int64_t kept = static_cast<int64_t>(kTenantStatementsKept);
  for (int64_t tenant = 1; tenant <= kept + 1; ++tenant) {
    db.set_tenant_constant(tenant);
    DbResult r = db.exec(kTenantForm, {tenant, "x"});
    ASSERT_TRUE(r.ok()) << tenant << ": " << r.error().message;
    EXPECT_EQ(r->int64(0, "tenant"), tenant);
    if (tenant == kept) {
      EXPECT_EQ(prepared_forms(db).size(), kTenantStatementsKept);
    }
  }
  std::map<std::string, std::string> left = prepared_forms(db);
  EXPECT_EQ(left.size(), 1u);
  EXPECT_EQ(left.count("db_test_tenant_form@" + std::to_string(kept + 1)), 1u);
}

TEST(DbRoles, TheRuntimeRoleCannotDropAlterOrTruncateATableNorCreateAnything) {
  PgConn runtime = connect_as(runtime_url());
  ASSERT_TRUE(runtime);
  const std::string denied = "42501 ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"DROP TABLE products", "must be owner of table products"},
      {"ALTER TABLE products ADD COLUMN probe integer", "must be owner of table products"},
      {"ALTER TABLE orders DISABLE TRIGGER ALL", "must be owner of table orders"},
      {"CREATE INDEX ON products (stock)", "must be owner of table products"},
      {"TRUNCATE products", "permission denied for table products"},
      {"TRUNCATE sessions", "permission denied for table sessions"},
      {"DROP FUNCTION ca_ts(timestamptz)", "must be owner of function ca_ts"},
      {"CREATE TABLE privilege_probe (n integer)", "permission denied for schema public"},
      {"CREATE FUNCTION privilege_probe() RETURNS integer LANGUAGE sql AS 'SELECT 1'",
       "permission denied for schema public"},
      {"CREATE TEMP TABLE privilege_probe (n integer)",
       "permission denied to create temporary tables in database \"commerce_admin\""},
      {"CREATE SCHEMA privilege_probe", "permission denied for database commerce_admin"},
      {"SELECT version FROM schema_migrations", "permission denied for table schema_migrations"},
      {"DELETE FROM schema_migrations", "permission denied for table schema_migrations"},
  };
  for (const auto& [query, message] : cases) {
    EXPECT_EQ(try_and_roll_back(runtime.get(), query), denied + message) << query;
  }
  // What the handlers do, it may: read and write rows, draw ids, call the
  // schema's functions.
  for (const std::string& query :
       {std::string("SELECT count(*) FROM products"),
        std::string("UPDATE tenants SET name = name WHERE id = 0"),
        std::string("DELETE FROM sessions WHERE false"),
        std::string("SELECT nextval(pg_get_serial_sequence('tenants', 'id'))"),
        std::string("SELECT ca_ts(now()), ca_json_compact_size('{}'::jsonb)")}) {
    EXPECT_EQ(try_and_roll_back(runtime.get(), query), "ok") << query;
  }
  // No role attribute that would bypass the above, and the owner of nothing.
  EXPECT_EQ(rows_of(runtime.get(),
                    "SELECT concat_ws(',', rolsuper, rolcreatedb, rolcreaterole, rolbypassrls, "
                    "rolreplication) FROM pg_roles WHERE rolname = current_user"),
            (std::vector<std::string>{"f,f,f,f,f"}));
  EXPECT_EQ(rows_of(runtime.get(),
                    "SELECT (SELECT count(*) FROM pg_class WHERE pg_get_userbyid(relowner) = "
                    "current_user) + (SELECT count(*) FROM pg_proc WHERE "
                    "pg_get_userbyid(proowner) = current_user) + (SELECT count(*) FROM "
                    "pg_namespace WHERE pg_get_userbyid(nspowner) = current_user)"),
            (std::vector<std::string>{"0"}));
}

// Every table a migration made, those of migrations added later included,
// is the owner's, and the runtime role has exactly the DML on it: migrate
// grants it after each migration (handlers/cli/migrate.cc).
TEST(DbRoles, EveryTableIsTheOwnersAndTheRuntimeRoleHasItsDmlOnly) {
  PgConn owner = connect_as(owner_url());
  PgConn runtime = connect_as(runtime_url());
  ASSERT_TRUE(owner && runtime);
  std::string owner_name = rows_of(owner.get(), "SELECT current_user").at(0);
  std::string runtime_name = rows_of(runtime.get(), "SELECT current_user").at(0);
  EXPECT_NE(owner_name, runtime_name);
  EXPECT_EQ(rows_of(owner.get(),
                    "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = "
                    "current_database()"),
            (std::vector<std::string>{owner_name}));
  // The db_test_ tables are the timeout tests' own (made as postgres).
  EXPECT_EQ(rows_of(owner.get(),
                    "SELECT c.relname || ' ' || pg_get_userbyid(c.relowner) FROM pg_class c "
                    "WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', "
                    "'S', 'v', 'm') AND pg_get_userbyid(c.relowner) <> current_user AND "
                    "c.relname NOT LIKE 'db\\_test\\_%' ORDER BY 1"),
            std::vector<std::string>{});
  EXPECT_EQ(rows_of(runtime.get(),
                    "SELECT c.relname || ': ' || concat_ws(',', "
                    "  has_table_privilege(c.oid, 'SELECT'), has_table_privilege(c.oid, 'INSERT'), "
                    "  has_table_privilege(c.oid, 'UPDATE'), has_table_privilege(c.oid, 'DELETE'), "
                    "  has_table_privilege(c.oid, 'TRUNCATE'), "
                    "  has_table_privilege(c.oid, 'REFERENCES'), "
                    "  has_table_privilege(c.oid, 'TRIGGER')) "
                    "FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace "
                    "AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE 'db\\_test\\_%' "
                    "AND c.relname <> 'schema_migrations' AND (NOT has_table_privilege(c.oid, "
                    "'SELECT') OR NOT has_table_privilege(c.oid, 'INSERT') OR NOT "
                    "has_table_privilege(c.oid, 'UPDATE') OR NOT has_table_privilege(c.oid, "
                    "'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE, REFERENCES, TRIGGER')) "
                    "ORDER BY 1"),
            std::vector<std::string>{});
  EXPECT_EQ(rows_of(runtime.get(),
                    "SELECT c.relname FROM pg_class c WHERE c.relnamespace = "
                    "'public'::regnamespace AND CASE WHEN c.relkind = 'S' THEN NOT "
                    "has_sequence_privilege(c.oid, 'USAGE') END ORDER BY 1"),
            std::vector<std::string>{});
  EXPECT_EQ(rows_of(runtime.get(),
                    "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = "
                    "'public'::regnamespace AND NOT has_function_privilege(p.oid, 'EXECUTE') "
                    "ORDER BY 1"),
            std::vector<std::string>{});
  // The check above is not empty-handed: the schema has tables to check.
  EXPECT_GE(std::stoi(rows_of(runtime.get(),
                              "SELECT count(*) FROM pg_class WHERE relnamespace = "
                              "'public'::regnamespace AND relkind = 'r'")
                          .at(0)),
            15);
}

// pg_restore loads data with an empty search_path, and computes generated
// columns and checks CHECK constraints as it loads: a function they call
// that calls another unqualified failed there, and the restore left
// products, announcements and tenants empty (docs/howto/restore.md, run
// by scripts/check-systemd). Every function such an
// expression calls carries search_path = public (sql/051); a later
// CREATE OR REPLACE without it would drop it.
TEST(DbRestore, EveryFunctionAGeneratedColumnOrConstraintCallsHasItsSearchPath) {
  const char* used_by_expressions =
      "FROM pg_depend d JOIN pg_proc p ON p.oid = d.refobjid "
      "WHERE d.refclassid = 'pg_proc'::regclass "
      "AND d.classid IN ('pg_attrdef'::regclass, 'pg_constraint'::regclass, "
      "'pg_class'::regclass) AND p.pronamespace = 'public'::regnamespace";
  EXPECT_EQ(sql(std::string("SELECT DISTINCT p.oid::regprocedure::text ") + used_by_expressions +
                " AND NOT coalesce('search_path=public' = ANY (p.proconfig), false) ORDER BY 1"),
            std::vector<std::string>{});
  // Not empty-handed: products.api_json and the tenants' settings check.
  EXPECT_GE(
      std::stoi(sql(std::string("SELECT count(DISTINCT p.oid) ") + used_by_expressions).at(0)), 2);
}

// The shape functions (sql/058, decision 0135) print compact JSON from
// named members: a NULL member is null, not a NULL object (the `||` bodies
// before it turned the whole object into NULL); the object of no row, its
// key NULL, is NULL; members come in the shape's order, without spaces.
TEST(ShapeFunctions, ANullMemberPrintsNullAndTheObjectOfNoRowIsNull) {
  EXPECT_EQ(sql_one("SELECT ca_category_json(id => 1, tenant_id => 2, name => NULL, "
                    "description => 'say \"hi\"', is_published => true, "
                    "created_at => '2026-01-02 03:04:05.5+00', updated_at => NULL)"),
            R"({"id":1,"tenant_id":2,"name":null,"description":"say \"hi\"",)"
            R"("is_published":true,"created_at":"2026-01-02T03:04:05.500000Z",)"
            R"("updated_at":null})");
  EXPECT_EQ(sql_one("SELECT ca_order_json(id => 5, user_id => 6, tenant_id => 7, "
                    "address_id => 8, payment_type => 1, total_amount => 12.50, "
                    "status => 'pending', created_at => NULL, updated_at => NULL, "
                    "items => NULL, items_count => 3, owner => NULL, "
                    "address => '{\"id\":8}')"),
            R"({"id":5,"user_id":6,"tenant_id":"7","address_id":8,"payment_type":1,)"
            R"("total_amount":"12.50","status":"pending","created_at":null,)"
            R"("updated_at":null,"items_count":3,"user":null,"address":{"id":8}})");
  EXPECT_EQ(sql_one("SELECT ca_user_json(id => NULL, tenant_id => 1, name => 'x', "
                    "email => 'x@y', phone => NULL, country_code => NULL, "
                    "email_verified_at => NULL, phone_verified_at => NULL, user_type => 'u', "
                    "photo_url => NULL, theme => 't', language => 'l', timezone => NULL, "
                    "email_marketing => true, email_system => true, push_system => true, "
                    "is_active => true, created_at => now(), updated_at => now()) IS NULL"),
            "t");
  // No shape is built by concatenating JSON text any more.
  EXPECT_EQ(sql_one("SELECT count(*) FROM pg_proc WHERE proname ~ '^ca_.*_json$' "
                    "AND pronamespace = 'public'::regnamespace AND prosrc LIKE '%''{\"%'"),
            "0");
}

// Handlers and the worker hold their connections as the runtime role: no
// client of the service's database but this test's is another role.
TEST(DbRoles, TheStacksProcessesConnectAsTheRuntimeRole) {
  ASSERT_EQ(http("GET", "/healthz").status, 200);
  Scope s = fresh_scope(admin_token());
  ASSERT_EQ(http("GET", "/api/v2/admin/products", s.call()).status, 200);
  PgConn runtime = connect_as(runtime_url());
  ASSERT_TRUE(runtime);
  std::string runtime_name = rows_of(runtime.get(), "SELECT current_user").at(0);
  runtime.reset();
  std::vector<std::string> roles =
      sql("SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database() "
          "AND backend_type = 'client backend' AND pid <> pg_backend_pid()");
  EXPECT_EQ(roles, (std::vector<std::string>{runtime_name}));
}

// --- DATABASE_READ_URL ----------------------------------------------------------------

// A handler with DATABASE_READ_URL connects its reads (GET) there and its
// writes to DATABASE_URL (decision 0128: on Citus a worker and the
// coordinator). Here both name the stack's database, told apart by their
// application_name in pg_stat_activity.
TEST(ReadUrl, AHandlersReadsUseDatabaseReadUrlAndItsWritesDatabaseUrl) {
  const std::string reads = unique("ca-reads"), writes = unique("ca-writes");
  OwnHandler handler("commerce-admin-categories", "read-url",
                     {{"DATABASE_URL", runtime_url() + " application_name=" + writes},
                      {"DATABASE_READ_URL", runtime_url() + " application_name=" + reads}});
  auto backends = [](const std::string& name) {
    return sql_one("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + name + "'");
  };
  std::string token = admin_token();
  const std::map<std::string, std::string> tenant = {
      {"HTTP_X_TENANT_ID", to_string(create_tenant(token, unique("Read url")))}};

  OwnAnswer read =
      handler.call({.uri = "/api/v2/admin/category", .token = token, .params = tenant});
  EXPECT_EQ(read.status, "Status: 200 OK");
  EXPECT_EQ(read.body, R"({"success":true,"data":{"data":[],"current_page":1,"last_page":1,)"
                       R"("per_page":15,"total":0}})");
  // The start-up probe of DATABASE_URL is closed; the read's connection stays.
  EXPECT_EQ(backends(reads), "1");
  EXPECT_EQ(backends(writes), "0");

  OwnAnswer write = handler.call({.method = "POST",
                                  .uri = "/api/v2/admin/category/create",
                                  .token = token,
                                  .body = R"({"name":"Written"})",
                                  .params = tenant});
  EXPECT_EQ(write.status, "Status: 201 Created") << write.body;
  EXPECT_EQ(backends(writes), "1");
  EXPECT_EQ(backends(reads), "1");

  // The read after the write sees it.
  Json listed = json_parse(
      handler.call({.uri = "/api/v2/admin/category", .token = token, .params = tenant}).body);
  EXPECT_EQ(json_get_int(json_get(listed.get(), "data"), "total").value_or(-1), 1);
}

}  // namespace
}  // namespace ca::test
