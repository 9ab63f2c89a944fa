// commerce-admin: the operator CLI.
//
//   commerce-admin migrate [--sql-dir DIR]
//   commerce-admin user create --email E --name N [--if-missing]   (password on stdin)
//   commerce-admin health
//
// Reads DATABASE_URL (and LOG_LEVEL) from the environment like the handlers,
// and when DATABASE_URL is not there, from /etc/commerce-admin/env (the
// units' EnvironmentFile=, parsed as systemd parses it; what the environment
// sets wins): run by hand as root or as the commerce-admin account, it uses
// the service's settings (docs/decisions/0090-cli-reads-the-env-file.md).
// `migrate` connects with MIGRATE_DATABASE_URL (the schema owner) when it is
// set, and grants DATABASE_URL's role the runtime privileges.
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli.h"
#include "config.h"
#include "db.h"
#include "env_file.h"
#include "jwt.h"

namespace {

void usage(FILE* out = stderr) {
  std::fprintf(out,
               "usage: commerce-admin migrate [--sql-dir DIR]\n"
               "       commerce-admin user create --email EMAIL --name NAME [--if-missing]\n"
               "           (password: the first line of stdin; --if-missing: an existing\n"
               "           account with that email is left as it is, exit 0)\n"
               "       commerce-admin health\n"
               "  DATABASE_URL (and LOG_LEVEL) come from the environment or, when it has no\n"
               "  DATABASE_URL, from /etc/commerce-admin/env (COMMERCE_ADMIN_ENV_FILE names\n"
               "  another file; the environment wins over the file). migrate connects\n"
               "  with MIGRATE_DATABASE_URL (the role that owns the schema) when it is set,\n"
               "  and grants DATABASE_URL's role the DML the handlers need.\n");
}

int health(ca::Db& db) {
  static const ca::Statement kPing{"cli_health", "SELECT 1"};
  ca::DbResult r = db.exec(kPing);
  std::printf("%s\n", r.ok() ? "ok" : "database unavailable");
  return r.ok() ? 0 : 1;
}

// The role a libpq conninfo logs in as: its user, else libpq's default
// (PGUSER, else the operating system user), as PQconnectdb would pick it.
std::string conninfo_user(const std::string& conninfo) {
  std::string user;
  if (PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), nullptr)) {
    for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
      if (std::strcmp(o->keyword, "user") == 0 && o->val != nullptr) user = o->val;
    }
    PQconninfoFree(options);
  }
  if (!user.empty()) return user;
  if (PQconninfoOption* defaults = PQconndefaults()) {
    for (PQconninfoOption* o = defaults; o->keyword != nullptr; ++o) {
      if (std::strcmp(o->keyword, "user") == 0 && o->val != nullptr) user = o->val;
    }
    PQconninfoFree(defaults);
  }
  return user;
}

// MIGRATE_DATABASE_URL: empty when unset; exit 2 with one line when it is
// not a conninfo.
std::string migrate_url_or_exit() {
  const char* text = std::getenv("MIGRATE_DATABASE_URL");
  if (text == nullptr || *text == '\0') return "";
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(text, &parse_error);
  if (options == nullptr) {
    std::string why = parse_error ? parse_error : "out of memory";
    PQfreemem(parse_error);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    std::fprintf(stderr, "commerce-admin: MIGRATE_DATABASE_URL is not a libpq conninfo: %s\n",
                 why.c_str());
    std::exit(2);
  }
  PQconninfoFree(options);
  return text;
}

int migrate(const ca::Config& config, const char* sql_dir) {
  std::string owner_url = migrate_url_or_exit();
  // Without MIGRATE_DATABASE_URL one role owns and runs the schema: no grants.
  std::string runtime_role = owner_url.empty() ? "" : conninfo_user(config.database_url);
  ca::Db db(owner_url.empty() ? config.database_url : owner_url);
  if (!db.ensure_connected()) return 1;
  static const ca::Statement kCurrentUser{"cli_current_user", "SELECT current_user AS name"};
  ca::DbResult me = db.exec(kCurrentUser);
  if (!me.ok()) {
    std::fprintf(stderr, "commerce-admin: %s\n", me.error().message.c_str());
    return 1;
  }
  if (me->text(0, "name") == runtime_role) runtime_role.clear();
  return ca::cli_migrate(db, sql_dir, runtime_role);
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

  ca::env_file_fill_environment_or_exit("commerce-admin");
  ca::Config config = ca::config_from_env_or_exit("commerce-admin", ca::ConfigNeeds::kDatabase);
  ca::crypto_init();
  if (command == "migrate") return migrate(config, sql_dir);
  ca::Db db(config.database_url);
  if (!db.ensure_connected()) return 1;
  if (command == "user") return ca::cli_user_create(db, user);
  return health(db);
}
