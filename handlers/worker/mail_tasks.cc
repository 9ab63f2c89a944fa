// The mail outbox (sql/041; docs/decisions/0097-mail-outbox.md): claim due
// mails, send each over SMTP, record the attempt, retry with backoff.
//
// As webhook deliveries (webhook_tasks.cc): tenants with due rows are taken
// in turn from where the last claim stopped (account mails are tenant 0),
// each claim reads one tenant (on Citus a router query on its shard) and
// locks its rows FOR UPDATE SKIP LOCKED while it leases them (lease_until =
// now + MAIL_TIMEOUT_SECONDS + margin) and counts the attempt, so two
// workers never send the same attempt; the outcome is recorded only while
// the lease is still ours (the lease is the fence). A worker that dies
// mid-send leaves a row that is due again when its lease runs out: at least
// once, with the same Message-ID.
//
// Mails are sent one at a time (a relay answers in milliseconds; the
// timeout bounds a hanging one), at most kPerTenantRound rows of a tenant
// before every other tenant with due rows had its turn.
//
// Every attempt is one log line (mail id, tenant, kind, attempt, outcome,
// reply, error, duration), never the token, the link or the recipient's
// address. The token leaves the row (`data - 'token'`) once the mail is
// sent, failed for good or skipped.
#include <sodium.h>

#include <chrono>
#include <cmath>
#include <string>

#include "backoff.h"
#include "json.h"
#include "log.h"
#include "mail_content.h"
#include "mail_message.h"
#include "mail_smtp.h"
#include "tasks.h"

