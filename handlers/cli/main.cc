// commerce-admin: the operator CLI.
//
//   commerce-admin migrate [--sql-dir DIR]
//   commerce-admin user create --email E --name N   (password read from stdin)
//   commerce-admin health
//
// Reads DATABASE_URL (and LOG_LEVEL) from the environment like the handlers.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli.h"
#include "config.h"
#include "db.h"
#include "jwt.h"

namespace {

void usage() {
  std::fprintf(stderr,
               "usage: commerce-admin migrate [--sql-dir DIR]\n"
               "       commerce-admin user create --email EMAIL --name NAME  (password on stdin)\n"
               "       commerce-admin health\n");
}

int health(ca::Db& db) {
  static const ca::Statement kPing{"cli_health", "SELECT 1"};
  ca::DbResult r = db.exec(kPing);
  std::printf("%s\n", r.ok() ? "ok" : "database unavailable");
  return r.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  std::string command = argv[1];
  if (command == "--help" || command == "-h") {
    usage();
    return 0;
  }
  ca::Config config = ca::config_from_env_or_exit("commerce-admin", ca::ConfigNeeds::kDatabase);
  ca::crypto_init();
  ca::Db db(config.database_url);
  if (!db.ensure_connected()) return 1;

  if (command == "migrate") {
    const char* dir = std::getenv("SQL_DIR") ? std::getenv("SQL_DIR") : CA_SQL_DIR;
    if (argc == 4 && std::strcmp(argv[2], "--sql-dir") == 0) {
      dir = argv[3];
    } else if (argc != 2) {
      usage();
      return 2;
    }
    return ca::cli_migrate(db, dir);
  }
  if (command == "user" && argc >= 3 && std::strcmp(argv[2], "create") == 0) {
    return ca::cli_user_create(db, argc - 3, argv + 3);
  }
  if (command == "health" && argc == 2) return health(db);
  usage();
  return 2;
}
