#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli.h"

namespace ca {
namespace {

const Statement kApplied{"cli_migration_applied",
                         "SELECT 1 FROM schema_migrations WHERE version = $1"};
const Statement kRecord{"cli_migration_record",
                        "INSERT INTO schema_migrations (version) VALUES ($1)"};

bool ok_or_print(const DbResult& r, const std::string& what) {
  if (r.ok()) return true;
  std::fprintf(stderr, "commerce-admin: %s: %s\n", what.c_str(), r.error().message.c_str());
  return false;
}

// The runtime role's privileges (docs/decisions/0370-two-database-roles.md):
// the DML every handler, the worker and `user create` need on what the
// owner (the migrating role) has in schema public, and nothing more: no
// TRUNCATE, REFERENCES or TRIGGER, no ownership, no CREATE. schema_migrations
// is the owner's alone. Run after every migration, in its transaction, so a
// table a migration adds is usable by the handlers as soon as it exists,
// whichever later migration fails. Extension functions (pg_trgm, btree_gin)
// are left out: they are not the owner's to grant, and PUBLIC may call them.
// The role name arrives as a parameter (set_config); format's %I quotes it.
// On Citus a GRANT of a distributed table is a command to each of its
// shards, and a reference table may not be changed after a parallel
// command to a table that refers to it: one connection per node (a custom
// setting only, on a single PostgreSQL).
const Statement kRuntimeRole{"cli_runtime_role",
                             "SELECT set_config('commerce_admin.runtime_role', $1, true)"};
const char* const kGrantRuntime = R"sql(
DO $grant$
DECLARE
  runtime text := current_setting('commerce_admin.runtime_role');
  f regprocedure;
BEGIN
  PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %I',
                 runtime);
  EXECUTE format('REVOKE ALL ON TABLE schema_migrations FROM %I', runtime);
  EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO %I', runtime);
  FOR f IN
    SELECT p.oid FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
      AND pg_get_userbyid(p.proowner) = current_user
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                      AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('GRANT EXECUTE ON ROUTINE %s TO %I', f, runtime);
  END LOOP;
END
$grant$)sql";

// Grants the runtime role its privileges inside the open transaction; no-op
// without a runtime role (one role owns and runs the schema).
bool grant_runtime(Db& db, const std::string& runtime_role, const std::string& what) {
  if (runtime_role.empty()) return true;
  return ok_or_print(db.exec(kRuntimeRole, {runtime_role}), what + ": runtime role") &&
         ok_or_print(db.exec_sql(kGrantRuntime), what + ": grants to " + runtime_role);
}

}  // namespace

int cli_migrate(Db& db, const char* sql_dir, const std::string& runtime_role) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(sql_dir, ec)) {
    if (entry.path().extension() == ".sql") files.push_back(entry.path());
  }
  if (ec) {
    std::fprintf(stderr, "commerce-admin: cannot read migrations in %s: %s\n", sql_dir,
                 ec.message().c_str());
    return 1;
  }
  std::sort(files.begin(), files.end());

  // A session-level advisory lock serialises concurrent migrate runs; NOTICEs
  // ("already exists, skipping") are noise on a second run.
  if (!ok_or_print(db.exec_sql("SET client_min_messages = warning"), "settings") ||
      !ok_or_print(db.exec_sql("SELECT pg_advisory_lock(727274)"), "lock")) {
    return 1;
  }
  if (!ok_or_print(db.exec_sql("CREATE TABLE IF NOT EXISTS schema_migrations ("
                               " version text PRIMARY KEY,"
                               " applied_at timestamptz NOT NULL DEFAULT now())"),
                   "schema_migrations")) {
    return 1;
  }
  int applied = 0;
  for (const fs::path& file : files) {
    std::string version = file.filename().string();
    DbResult seen = db.exec(kApplied, {version});
    if (!ok_or_print(seen, version)) return 1;
    if (!seen->empty()) continue;
    std::ifstream in(file);
    std::string sql((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!ok_or_print(db.exec_sql("BEGIN"), version)) return 1;
    if (!ok_or_print(db.exec_sql(sql.c_str()), version) ||
        !ok_or_print(db.exec(kRecord, {version}), version) ||
        !grant_runtime(db, runtime_role, version) || !ok_or_print(db.exec_sql("COMMIT"), version)) {
      (void)db.exec_sql("ROLLBACK");
      return 1;
    }
    std::printf("applied %s\n", version.c_str());
    ++applied;
  }
  std::printf("migrations up to date (%d applied now, %zu in total)\n", applied, files.size());
  // Again with nothing applied: a runtime role created (or its grants
  // lost) since the last migration gets them now.
  if (!runtime_role.empty()) {
    if (!ok_or_print(db.exec_sql("BEGIN"), "grants")) return 1;
    if (!grant_runtime(db, runtime_role, "grants") ||
        !ok_or_print(db.exec_sql("COMMIT"), "grants")) {
      (void)db.exec_sql("ROLLBACK");
      return 1;
    }
    std::printf("runtime role %s: DML on every table but schema_migrations\n",
                runtime_role.c_str());
  }
  return 0;
}

}  // namespace ca