namespace ca {
namespace {

constexpr int kLeaseMarginSeconds = 10;
constexpr auto kPassBudget = std::chrono::seconds(30);
constexpr int kTenantsPerRound = 16;
constexpr int kPerTenantRound = 2;

#define CA_MAIL_INTERRUPTED "attempt interrupted (worker stopped)"

// $1 tenants at most, $2 the tenant the previous claim ended with. The
// tenants with a due row, those after $2 first (mails_due_idx).
const Statement kDueTenants{"mails_due_tenants",
                            "SELECT tenant_id FROM mails "
                            "WHERE status = 'pending' AND next_attempt_at <= now() "
                            "  AND (lease_until IS NULL OR lease_until < now()) "
                            "GROUP BY tenant_id ORDER BY tenant_id <= $2, tenant_id LIMIT $1"};

// $1 tenant, $2 rows at most, $3 lease seconds. Leases the tenant's oldest
// due rows and counts an attempt; a row whose lease ran out (its worker
// stopped mid-send) says so in `error`. The lease comes back as the column
// (the fence).
const Statement kClaim{
    "mails_claim",
    "WITH locked AS MATERIALIZED ("
    "  SELECT id FROM mails "
    "  WHERE tenant_id = $1 AND status = 'pending' AND next_attempt_at <= now() "
    "    AND (lease_until IS NULL OR lease_until < now()) "
    "  ORDER BY next_attempt_at, id LIMIT $2 "
    "  FOR UPDATE SKIP LOCKED) "
    "UPDATE mails m SET lease_until = now() + make_interval(secs => $3), "
    "  attempts = m.attempts + 1, last_attempt_at = now(), "
    "  error = CASE WHEN m.lease_until IS NOT NULL THEN '" CA_MAIL_INTERRUPTED
    "' ELSE m.error END "
    "FROM locked l WHERE m.tenant_id = $1 AND m.id = l.id "
    "RETURNING m.tenant_id, m.id, m.kind, m.recipient, m.data::text AS data, m.attempts, "
    "  m.lease_until, m.created_at"};

// $1 tenant, $2 id, $3 lease (fence).
const Statement kRecordSent{
    "mails_sent",
    "UPDATE mails SET status = 'sent', sent_at = now(), error = NULL, lease_until = NULL, "
    "  data = data - 'token' "
    "WHERE tenant_id = $1 AND id = $2 AND lease_until = $3::timestamptz"};

// $1 tenant, $2 id, $3 lease (fence), $4 error, $5 delay in ms, $6 max
// attempts. Column: the row's new status.
const Statement kRecordFailed{
    "mails_failed",
    "UPDATE mails SET "
    "  status = CASE WHEN attempts >= $6 THEN 'failed' ELSE 'pending' END, "
    "  data = CASE WHEN attempts >= $6 THEN data - 'token' ELSE data END, "
    "  error = $4, lease_until = NULL, "
    "  next_attempt_at = now() + make_interval(secs => $5::float8 / 1000) "
    "WHERE tenant_id = $1 AND id = $2 AND lease_until = $3::timestamptz "
    "RETURNING status"};

// $1 tenant, $2 id, $3 lease (fence), $4 why. Not sent on purpose.
const Statement kRecordSkipped{
    "mails_skipped",
    "UPDATE mails SET status = 'skipped', error = $4, lease_until = NULL, data = data - 'token' "
    "WHERE tenant_id = $1 AND id = $2 AND lease_until = $3::timestamptz"};

// $1 address. Mails sent to it in the last hour, every tenant's
// (mails_recipient_idx), and those being sent now.
const Statement kSentToAddress{"mails_sent_to_address",
                               "SELECT count(*) AS n FROM mails "
                               "WHERE lower(recipient) = lower($1) AND status = 'sent' "
                               "  AND sent_at > now() - interval '1 hour'"};

// $1 address. Whether an active account has it (a password reset mail
// goes only to one).
const Statement kActiveAccount{
    "mails_active_account",
    "SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1) AND is_active) AS active"};

struct Claimed {
  OutboxMail mail;
  int attempt = 0;
  std::string lease;
};

int64_t g_last_tenant = -1;

double random01() { return randombytes_uniform(1u << 30) / static_cast<double>(1u << 30); }

// Addresses that can go in RCPT TO and To: as they are.
bool sendable(const std::string& address) {
  for (unsigned char c : address) {
    if (c <= 0x20 || c >= 0x7f) return false;
    if (std::string_view("<>\"(),;:\\[]").find(static_cast<char>(c)) != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

void log_attempt(const Claimed& c, const char* outcome, long reply, const std::string& error,
                 std::chrono::steady_clock::time_point started) {
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (log_format() == LogFormat::kJson) {
    Json fields = json_object();
    json_add_int(fields.get(), "mail_id", c.mail.id);
    json_add_int(fields.get(), "tenant_id", c.mail.tenant_id);
    json_add_str(fields.get(), "kind", c.mail.kind);
    json_add_int(fields.get(), "attempt", c.attempt);
    json_add_str(fields.get(), "outcome", outcome);
    if (reply != 0) json_add_int(fields.get(), "reply", reply);
    if (!error.empty()) json_add_str(fields.get(), "error", error);
    json_add_num(fields.get(), "duration_ms", std::round(ms * 1000) / 1000);
    log_fields(std::string_view(outcome) == "sent" ? LogLevel::kInfo : LogLevel::kWarn,
               "mail attempt", fields.get());
    return;
  }
  if (std::string_view(outcome) == "sent") {
    log_info("mail %lld (tenant %lld, %s): attempt %d sent", static_cast<long long>(c.mail.id),
             static_cast<long long>(c.mail.tenant_id), c.mail.kind.c_str(), c.attempt);
  } else {
    log_warn("mail %lld (tenant %lld, %s): attempt %d %s: %s", static_cast<long long>(c.mail.id),
             static_cast<long long>(c.mail.tenant_id), c.mail.kind.c_str(), c.attempt, outcome,
             error.c_str());
  }
}

class MailPass {
 public:
  MailPass(Db& db, const Config& config, const SmtpSender& sender)
      : db_(db), config_(config), sender_(sender) {}

  // Mails attempted (sent, failed or skipped), or -1 when the pass failed
  // before any.
  int run() {
    auto started = std::chrono::steady_clock::now();
    int done = 0;
    while (!stop_requested() && std::chrono::steady_clock::now() - started < kPassBudget) {
      int n = round();
      if (n < 0) return done > 0 ? done : -1;
      if (n == 0) break;
      done += n;
    }
    return done;
  }

 private:
  // One turn of every tenant with due rows (up to kTenantsPerRound).
  int round() {
    DbResult tenants = db_.exec(kDueTenants, {kTenantsPerRound, g_last_tenant});
    if (!tenants.ok()) {
      log_error("finding tenants with due mails failed: %s", tenants.error().message.c_str());
      return -1;
    }
    int done = 0;
    for (int i = 0; i < tenants->size() && !stop_requested(); ++i) {
      int64_t tenant_id = tenants->int64(i, "tenant_id");
      DbResult r = db_.exec(
          kClaim, {tenant_id, kPerTenantRound, config_.mail_timeout_seconds + kLeaseMarginSeconds});
      if (!r.ok()) {
        log_error("claiming mails (tenant %lld) failed: %s", static_cast<long long>(tenant_id),
                  r.error().message.c_str());
        return done > 0 ? done : -1;
      }
      g_last_tenant = tenant_id;
      const Col tenant = r->col("tenant_id"), id = r->col("id"), kind = r->col("kind"),
                recipient = r->col("recipient"), data = r->col("data"),
                attempts = r->col("attempts"), lease = r->col("lease_until"),
                created = r->col("created_at");
      for (int j = 0; j < r->size(); ++j) {
        Claimed c;
        c.mail = OutboxMail{r->int64(j, tenant),  r->int64(j, id), r->str(j, kind),
                            r->str(j, recipient), r->str(j, data), r->str(j, created)};
        c.attempt = static_cast<int>(r->int64(j, attempts));
        c.lease = r->str(j, lease);
        attempt(c);
        ++done;
      }
    }
    return done;
  }

  void attempt(const Claimed& c) {
    auto started = std::chrono::steady_clock::now();
    if (c.attempt > config_.mail_max_attempts) {
      // Its last attempt was cut off (the worker stopped): no more.
      fail(c, CA_MAIL_INTERRUPTED "; no attempts left", 0, started);
      return;
    }
    if (!sendable(c.mail.recipient)) {
      skip(c, "the address cannot be sent to (non-ASCII or special characters)", started);
      return;
    }
    if (c.mail.kind == "password_reset") {
      DbResult active = db_.exec(kActiveAccount, {c.mail.recipient});
      if (!active.ok()) {
        fail(c, "database: " + active.error().message, 0, started);
        return;
      }
      if (!active->boolean(0, "active")) {
        skip(c, "no active account has this address", started);
        return;
      }
    }
    DbResult sent = db_.exec(kSentToAddress, {c.mail.recipient});
    if (!sent.ok()) {
      fail(c, "database: " + sent.error().message, 0, started);
      return;
    }
    if (sent->int64(0, "n") >= config_.mail_max_per_address_per_hour) {
      skip(c,
           "too many mails to this address in the last hour (MAIL_MAX_PER_ADDRESS_PER_HOUR " +
               std::to_string(config_.mail_max_per_address_per_hour) + ")",
           started);
      return;
    }
    std::string problem;
    std::optional<MailMessage> message = mail_compose(c.mail, config_, &problem);
    if (!message) {
      skip(c, problem, started);
      return;
    }
    SmtpOutcome outcome =
        sender_.send(config_.mail_from_address, c.mail.recipient, mail_render(*message));
    if (!outcome.sent) {
      fail(c, outcome.error, outcome.reply, started);
      return;
    }
    DbResult done = db_.exec(kRecordSent, {c.mail.tenant_id, c.mail.id, c.lease});
    if (!done.ok()) {
      log_error("mail %lld: sent, but recording it failed: %s", static_cast<long long>(c.mail.id),
                done.error().message.c_str());
    } else if (done->affected() == 0) {
      log_warn("mail %lld: sent, but the lease had passed to another worker",
               static_cast<long long>(c.mail.id));
    }
    log_attempt(c, "sent", outcome.reply, "", started);
  }

  void fail(const Claimed& c, const std::string& error, long reply,
            std::chrono::steady_clock::time_point started) {
    int64_t delay_ms = next_attempt_delay_ms(c.attempt, config_.mail_retry_base_seconds, random01(),
                                             0, std::nullopt);
    DbResult done = db_.exec(kRecordFailed, {c.mail.tenant_id, c.mail.id, c.lease, error, delay_ms,
                                             config_.mail_max_attempts});
    const char* outcome = "failed";
    if (!done.ok()) {
      log_error("mail %lld: recording the attempt failed: %s", static_cast<long long>(c.mail.id),
                done.error().message.c_str());
    } else if (!done->empty() && done->text(0, "status") == "failed") {
      outcome = "failed for good";
    }
    log_attempt(c, outcome, reply, error, started);
  }

  void skip(const Claimed& c, const std::string& why,
            std::chrono::steady_clock::time_point started) {
    DbResult done = db_.exec(kRecordSkipped, {c.mail.tenant_id, c.mail.id, c.lease, why});
    if (!done.ok()) {
      log_error("mail %lld: recording the skip failed: %s", static_cast<long long>(c.mail.id),
                done.error().message.c_str());
    }
    log_attempt(c, "skipped", 0, why, started);
  }

  Db& db_;
  const Config& config_;
  const SmtpSender& sender_;
};

}  // namespace

int task_send_mails(Db& db, const Config& config) {
  if (!config.mail_enabled()) return 0;
  static const SmtpSender sender(config);
  return MailPass(db, config, sender).run();
}

void mail_tasks_init(const Config& config) {
  // The credentials file is read (and checked) at start-up, not at the first mail.
  if (config.mail_enabled() && !config.mail_credentials_file.empty()) {
    (void)mail_credentials_or_exit(config.mail_credentials_file);
  }
}

}  // namespace ca
