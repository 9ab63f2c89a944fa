#include "config.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "log.h"
#include "mail_message.h"
#include "small_file.h"

namespace ca {
namespace {

constexpr const char* kDefaultMetricsAllow = "127.0.0.1 ::1";

[[noreturn]] void die(const char* program, const std::string& message) {
  std::fprintf(stderr, "%s%s: %s\n", log_priority_prefix(LogLevel::kError), program,
               message.c_str());
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

// True when the mode bits of `st` let this process's user write the file:
// its owner with the owner's write bit, a member of its group with the
// group's, or anyone with the others'. (Root's power to write anything is
// not counted: the units run the handlers as the service account.)
bool writable_by_this_user(const struct stat& st) {
  if ((st.st_mode & S_IWOTH) != 0) return true;
  if (st.st_uid == geteuid() && (st.st_mode & S_IWUSR) != 0) return true;
  if ((st.st_mode & S_IWGRP) == 0) return false;
  if (st.st_gid == getegid()) return true;
  int n = getgroups(0, nullptr);
  if (n <= 0) return false;
  std::vector<gid_t> groups(static_cast<size_t>(n));
  n = getgroups(n, groups.data());
  for (int i = 0; i < n; ++i) {
    if (groups[static_cast<size_t>(i)] == st.st_gid) return true;
  }
  return false;
}

// The secret file: a regular file of at most kMaxSecretBytes (its stat in *file). Opened without
// blocking, so a FIFO is refused instead of waited on, and read with a bound,
// so /dev/zero is refused instead of read until memory runs out.
constexpr size_t kMaxSecretBytes = 4096;

std::string read_secret_or_exit(const char* program, const std::string& path, struct stat* file) {
  SmallFile f = read_small_file(path, kMaxSecretBytes);
  if (!f.ok()) die(program, "TOKEN_SECRET_FILE '" + path + "' " + f.problem);
  *file = f.st;
  return std::move(f.text);
}

struct CurlUrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};

// One part of a parsed URL ("" when absent).
std::string url_part(CURLU* url, CURLUPart part) {
  char* value = nullptr;
  if (curl_url_get(url, part, &value, 0) != CURLUE_OK || value == nullptr) return "";
  std::string out(value);
  curl_free(value);
  return out;
}

// MAIL_URL, MAIL_FROM, PUBLIC_URL and the mail limits. A bad MAIL_URL is
// reported without its value: it may hold a password.
void mail_settings_or_exit(const char* program, Config& c) {
  c.mail_url = str_env("MAIL_URL");
  c.mail_credentials_file = str_env("MAIL_CREDENTIALS_FILE");
  c.mail_timeout_seconds = static_cast<int>(int_env(program, "MAIL_TIMEOUT_SECONDS", 30, 1, 300));
  c.mail_max_attempts = static_cast<int>(int_env(program, "MAIL_MAX_ATTEMPTS", 10, 1, 100));
  c.mail_retry_base_seconds =
      static_cast<int>(int_env(program, "MAIL_RETRY_BASE_SECONDS", 60, 1, 86400));
  c.mail_max_per_address_per_hour =
      static_cast<int>(int_env(program, "MAIL_MAX_PER_ADDRESS_PER_HOUR", 10, 1, 10000));
  c.password_reset_ttl_seconds =
      int_env(program, "PASSWORD_RESET_TTL_SECONDS", 3600, 300, 7 * 86400);
  c.password_forgot_max_per_email =
      static_cast<int>(int_env(program, "PASSWORD_FORGOT_MAX_PER_EMAIL", 3, 1, 100));
  c.password_forgot_window_seconds =
      static_cast<int>(int_env(program, "PASSWORD_FORGOT_WINDOW_SECONDS", 3600, 60, 86400));
  if (c.mail_url.empty()) return;

  const char* kMailUrlForm =
      "MAIL_URL must be smtp://host[:port] (STARTTLS) or smtps://host[:port] (TLS), credentials "
      "as user:password@ or in MAIL_CREDENTIALS_FILE";
  std::unique_ptr<CURLU, CurlUrlDeleter> url(curl_url());
  if (!url || curl_url_set(url.get(), CURLUPART_URL, c.mail_url.c_str(), 0) != CURLUE_OK) {
    die(program, std::string(kMailUrlForm) + "; the value set is not a URL");
  }
  std::string scheme = url_part(url.get(), CURLUPART_SCHEME);
  if (scheme != "smtp" && scheme != "smtps") {
    die(program, std::string(kMailUrlForm) + "; got the scheme '" + scheme + "'");
  }
  if (url_part(url.get(), CURLUPART_HOST).empty()) {
    die(program, std::string(kMailUrlForm) + "; the host is missing");
  }
  if (!url_part(url.get(), CURLUPART_QUERY).empty() ||
      !url_part(url.get(), CURLUPART_FRAGMENT).empty()) {
    die(program, std::string(kMailUrlForm) + "; a query or fragment is not allowed");
  }
  if (!c.mail_credentials_file.empty()) {
    struct stat st {};
    if (stat(c.mail_credentials_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        access(c.mail_credentials_file.c_str(), R_OK) != 0) {
      die(program, "MAIL_CREDENTIALS_FILE '" + c.mail_credentials_file +
                       "' is not a readable regular file (one line: user:password)");
    }
  }

  std::string from = str_env("MAIL_FROM");
  std::optional<Mailbox> mailbox = mailbox_parse(from);
  if (!mailbox) {
    die(program, "MAIL_FROM must be an address or 'Name <address>' when MAIL_URL is set, got '" +
                     from + "'");
  }
  c.mail_from_name = mailbox->name;
  c.mail_from_address = mailbox->address;

  std::string public_url = str_env("PUBLIC_URL");
  const std::string kPublicForm =
      "PUBLIC_URL must be the admin front-end's http:// or https:// base URL (links in mails "
      "point there) when MAIL_URL is set, without query or fragment, got '" +
      public_url + "'";
  std::unique_ptr<CURLU, CurlUrlDeleter> pub(curl_url());
  if (public_url.empty() || !pub ||
      curl_url_set(pub.get(), CURLUPART_URL, public_url.c_str(), 0) != CURLUE_OK) {
    die(program, kPublicForm);
  }
  std::string pub_scheme = url_part(pub.get(), CURLUPART_SCHEME);
  if ((pub_scheme != "http" && pub_scheme != "https") ||
      url_part(pub.get(), CURLUPART_HOST).empty() ||
      !url_part(pub.get(), CURLUPART_QUERY).empty() ||
      !url_part(pub.get(), CURLUPART_FRAGMENT).empty() ||
      !url_part(pub.get(), CURLUPART_USER).empty() ||
      public_url.find_first_of(" \t\r\n\"<>") != std::string::npos) {
    die(program, kPublicForm);
  }
  while (!public_url.empty() && public_url.back() == '/') public_url.pop_back();
  c.public_url = public_url;
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
  std::string format = str_env("LOG_FORMAT");
  if (!format.empty()) {
    LogFormat parsed;
    if (!log_parse_format(format.c_str(), &parsed)) {
      die(program, "LOG_FORMAT must be text or json, got '" + format + "'");
    }
    log_set_format(parsed);
  }

  c.database_url = str_env("DATABASE_URL");
  if (c.database_url.empty()) {
    die(program,
        "DATABASE_URL is not set (a libpq conninfo, e.g. 'host=/run/postgresql "
        "dbname=commerce_admin')");
  }
  c.database_read_url = str_env("DATABASE_READ_URL");
  std::string read_routing = str_env("CITUS_READ_ROUTING");
  if (read_routing == "tenant") {
    c.reads_to_tenant_node = true;
  } else if (!read_routing.empty() && read_routing != "off") {
    die(program, "CITUS_READ_ROUTING must be off or tenant, got '" + read_routing + "'");
  }
  for (const auto& [name, url] :
       {std::pair<const char*, const std::string*>{"DATABASE_URL", &c.database_url},
        {"DATABASE_READ_URL", &c.database_read_url}}) {
    if (url->empty()) continue;
    char* parse_error = nullptr;
    if (PQconninfoOption* options = PQconninfoParse(url->c_str(), &parse_error)) {
      PQconninfoFree(options);
    } else {
      std::string why = parse_error ? parse_error : "out of memory";
      PQfreemem(parse_error);
      while (!why.empty() && why.back() == '\n') why.pop_back();
      die(program, std::string(name) + " is not a libpq conninfo: " + why);
    }
  }

  if (needs == ConfigNeeds::kDatabaseAndSecret) {
    std::string path = str_env("TOKEN_SECRET_FILE");
    if (path.empty()) die(program, "TOKEN_SECRET_FILE is not set (a file of >= 32 random bytes)");
    struct stat file {};
    c.token_secret = read_secret_or_exit(program, path, &file);
    while (!c.token_secret.empty() &&
           (c.token_secret.back() == '\n' || c.token_secret.back() == '\r')) {
      c.token_secret.pop_back();
    }
    if (c.token_secret.size() < 32) {
      die(program, "TOKEN_SECRET_FILE '" + path + "' holds " +
                       std::to_string(c.token_secret.size()) + " bytes; at least 32 are needed");
    }
    // A token secret anyone on the host can read lets them mint tokens for
    // any user; one the service can write, a compromised handler could
    // replace. The intended state is root:commerce-admin 0640 (the package's):
    // the service's group reads it, only root writes it. Not fatal (the
    // operator may have reasons), but said at every start.
    const unsigned mode = static_cast<unsigned>(file.st_mode & 07777);
    if ((file.st_mode & S_IRWXO) != 0) {
      log_warn(
          "TOKEN_SECRET_FILE '%s' is accessible by others (mode %04o); make it private: "
          "chmod 640",
          path.c_str(), mode);
    }
    if (writable_by_this_user(file)) {
      log_warn(
          "TOKEN_SECRET_FILE '%s' can be written by the user this process runs as (mode %04o); "
          "make it root's, read-only to the service: chown root:<the service's group>, chmod 640",
          path.c_str(), mode);
    }
  }

  c.token_ttl_seconds = int_env(program, "TOKEN_TTL_SECONDS", 86400, 1, 366LL * 86400);
  c.invitation_ttl_seconds =
      int_env(program, "INVITATION_TTL_SECONDS", 7 * 86400, 60, 366LL * 86400);
  c.webhook_allow_private_targets = bool_env(program, "WEBHOOK_ALLOW_PRIVATE_TARGETS");
  c.webhook_allow_any_port = bool_env(program, "WEBHOOK_ALLOW_ANY_PORT");
  c.webhook_max_attempts = static_cast<int>(int_env(program, "WEBHOOK_MAX_ATTEMPTS", 10, 1, 100));
  c.webhook_retry_base_seconds =
      static_cast<int>(int_env(program, "WEBHOOK_RETRY_BASE_SECONDS", 30, 1, 86400));
  c.webhook_timeout_seconds =
      static_cast<int>(int_env(program, "WEBHOOK_TIMEOUT_SECONDS", 10, 1, 300));
  c.webhooks_max_per_tenant =
      static_cast<int>(int_env(program, "WEBHOOKS_MAX_PER_TENANT", 20, 1, 1000));
  c.webhook_disable_after_failures =
      static_cast<int>(int_env(program, "WEBHOOK_DISABLE_AFTER_FAILURES", 10, 0, 1000));
  c.webhook_disable_after_hours =
      static_cast<int>(int_env(program, "WEBHOOK_DISABLE_AFTER_HOURS", 72, 0, 8760));
  c.webhook_resend_max_pending =
      static_cast<int>(int_env(program, "WEBHOOK_RESEND_MAX_PENDING", 100, 1, 100000));
  c.api_keys_max_per_tenant =
      static_cast<int>(int_env(program, "API_KEYS_MAX_PER_TENANT", 100, 1, 10000));
  c.tenants_max_per_user =
      static_cast<int>(int_env(program, "TENANTS_MAX_PER_USER", 20, 1, 100000));
  c.invitations_max_pending_per_tenant =
      static_cast<int>(int_env(program, "INVITATIONS_MAX_PENDING_PER_TENANT", 100, 1, 100000));
  c.addresses_max_per_user =
      static_cast<int>(int_env(program, "ADDRESSES_MAX_PER_USER", 100, 1, 100000));
  c.idempotency_keys_max_per_user =
      static_cast<int>(int_env(program, "IDEMPOTENCY_KEYS_MAX_PER_USER", 10000, 1, 10000000));
  c.memberships_max_per_user =
      static_cast<int>(int_env(program, "MEMBERSHIPS_MAX_PER_USER", 100, 1, 100000));
  c.db_statement_timeout_seconds =
      static_cast<int>(int_env(program, "DB_STATEMENT_TIMEOUT_SECONDS", 20, 1, 25));
  c.retention_days = static_cast<int>(int_env(program, "RETENTION_DAYS", 30, 0, 36500));
  c.audit_retention_days =
      static_cast<int>(int_env(program, "AUDIT_RETENTION_DAYS", 365, 0, 36500));
  c.login_max_failures = static_cast<int>(int_env(program, "LOGIN_MAX_FAILURES", 5, 0, 1000));
  c.login_failure_window_seconds =
      static_cast<int>(int_env(program, "LOGIN_FAILURE_WINDOW_SECONDS", 900, 1, 86400));
  c.max_sessions_per_user =
      static_cast<int>(int_env(program, "MAX_SESSIONS_PER_USER", 10, 1, 1000));
  c.active_announcements_max =
      static_cast<int>(int_env(program, "ACTIVE_ANNOUNCEMENTS_MAX", 50, 1, 50));
  c.tenant_busy_ms_per_second =
      int_env(program, "TENANT_BUSY_MS_PER_SECOND", c.tenant_busy_ms_per_second, 0, 1000000);
  c.tenant_answer_bytes_per_second = int_env(program, "TENANT_ANSWER_BYTES_PER_SECOND",
                                             c.tenant_answer_bytes_per_second, 0, 1LL << 30);
  c.tenant_requests_in_progress =
      int_env(program, "TENANT_REQUESTS_IN_PROGRESS", c.tenant_requests_in_progress, 0, 10000);
  c.healthz_cache_ms = int_env(program, "HEALTHZ_CACHE_MS", c.healthz_cache_ms, 0, 60000);
  c.handler_drain_seconds =
      int_env(program, "HANDLER_DRAIN_SECONDS", c.handler_drain_seconds, 1, 8);
  c.worker_loop_ms = int_env(program, "WORKER_LOOP_MS", c.worker_loop_ms, 50, 60000);
  c.worker_full_pass_seconds =
      int_env(program, "WORKER_FULL_PASS_SECONDS", c.worker_full_pass_seconds, 1, 3600);
  mail_settings_or_exit(program, c);
  c.push_gateway_url = str_env("PUSH_GATEWAY_URL");
  c.push_gateway_token = str_env("PUSH_GATEWAY_TOKEN");
  if (needs == ConfigNeeds::kDatabaseAndSecret) {
    // As scripts/render-nginx reads it: unset or empty is the default.
    std::string allow = str_env("METRICS_ALLOW");
    if (allow.empty()) allow = kDefaultMetricsAllow;
    std::string why;
    std::optional<IpAllowlist> parsed = IpAllowlist::parse(allow, &why);
    if (!parsed) {
      die(program,
          "METRICS_ALLOW must list IP addresses or CIDR ranges separated by spaces: " + why);
    }
    c.metrics_allow = std::move(*parsed);
  }
  return c;
}

}  // namespace ca
