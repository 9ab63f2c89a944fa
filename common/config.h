// Process configuration from the environment (systemd EnvironmentFile=).
//
// Loaded once at start-up, read-only afterwards, so threads share it freely.
// A missing or malformed required setting is one clear line on stderr and a
// non-zero exit: an operator sees exactly which variable to fix.
#pragma once

#include <cstdint>
#include <string>

#include "ip_allowlist.h"

namespace ca {

struct Config {
  std::string database_url;
  // DATABASE_READ_URL: where a handler's reads (GET, HEAD: read-only
  // transactions) go; empty: DATABASE_URL. On Citus, a worker (every node
  // with metadata runs distributed queries); writes stay on DATABASE_URL,
  // the coordinator (docs/decisions/0128-handlers-read-on-any-node-write-on-
  // the-coordinator.md).
  std::string database_read_url;
  // CITUS_READ_ROUTING=tenant: a read naming its tenant (X-Tenant-ID) goes
  // to the node holding the tenant's shards, at the address Citus uses for
  // it, with DATABASE_URL's other settings; other reads as above
  // (common/tenant_read_nodes.h). Off by default; Citus only.
  bool reads_to_tenant_node = false;
  std::string token_secret;  // contents of TOKEN_SECRET_FILE, >= 32 bytes
  int64_t token_ttl_seconds = 86400;
  // How long a team invitation can be accepted (INVITATION_TTL_SECONDS).
  int64_t invitation_ttl_seconds = 7 * 86400;
  bool webhook_allow_private_targets = false;
  // Webhook URLs may name any port, not only 80, 443 and 1024-65535.
  bool webhook_allow_any_port = false;
  int webhook_max_attempts = 10;
  int webhook_retry_base_seconds = 30;
  int webhook_timeout_seconds = 10;
  // Live webhook subscriptions one tenant may have (WEBHOOKS_MAX_PER_TENANT):
  // each event is sent once per subscription (docs/security.md).
  int webhooks_max_per_tenant = 20;
  // Automatic disabling (README "Webhook deliveries"): a subscription whose
  // last WEBHOOK_DISABLE_AFTER_FAILURES finished deliveries all failed and
  // that has delivered nothing for WEBHOOK_DISABLE_AFTER_HOURS is disabled
  // by the worker. 0 failures: never.
  int webhook_disable_after_failures = 10;
  int webhook_disable_after_hours = 72;
  // A redelivery or test event is refused (422) while its subscription has
  // this many pending deliveries (WEBHOOK_RESEND_MAX_PENDING, decision 0103).
  int webhook_resend_max_pending = 100;
  // Live (unrevoked) API keys one tenant may have (API_KEYS_MAX_PER_TENANT;
  // docs/security.md "Resource limits").
  int api_keys_max_per_tenant = 100;
  // Collections a user or tenant grows (docs/security.md, "Resource limits";
  // docs/decisions/0030-caps-on-what-users-and-tenants-grow.md): tenants a user
  // created (TENANTS_MAX_PER_USER), live pending invitations of a tenant
  // (INVITATIONS_MAX_PENDING_PER_TENANT), a user's addresses
  // (ADDRESSES_MAX_PER_USER), a user's idempotency keys of the last 24 h in
  // one tenant (IDEMPOTENCY_KEYS_MAX_PER_USER).
  int tenants_max_per_user = 20;
  int invitations_max_pending_per_tenant = 100;
  int addresses_max_per_user = 100;
  int idempotency_keys_max_per_user = 10000;
  // Tenants one user may belong to (MEMBERSHIPS_MAX_PER_USER): accepting an
  // invitation or creating a tenant beyond it answers 422, which bounds GET
  // /tenants (docs/decisions/0061-memberships-per-user-cap.md).
  int memberships_max_per_user = 100;
  // Handlers' statements (serve loop) only; under nginx's fastcgi_read_timeout (30 s).
  int db_statement_timeout_seconds = 20;
  // Per-account login limit (handlers/auth/login.cc): after this many failed
  // logins for one email within the window, logins for it are refused (429)
  // without checking the password. 0 turns the limit off.
  int login_max_failures = 5;
  int login_failure_window_seconds = 900;
  // Live sessions a user may hold; a login revokes the oldest beyond it.
  int max_sessions_per_user = 10;
  // Entries GET /announcements/active answers at most, the first in its
  // order (ACTIVE_ANNOUNCEMENTS_MAX, 1 to 50: the 8 MiB answer bound of
  // docs/security.md, "Largest answers", counts 50).
  int active_announcements_max = 50;
  // Per tenant and handler process (common/tenant_budget.h): milliseconds of
  // request time and bytes of answers a tenant may use per second, beyond a
  // burst; over it, 429 with Retry-After. 0 turns either off.
  int64_t tenant_busy_ms_per_second = 1000;
  int64_t tenant_answer_bytes_per_second = 8 * 1024 * 1024;
  // Requests of one tenant served at once per handler process; more get 429.
  // 0 (the default): no limit (docs/decisions/0050-per-tenant-cost-budget.md).
  int64_t tenant_requests_in_progress = 0;
  // How long /healthz reuses its last database probe (HEALTHZ_CACHE_MS); 0:
  // every probe asks the database.
  int64_t healthz_cache_ms = 1000;
  // commerce-admin-worker --loop: the pause between two passes (each first
  // asks whether anything is due), and how often a pass runs every task (the
  // purges) and writes the heartbeat.
  // Handlers: how long a stop waits for nginx to close its kept
  // connections before the process closes them itself (under the units'
  // TimeoutStopSec, 10 s).
  int64_t handler_drain_seconds = 8;
  int64_t worker_loop_ms = 1000;
  int64_t worker_full_pass_seconds = 5;
  std::string push_gateway_url;
  std::string push_gateway_token;
  // Handlers: who may GET /metrics (METRICS_ALLOW, the list nginx renders
  // too; default 127.0.0.1 ::1). Everyone else gets 403 from the handler
  // as from nginx, whichever way the request came.
  IpAllowlist metrics_allow;
  // The worker purges finished webhook deliveries and their events after
  // this many days; 0 keeps them for ever.
  int retention_days = 30;
  // The worker purges audit log entries (sql/056) after this many days
  // (AUDIT_RETENTION_DAYS); 0 keeps them for ever.
  int audit_retention_days = 365;

