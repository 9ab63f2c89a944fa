// The operator's side (README "Configuration"): a handler that cannot start exits at once
// with one clear line on stderr, whatever is wrong with its configuration
// (never a crash, a hang or a process that answers 503 to everything); the
// CLI checks its command and arguments before it needs the database, and
// creates only accounts the API would accept; --help is exit 0 everywhere.
// `migrate` runs as the schema's owner and grants the runtime role its DML.
// The dev stack (scripts/run, scripts/supervise) restarts a handler process
// or the worker that dies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

int lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

const char* kHandler = "commerce-admin-products";

// --- handlers --------------------------------------------------------------------------

TEST(HandlerStartup, ATokenSecretFileThatIsNotARegularFileIsOneLine) {
  std::string fifo = state_dir() + "/operator-fifo-" + std::to_string(getpid());
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // A directory threw out of std::ifstream (abort); /dev/zero and
  // /dev/urandom were read until memory ran out; a FIFO blocked forever.
  for (const std::string& path :
       {std::string("/tmp"), std::string("/dev/zero"), std::string("/dev/urandom"), fifo}) {
    Outcome r = run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", path}});
    EXPECT_EQ(r.status, 2) << path;
    EXPECT_EQ(r.err,
              std::string(kHandler) + ": TOKEN_SECRET_FILE '" + path + "' is not a regular file\n");
  }
  unlink(fifo.c_str());
}

TEST(HandlerStartup, ATokenSecretFileThatIsMissingTooShortOrTooLargeIsOneLine) {
  std::string dir = state_dir();
  std::string big = dir + "/operator-big-secret", short_one = dir + "/operator-short-secret";
  std::ofstream(big) << std::string(4097, 'k');
  std::ofstream(short_one) << "only-31-bytes-of-secret-here-xx\n";
  Outcome large = run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", big}});
  EXPECT_EQ(large.status, 2);
  EXPECT_EQ(large.err, std::string(kHandler) + ": TOKEN_SECRET_FILE '" + big +
                           "' is larger than 4096 bytes\n");
  Outcome small = run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", short_one}});
  EXPECT_EQ(small.status, 2);
  EXPECT_EQ(small.err, std::string(kHandler) + ": TOKEN_SECRET_FILE '" + short_one +
                           "' holds 31 bytes; at least 32 are needed\n");
  Outcome missing = run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", dir + "/no-such-file"}});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, std::string(kHandler) + ": TOKEN_SECRET_FILE '" + dir +
                             "/no-such-file' cannot be read: No such file or directory\n");
  Outcome unset = run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", kUnset}});
  EXPECT_EQ(unset.status, 2);
  EXPECT_EQ(unset.err, std::string(kHandler) +
                           ": TOKEN_SECRET_FILE is not set (a file of >= 32 random bytes)\n");
}

TEST(HandlerStartup, ADatabaseUrlThatIsNotAConninfoIsOneLine) {
  Outcome r = run_with_stack_env(kHandler, {{"DATABASE_URL", "garbage"}});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, std::string(kHandler) +
                       ": DATABASE_URL is not a libpq conninfo: missing \"=\" after \"garbage\" "
                       "in connection info string\n");
}

TEST(HandlerStartup, ADatabaseReadUrlThatIsNotAConninfoOrUnreachableIsOneLine) {
  Outcome garbage = run_with_stack_env(kHandler, {{"DATABASE_READ_URL", "garbage"}});
  EXPECT_EQ(garbage.status, 2);
  EXPECT_EQ(garbage.err,
            std::string(kHandler) +
                ": DATABASE_READ_URL is not a libpq conninfo: missing \"=\" after \"garbage\" "
                "in connection info string\n");
  Outcome unreachable =
      run_with_stack_env(kHandler, {{"DATABASE_READ_URL", "host=/nonexistent dbname=x"}});
  EXPECT_EQ(unreachable.status, 1);
  EXPECT_EQ(lines(unreachable.err), 1) << unreachable.err;
  EXPECT_EQ(
      unreachable.err.rfind(std::string(kHandler) + ": error: database connection failed: ", 0), 0u)
      << unreachable.err;
}

