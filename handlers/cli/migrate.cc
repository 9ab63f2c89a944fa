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

}  // namespace

int cli_migrate(Db& db, const char* sql_dir) {
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
        !ok_or_print(db.exec_sql("COMMIT"), version)) {
      (void)db.exec_sql("ROLLBACK");
      return 1;
    }
    std::printf("applied %s\n", version.c_str());
    ++applied;
  }
  std::printf("migrations up to date (%d applied now, %zu in total)\n", applied, files.size());
  return 0;
}

}  // namespace ca
