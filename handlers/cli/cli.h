// Operator commands of the `commerce-admin` CLI. Each returns an exit code
// and prints one clear line on failure.
#pragma once

#include "db.h"

namespace ca {

// Applies every sql/NNN_*.sql file not yet in schema_migrations, in name
// order, each in its own transaction. Safe to run concurrently and repeatedly.
int cli_migrate(Db& db, const char* sql_dir);

// `--email E --name N`; the password is the first line of stdin.
int cli_user_create(Db& db, int argc, char** argv);

}  // namespace ca