// It used to start, log "serving", and answer 503 to every request.
TEST(HandlerStartup, ADatabaseItCannotReachIsOneLineAndExit1) {
  for (const std::string& url :
       {std::string("host=/nonexistent dbname=commerce_admin"),
        "host=" + state_dir() + "/run dbname=no_such_database user=postgres"}) {
    Outcome r = run_with_stack_env(kHandler, {{"DATABASE_URL", url}});
    EXPECT_EQ(r.status, 1) << url;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind(std::string(kHandler) + ": error: database connection failed: ", 0), 0u)
        << r.err;
  }
}

// METRICS_ALLOW is read by the handlers too (/metrics, common/ip_allowlist.h).
TEST(HandlerStartup, AMetricsAllowThatIsNotAListOfAddressesIsOneLine) {
  for (const auto& [value, why] : std::vector<std::pair<std::string, std::string>>{
           {"127.0.0.1 localhost", "'localhost' is not an IP address or CIDR range"},
           {"10.0.0.0/33", "'10.0.0.0/33' has a prefix length that is not 0 to 32"},
           {"127.0.0.1,::1", "'127.0.0.1,::1' is not an IP address or CIDR range"}}) {
    Outcome r = run_with_stack_env(kHandler, {{"METRICS_ALLOW", value}});
    EXPECT_EQ(r.status, 2) << value;
    EXPECT_EQ(r.err, std::string(kHandler) +
                         ": METRICS_ALLOW must list IP addresses or CIDR ranges separated by "
                         "spaces: " +
                         why + "\n");
  }
}

TEST(HandlerStartup, WithItsConfigurationRightItGetsAsFarAsItsSocket) {
  // The stack's own settings pass every check above; without a socket on fd 0
  // it stops there (one line, exit 2).
  Outcome r = run_with_stack_env(kHandler);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, std::string(kHandler) +
                       ": fd 0 is not a listening socket; start it with spawn-fcgi or systemd "
                       "socket activation, or pass --socket PATH\n");
}

// Anyone who can read the secret can mint tokens: a secret readable by group
// or others is said at start (the stack's own file, made with umask 077, is not).
// What a handler says at start-up after its configuration, with fd 0 not a
// socket (it then exits 2).
std::string no_socket_line() {
  return std::string(kHandler) +
         ": fd 0 is not a listening socket; start it with spawn-fcgi or systemd "
         "socket activation, or pass --socket PATH\n";
}

// The package's layout (root:commerce-admin 0640) is the quiet one: the
// service's group may read the secret; others may not, and the service's
// own user must not be able to write it (it could replace the key).
TEST(HandlerStartup, ATokenSecretFileReadableByOthersIsAWarning) {
  std::string open_one = state_dir() + "/operator-open-secret";
  std::ofstream(open_one) << std::string(48, 's');
  ASSERT_EQ(chmod(open_one.c_str(), 0444), 0);
  Outcome r = run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", open_one}});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, std::string(kHandler) + ": warning: TOKEN_SECRET_FILE '" + open_one +
                       "' is accessible by others (mode 0444); make it private: chmod 640\n" +
                       no_socket_line());
  // Read by the owner and the group only: the intended state, no warning.
  ASSERT_EQ(chmod(open_one.c_str(), 0440), 0);
  EXPECT_EQ(run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", open_one}}).err, no_socket_line());
  unlink(open_one.c_str());
}

// The test runs as the file's owner, as the service would with a secret it
// owns (the layout before the package moved it to root).
TEST(HandlerStartup, ATokenSecretFileTheServiceCanWriteIsAWarning) {
  std::string own_one = state_dir() + "/operator-own-secret";
  std::ofstream(own_one) << std::string(48, 's');
  ASSERT_EQ(chmod(own_one.c_str(), 0600), 0);
  Outcome r = run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", own_one}});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, std::string(kHandler) + ": warning: TOKEN_SECRET_FILE '" + own_one +
                       "' can be written by the user this process runs as (mode 0600); make it "
                       "root's, read-only to the service: chown root:<the service's group>, "
                       "chmod 640\n" +
                       no_socket_line());
  ASSERT_EQ(chmod(own_one.c_str(), 0400), 0);
  EXPECT_EQ(run_with_stack_env(kHandler, {{"TOKEN_SECRET_FILE", own_one}}).err, no_socket_line());
  unlink(own_one.c_str());
}