  // Outgoing mail (docs/decisions/0097-mail-outbox.md): on when MAIL_URL is
  // set; then MAIL_FROM and PUBLIC_URL are required. Handlers only ask
  // mail_enabled() (invitations travel by mail, password reset); the
  // worker sends.
  std::string mail_url;  // smtp://host[:port] or smtps://..., may hold user:password@
  // A file holding "user:password" for SMTP AUTH (the worker reads it).
  std::string mail_credentials_file;
  std::string mail_from_name;     // MAIL_FROM's display name, may be empty
  std::string mail_from_address;  // MAIL_FROM's address
  std::string public_url;         // the admin front-end's base URL, no trailing "/"
  int mail_timeout_seconds = 30;
  int mail_max_attempts = 10;
  int mail_retry_base_seconds = 60;
  // Mails sent to one address in any hour, all kinds and tenants together;
  // beyond it a mail is skipped (no mailbox can be flooded).
  int mail_max_per_address_per_hour = 10;
  // Password reset (handlers/auth/password_reset.cc).
  int64_t password_reset_ttl_seconds = 3600;
  int password_forgot_max_per_email = 3;
  int password_forgot_window_seconds = 3600;
  bool mail_enabled() const { return !mail_url.empty(); }
};

enum class ConfigNeeds { kDatabase, kDatabaseAndSecret };

// Reads the environment; on error prints "<program>: <what is wrong>" and exits 2.
Config config_from_env_or_exit(const char* program, ConfigNeeds needs);

}  // namespace ca
