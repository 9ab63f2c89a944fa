#include "config.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>

#include "log.h"

namespace ca {
namespace {

[[noreturn]] void die(const char* program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program, message.c_str());
  std::exit(2);
}

int64_t int_env(const char* program, const char* name, int64_t fallback, int64_t min, int64_t max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max) {
    die(program, std::string(name) + " must be an integer from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got '" + text + "'");
  }
  return v;
}

bool bool_env(const char* program, const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return false;
  std::string v(text);
  if (v == "1" || v == "true" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "no") return false;
  die(program, std::string(name) + " must be 0 or 1, got '" + v + "'");
}

std::string str_env(const char* name) {
  const char* text = std::getenv(name);
  return text ? text : "";
}

}  // namespace

Config config_from_env_or_exit(const char* program, ConfigNeeds needs) {
  Config c;
  log_set_program(program);
  std::string level = str_env("LOG_LEVEL");
  if (!level.empty()) {
    LogLevel parsed;
    if (!log_parse_level(level.c_str(), &parsed)) {
      die(program, "LOG_LEVEL must be one of debug, info, warn, error, got '" + level + "'");
    }
    log_set_level(parsed);
  }

  c.database_url = str_env("DATABASE_URL");
  if (c.database_url.empty()) {
    die(program,
        "DATABASE_URL is not set (a libpq conninfo, e.g. 'host=/run/postgresql "
        "dbname=commerce_admin')");
  }

  if (needs == ConfigNeeds::kDatabaseAndSecret) {
    std::string path = str_env("TOKEN_SECRET_FILE");
    if (path.empty()) die(program, "TOKEN_SECRET_FILE is not set (a file of >= 32 random bytes)");
    std::ifstream in(path, std::ios::binary);
    if (!in) die(program, "TOKEN_SECRET_FILE '" + path + "' cannot be read");
    c.token_secret.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    while (!c.token_secret.empty() &&
           (c.token_secret.back() == '\n' || c.token_secret.back() == '\r')) {
      c.token_secret.pop_back();
    }
    if (c.token_secret.size() < 32) {
      die(program, "TOKEN_SECRET_FILE '" + path + "' holds " +
                       std::to_string(c.token_secret.size()) + " bytes; at least 32 are needed");
    }
  }

  c.token_ttl_seconds = int_env(program, "TOKEN_TTL_SECONDS", 86400, 1, 366LL * 86400);
  c.webhook_allow_private_targets = bool_env(program, "WEBHOOK_ALLOW_PRIVATE_TARGETS");
  c.webhook_max_attempts = static_cast<int>(int_env(program, "WEBHOOK_MAX_ATTEMPTS", 10, 1, 100));
  c.webhook_retry_base_seconds =
      static_cast<int>(int_env(program, "WEBHOOK_RETRY_BASE_SECONDS", 30, 1, 86400));
  c.webhook_timeout_seconds =
      static_cast<int>(int_env(program, "WEBHOOK_TIMEOUT_SECONDS", 10, 1, 300));
  c.db_statement_timeout_seconds =
      static_cast<int>(int_env(program, "DB_STATEMENT_TIMEOUT_SECONDS", 20, 1, 25));
  c.push_gateway_url = str_env("PUSH_GATEWAY_URL");
  c.push_gateway_token = str_env("PUSH_GATEWAY_TOKEN");
  return c;
}

}  // namespace ca