TEST(HandlerStartup, HelpIsExit0OnStdoutAndABadOptionExit2) {
  for (const char* program : {"commerce-admin-products", "commerce-admin-auth"}) {
    Outcome help = run_with_stack_env(std::string(program) + " --help", {{"DATABASE_URL", kUnset}});
    EXPECT_EQ(help.status, 0) << program;
    EXPECT_EQ(help.out.rfind(std::string("usage: ") + program + " [--threads N]", 0), 0u)
        << help.out;
    EXPECT_EQ(help.err, "");
    Outcome bad = run_with_stack_env(std::string(program) + " --bogus");
    EXPECT_EQ(bad.status, 2) << program;
    EXPECT_EQ(bad.err.rfind(std::string("usage: ") + program, 0), 0u) << bad.err;
  }
  Outcome worker = run_with_stack_env("commerce-admin-worker --help", {{"DATABASE_URL", kUnset}});
  EXPECT_EQ(worker.status, 0);
  EXPECT_EQ(worker.out.rfind("usage: commerce-admin-worker [--loop]\n", 0), 0u) << worker.out;
  EXPECT_EQ(run_with_stack_env("commerce-admin-worker --bogus").status, 2);
}

// --- the CLI ---------------------------------------------------------------------------

TEST(Cli, ItsCommandIsCheckedBeforeTheDatabaseIsNeeded) {
  // No database at all: a bad command is still the usage and exit 2.
  for (const std::string& args :
       {std::string("bogus"), std::string(""), std::string("migrate --sql-dir"),
        std::string("health now"), std::string("user create --email a@b.local")}) {
    Outcome r =
        run_with_stack_env("commerce-admin " + args, {{"DATABASE_URL", kUnset}}, "password1\n");
    EXPECT_EQ(r.status, 2) << args;
    // The usage (or the option's own line), never the missing database.
    EXPECT_EQ(r.err.find("is not set"), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(r.err.rfind("usage: commerce-admin", 0) == 0 ||
                r.err == "commerce-admin: user create needs --email EMAIL and --name NAME\n")
        << args << ": " << r.err;
  }
  Outcome help = run_with_stack_env("commerce-admin --help", {{"DATABASE_URL", kUnset}});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("[--if-missing]"), std::string::npos) << help.out;
  // A good command without a database (and no env file) says so in one line.
  Outcome health = run_with_stack_env(
      "commerce-admin health",
      {{"DATABASE_URL", kUnset}, {"COMMERCE_ADMIN_ENV_FILE", "/nonexistent/env"}});
  EXPECT_EQ(health.status, 2);
  EXPECT_EQ(lines(health.err), 1);
  EXPECT_EQ(health.err.rfind("commerce-admin: DATABASE_URL is not set", 0), 0u) << health.err;
}

