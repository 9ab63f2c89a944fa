// Operator commands of the `commerce-admin` CLI. Each returns an exit code
// and prints one clear line on failure.
#pragma once

#include <string>

#include "db.h"

namespace ca {

// Applies every sql/NNN_*.sql file not yet in schema_migrations, in name
// order, each in its own transaction. Safe to run concurrently and repeatedly.
// `db` is the owner's connection (MIGRATE_DATABASE_URL); a non-empty
// `runtime_role` (DATABASE_URL's role, when it is another one) gets the DML
// on every table and sequence with each migration, and once more at the end.
int cli_migrate(Db& db, const char* sql_dir, const std::string& runtime_role);

// `user create`: what its options and stdin asked for, checked by the rules
// of POST /team-members/{tenantId} for a new account.
struct UserToCreate {
  std::string email;
  std::string name;
  std::string password;
  bool if_missing = false;
};

// Reads `--email E --name N [--if-missing]` and the password (the first line
// of stdin), before any database is needed: 0, or 2 after one line on stderr.
int cli_user_create_parse(int argc, char** argv, UserToCreate* out);

// Creates the account (or with if_missing leaves an existing one alone).
int cli_user_create(Db& db, const UserToCreate& user);

}  // namespace ca
