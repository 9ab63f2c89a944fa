// commerce-admin: the operator CLI.
//
//   commerce-admin migrate [--sql-dir DIR]
//   commerce-admin user create --email E --name N [--if-missing]   (password on stdin)
//   commerce-admin health
//
// Reads DATABASE_URL (and LOG_LEVEL) from the environment like the handlers.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli.h"
#include "config.h"
#include "db.h"
#include "jwt.h"

namespace {

void usage(FILE* out = stderr) {
  std::fprintf(out,
               "usage: commerce-admin migrate [--sql-dir DIR]\n"
               "       commerce-admin user create --email EMAIL --name NAME [--if-missing]\n"
               "           (password: the first line of stdin; --if-missing: an existing\n"
               "           account with that email is left as it is, exit 0)\n"
               "       commerce-admin health\n"
               "  DATABASE_URL (and LOG_LEVEL) come from the environment.\n");
}

int health(ca::Db& db) {
  static const ca::Statement kPing{"cli_health", "SELECT 1"};
  ca::DbResult r = db.exec(kPing);
  std::printf("%s\n", r.ok() ? "ok" : "database unavailable");
  return r.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // The command and its arguments are checked before the database is needed.
  std::string command = argc >= 2 ? argv[1] : "";
  if (command == "--help" || command == "-h") {
    usage(stdout);
    return 0;
  }
  const char* sql_dir = std::getenv("SQL_DIR") ? std::getenv("SQL_DIR") : CA_SQL_DIR;
  ca::UserToCreate user;
  if (command == "migrate") {
    if (argc == 4 && std::strcmp(argv[2], "--sql-dir") == 0) {
      sql_dir = argv[3];
    } else if (argc != 2) {
      usage();
      return 2;
    }
  } else if (command == "user" && argc >= 3 && std::strcmp(argv[2], "create") == 0) {
    if (int rc = ca::cli_user_create_parse(argc - 3, argv + 3, &user); rc != 0) return rc;
  } else if (!(command == "health" && argc == 2)) {
    usage();
    return 2;
  }

  ca::Config config = ca::config_from_env_or_exit("commerce-admin", ca::ConfigNeeds::kDatabase);
  ca::crypto_init();
  ca::Db db(config.database_url);
  if (!db.ensure_connected()) return 1;
  if (command == "migrate") return ca::cli_migrate(db, sql_dir);
  if (command == "user") return ca::cli_user_create(db, user);
  return health(db);
}