// Without DATABASE_URL in its environment the CLI takes it from the env file
// (/etc/commerce-admin/env, here COMMERCE_ADMIN_ENV_FILE), read as systemd
// reads an EnvironmentFile=: a quoted conninfo with spaces whole
// (docs/decisions/0090-cli-reads-the-env-file.md).
TEST(Cli, TakesDatabaseUrlFromTheEnvFileWhenItsEnvironmentHasNone) {
  std::string url = run_with_stack_env("printenv DATABASE_URL").out;
  while (!url.empty() && url.back() == '\n') url.pop_back();
  ASSERT_NE(url.find(' '), std::string::npos) << url;  // a conninfo of several words
  std::string file = state_dir() + "/operator-env-" + std::to_string(getpid());
  {
    std::ofstream out(file);
    out << "# as packaging/env writes it\nDATABASE_URL=\"" << url << "\"\nLOG_LEVEL=info\n";
  }
  Outcome health = run_with_stack_env(
      "commerce-admin health", {{"DATABASE_URL", kUnset}, {"COMMERCE_ADMIN_ENV_FILE", file}});
  EXPECT_EQ(health.status, 0) << health.err;
  EXPECT_EQ(health.out, "ok\n");
  // The environment wins over the file: a LOG_LEVEL the file does not allow
  // is not read when the command line sets a good one, and is when it does not.
  {
    std::ofstream out(file);
    out << "DATABASE_URL=\"" << url << "\"\nLOG_LEVEL=loud\n";
  }
  EXPECT_EQ(run_with_stack_env("commerce-admin health", {{"DATABASE_URL", kUnset},
                                                         {"COMMERCE_ADMIN_ENV_FILE", file},
                                                         {"LOG_LEVEL", "info"}})
                .status,
            0);
  Outcome bad = run_with_stack_env(
      "commerce-admin health",
      {{"DATABASE_URL", kUnset}, {"COMMERCE_ADMIN_ENV_FILE", file}, {"LOG_LEVEL", kUnset}});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("LOG_LEVEL must be one of"), std::string::npos) << bad.err;
  unlink(file.c_str());
}

TEST(Cli, UserCreateRefusesWhatTheApiWouldRefuse) {
  std::string email = unique("cli") + "@test.local";
  const std::string create = "commerce-admin user create --email " + email + " --name ";
  struct Case {
    std::string name;
    std::string password;
    std::string error;
  };
  const std::string kPassword =
      "commerce-admin: the password (first line of stdin) must be UTF-8 text of 8 to 1024 "
      "characters, as login accepts\n";
  const std::vector<Case> cases{
      {"Long", std::string(1025, 'p'), kPassword},
      {"Short", "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", kPassword},  // 5 characters, 10 bytes
      {"Bytes", "\xFF\xFE\xFD\xFC\xFB\xFA\xF9\xF8", kPassword},
      {shell_quote("   "), "password1",
       "commerce-admin: user create needs --email EMAIL and --name NAME\n"},
      {std::string(256, 'n'), "password1",
       "commerce-admin: --name must be UTF-8 text of at most 255 characters\n"},
  };
  for (const Case& c : cases) {
    Outcome r = run_with_stack_env(create + c.name, {}, c.password + "\n");
    EXPECT_EQ(r.status, 2) << c.name;
    EXPECT_EQ(r.err, c.error) << c.name;
  }
  EXPECT_EQ(sql("SELECT count(*) FROM users WHERE lower(email) = lower('" + email + "')"),
            (std::vector<std::string>{"0"}));

  // At the limits it is created, trimmed, and can log in.
  std::string password = std::string(1023, 'p') + "\xC3\xA9";  // 1024 characters
  Outcome made = run_with_stack_env(
      "commerce-admin user create --email ' " + email + " ' --name '  Cli User '", {},
      password + "\n");
  ASSERT_EQ(made.status, 0) << made.err;
  EXPECT_EQ(
      sql("SELECT name || '|' || email FROM users WHERE lower(email) = lower('" + email + "')"),
      (std::vector<std::string>{"Cli User|" + email}));
  EXPECT_EQ(login_response(email, password).status, 200);
  // --if-missing leaves it as it is.
  Outcome again = run_with_stack_env(create + "Other --if-missing", {}, "password1\n");
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.out, "user " + email + " exists already\n");
}

// --- migrate and the two database roles ----------------------------------------------

// The role a stack conninfo names (scripts/run writes `... user=NAME`).
std::string user_of(const std::string& conninfo) {
  size_t at = conninfo.find("user=");
  if (at == std::string::npos) return "<no user>";
  return conninfo.substr(at + 5, conninfo.find(' ', at) - at - 5);
}

