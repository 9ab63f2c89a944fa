// /etc/commerce-admin/env as the operator CLI reads it (decision 0080): the
// units get it through systemd's EnvironmentFile=, a shell has nothing, so
// `commerce-admin` run by hand reads the file itself when DATABASE_URL is
// not in its environment. Parsed as systemd parses an EnvironmentFile=
// (systemd 252, src/basic/env-file.c), not as a shell would: one KEY=VALUE
// per line, `#` or `;` starts a comment line, whitespace around the key and
// the value's leading and trailing whitespace are dropped, the value may be
// quoted ('...' literally, "..." with \" \\ \` \$ and backslash-newline
// escapes; quoted and unquoted parts join up), a backslash outside quotes
// takes the next character literally and a backslash at the end of a line
// continues it, and a line without `=` or with a key that is not a valid
// variable name is ignored.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ca {

// The packaged file's path.
inline constexpr const char* kEnvFilePath = "/etc/commerce-admin/env";

// The assignments in `text`, in order (a later one of the same key wins when
// they are applied, as with systemd).
std::vector<std::pair<std::string, std::string>> parse_env_file(const std::string& text);

// When DATABASE_URL is not in the environment: reads `path` (the
// COMMERCE_ADMIN_ENV_FILE variable when set, else kEnvFilePath) and sets
// every variable it assigns that the environment does not have, so that a
// setting given on the command line still wins. A file that does not exist
// is no error (the caller then reports the missing DATABASE_URL); one that
// cannot be read is one line on stderr naming it and why, exit 2.
void env_file_fill_environment_or_exit(const char* program);

}  // namespace ca