TEST(Cli, MigrateRunsAsTheOwnerAndGrantsTheRuntimeRole) {
  const std::string runtime = user_of(stack_env("DATABASE_URL").value_or(""));
  const std::string owner = user_of(stack_env("MIGRATE_DATABASE_URL").value_or(""));
  ASSERT_NE(runtime, owner);
  Outcome again = run_with_stack_env("commerce-admin migrate");
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.err, "");
  EXPECT_NE(again.out.find("migrations up to date (0 applied now, "), std::string::npos)
      << again.out;
  EXPECT_NE(
      again.out.find("runtime role " + runtime + ": DML on every table but schema_migrations\n"),
      std::string::npos)
      << again.out;

  // A table a later migration adds is the owner's, and the runtime role
  // may write it but not empty or drop it.
  const std::string table = "privilege_probe_" + std::to_string(getpid());
  const std::string dir = state_dir() + "/" + table;
  const std::string version = "900_" + table + ".sql";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  {
    std::ofstream migration(dir + "/" + version);
    migration << "CREATE TABLE " << table << " (id bigserial PRIMARY KEY, n integer);\n";
  }
  Outcome added = run_with_stack_env("commerce-admin migrate --sql-dir " + shell_quote(dir));
  EXPECT_EQ(added.status, 0) << added.err;
  EXPECT_EQ(added.out.rfind("applied " + version + "\n", 0), 0u) << added.out;
  EXPECT_EQ(sql("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = '" + table + "'"),
            (std::vector<std::string>{owner}));
  const std::string as_runtime = "psql -X -q -At -v ON_ERROR_STOP=1 -U " + runtime + " -c ";
  Outcome write =
      run_with_stack_env(as_runtime + shell_quote("INSERT INTO " + table + " (n) VALUES (1)"));
  EXPECT_EQ(write.status, 0) << write.err;
  Outcome truncate = run_with_stack_env(as_runtime + shell_quote("TRUNCATE " + table));
  EXPECT_NE(truncate.status, 0);
  EXPECT_NE(truncate.err.find("permission denied for table " + table), std::string::npos)
      << truncate.err;
  Outcome drop = run_with_stack_env(as_runtime + shell_quote("DROP TABLE " + table));
  EXPECT_NE(drop.status, 0);
  EXPECT_NE(drop.err.find("must be owner of table " + table), std::string::npos) << drop.err;
  sql("DROP TABLE " + table);
  sql("DELETE FROM schema_migrations WHERE version = '" + version + "'");
  std::remove((dir + "/" + version).c_str());
  rmdir(dir.c_str());
}

TEST(Cli, MigrateWithTheRuntimeRolesConninfoChangesNothing) {
  // Without MIGRATE_DATABASE_URL migrate connects with DATABASE_URL: the
  // runtime role, which may not create anything.
  Outcome r = run_with_stack_env("commerce-admin migrate", {{"MIGRATE_DATABASE_URL", kUnset}});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "commerce-admin: schema_migrations: permission denied for schema public\n");
  Outcome bad = run_with_stack_env("commerce-admin migrate", {{"MIGRATE_DATABASE_URL", "garbage"}});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err,
            "commerce-admin: MIGRATE_DATABASE_URL is not a libpq conninfo: missing \"=\" after "
            "\"garbage\" in connection info string\n");
}

// --- the dev stack's supervision (scripts/supervise) ----------------------------------

pid_t read_pid(const std::string& file) {
  std::ifstream in(file);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

// The program a process runs ("" when it is gone).
std::string exe_of(pid_t pid) {
  char buf[4096];
  ssize_t n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

bool runs(pid_t pid, const std::string& program) {
  std::string exe = exe_of(pid);
  return exe.size() > program.size() &&
         exe.compare(exe.size() - program.size() - 1, std::string::npos, "/" + program) == 0;
}

// Waits (up to 20 s) until `pid_file` names a process other than `old`
// that runs `program`; its pid, or 0.
pid_t wait_for_replacement(const std::string& pid_file, pid_t old, const std::string& program) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t pid = read_pid(pid_file);
    if (pid > 0 && pid != old && runs(pid, program)) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

// The session a process belongs to (field 6 of /proc/<pid>/stat, after the
// parenthesised name, which may hold spaces); 0 when it is gone.
pid_t session_of(pid_t pid) {
  std::string stat = file_text("/proc/" + std::to_string(pid) + "/stat");
  size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string state;
  long ppid = 0, pgrp = 0, session = 0;
  fields >> state >> ppid >> pgrp >> session;
  return static_cast<pid_t>(session);
}

// scripts/test sends scripts/run's stderr to $CA_STATE_DIR/run.log.
std::string run_log() { return file_text(state_dir() + "/run.log"); }

// Each handler process leads a session of its own, as each instance of a
// handler's systemd template unit does: the kernel shares the CPU between
// sessions, and the processes of a group sharing one session cost every
// request 20-30 % under load (docs/performance.md, "Scheduling").
TEST(DevStack, EachHandlerProcessLeadsASessionOfItsOwn) {
  int handlers = 0;
  for (const char* group : {"auth", "tenants", "team-members", "categories", "products", "orders",
                            "announcements", "webhooks"}) {
    for (int slot = 1; slot <= 2; ++slot) {
      pid_t pid = read_pid(state_dir() + "/run/" + group + "." + std::to_string(slot) + ".pid");
      if (pid <= 0) continue;
      ++handlers;
      EXPECT_EQ(session_of(pid), pid) << group << " slot " << slot;
    }
  }
  EXPECT_GE(handlers, 2);
}

TEST(DevStack, AHandlerProcessThatDiesIsRestartedAndItsDeathLogged) {
  const std::string program = "commerce-admin-products";
  const std::string slot1 = state_dir() + "/run/products.1.pid";
  const std::string slot2 = state_dir() + "/run/products.2.pid";
  pid_t killed = read_pid(slot1), stopped = read_pid(slot2);
  ASSERT_TRUE(runs(killed, program)) << killed;
  ASSERT_TRUE(runs(stopped, program)) << stopped;
  Scope s = fresh_scope(admin_token());

  // One dies at once, the other stops as asked (SIGTERM, exit 0): both are
  // replaced, and only then can the group answer.
  ASSERT_EQ(kill(killed, SIGKILL), 0);
  ASSERT_EQ(kill(stopped, SIGTERM), 0);
  pid_t new1 = wait_for_replacement(slot1, killed, program);
  pid_t new2 = wait_for_replacement(slot2, stopped, program);
  ASSERT_NE(new1, 0) << "slot 1 was not restarted";
  ASSERT_NE(new2, 0) << "slot 2 was not restarted";
  EXPECT_EQ(session_of(new1), new1);
  EXPECT_EQ(session_of(new2), new2);
  for (int i = 0; i < 8; ++i) {
    HttpResponse r = http("GET", "/api/v2/admin/products", s.call());
    EXPECT_EQ(r.status, 200) << r.body;
  }
  const std::string log = run_log();
  EXPECT_NE(log.find("supervise: commerce-admin-products (slot 1, pid " + std::to_string(killed) +
                     ") exited with status 137 (signal 9, KILL); restarting in 1 s\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("supervise: commerce-admin-products (slot 2, pid " + std::to_string(stopped) +
                     ") exited with status 0; restarting in 1 s\n"),
            std::string::npos)
      << log;
}

TEST(DevStack, AWorkerThatDiesIsRestartedAndItsDeathLogged) {
  const std::string pid_file = state_dir() + "/run/worker.1.pid";
  pid_t killed = read_pid(pid_file);
  ASSERT_EQ(find_stack_workers(), (std::vector<pid_t>{killed}));
  ASSERT_EQ(kill(killed, SIGKILL), 0);
  pid_t replacement = wait_for_replacement(pid_file, killed, "commerce-admin-worker");
  ASSERT_NE(replacement, 0) << "the worker was not restarted";
  EXPECT_EQ(find_stack_workers(), (std::vector<pid_t>{replacement}));
  const std::string log = run_log();
  EXPECT_NE(log.find("supervise: commerce-admin-worker (slot 1, pid " + std::to_string(killed) +
                     ") exited with status 137 (signal 9, KILL); restarting in 1 s\n"),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace ca::test
