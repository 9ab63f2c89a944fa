// Webhook deliveries (docs/design/events.md): claim due rows, POST them signed, record
// each attempt, retry with backoff.
//
// Claiming is tenant by tenant (so that on Citus each claim is a router
// query on one shard, docs/scaling.md): one statement without locks lists
// the tenants with due rows, in turn from where the last claim stopped; then
// for each, one statement picks its due rows with FOR UPDATE SKIP LOCKED and,
// in the same statement, leases them (lease_until = now + timeout + margin)
// and counts an attempt. Concurrent workers therefore never take the same
// row, and a worker killed mid-delivery leaves a row that becomes
// due again when its lease runs out (at-least-once; receivers deduplicate on
// webhook-id). The outcome is written only while the lease is still ours:
// the lease_until value our claim set is the fencing token, so a worker that
// overran its lease cannot overwrite the record of the worker that took the
// row over.
//
// A worker that stops mid-attempt (killed, crashed, or too slow to record
// before its lease ran out) leaves a pending row with an expired lease and
// no outcome. Before claiming, a pass records each such attempt as a failed
// one with the error kInterrupted and the usual backoff, so the delivery log
// shows that an attempt was cut off; a claim that takes such a row over
// directly (its lease ran out just before) writes the same error while it
// retries.
//
// A redelivery (redelivery_of set) sends the webhook-id of the delivery it
// repeats. During a secret rotation (README "Webhook deliveries") every
// attempt carries two signatures, by the new secret and by the one it
// replaced, until the old one's 24 h are over.
//
// After the deliveries, a pass disables the subscriptions that have failed
// long enough (disable_failing_webhooks()).
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backoff.h"
#include "json.h"
#include "log.h"
#include "tasks.h"
#include "webhook_http.h"
#include "webhook_signature.h"

namespace ca {
namespace {

// Requests in flight at once, per worker: room for 16 hanging subscriptions
// (or 8 tenants with hanging ones) before the others wait.
constexpr int kMaxInFlight = 64;
// Rows in flight at once (leased by any worker) per subscription and per
// tenant: a receiver that hangs, or a tenant with many of them, holds at most
// these slots, and the others keep serving every other subscription. A
// subscription whose last attempt failed gets one row at a time.
constexpr int kPerWebhookInFlight = 4;
constexpr int kPerTenantInFlight = 8;
// Lease beyond the attempt's own timeout: claiming, signing and recording.
constexpr int kLeaseMarginSeconds = 10;
// A pass stops claiming after this long, so other tasks and the timer's next
// run are not starved by a large backlog; what is in flight then finishes.
constexpr auto kPassBudget = std::chrono::seconds(30);
// While requests are in flight and nothing finishes, how often to look for
// rows that became due meanwhile.
constexpr auto kReclaimInterval = std::chrono::seconds(1);
// Claims while requests finish are at least this far apart: a claim probes
// every active subscription, and one per finished request would cost the
// database that many probes per delivery.
constexpr auto kMinClaimGap = std::chrono::milliseconds(50);

// The error of an attempt whose worker stopped before recording its
// outcome (a macro so that kClaim's SQL can carry it too).
#define CA_INTERRUPTED_ERROR "attempt interrupted (worker stopped)"
constexpr const char* kInterrupted = CA_INTERRUPTED_ERROR;
constexpr const char* kInterruptedLast = CA_INTERRUPTED_ERROR "; no attempts left";

// Pending rows of deleted or disabled subscriptions that became due (a
// fan-out that raced the deletion, rows left when it was disabled): never
// attempted.
const Statement kCancelDeleted{
    "webhook_deliveries_cancel_deleted",
    "UPDATE webhook_deliveries d SET status = 'failed', "
    "  error = CASE WHEN w.deleted_at IS NULL THEN 'webhook disabled' ELSE 'webhook deleted' END "
    "FROM webhooks w WHERE w.tenant_id = d.tenant_id AND w.id = d.webhook_id AND NOT w.is_active "
    " AND d.status = 'pending' AND d.next_attempt_at <= now() "
    " AND (d.lease_until IS NULL OR d.lease_until < now())"};

// $1 tenants at most, $2 the tenant the previous claim ended with (0 at
// first). The tenants with a due row of an active subscription, in turn:
// those after $2 first, then from the lowest. No lock, and on Citus each
// shard answers for its own tenants (the subscription is joined on
// tenant_id): an index probe per active subscription.
const Statement kDueTenants{
    "webhook_deliveries_due_tenants",
    "SELECT w.tenant_id FROM webhooks w "
    "WHERE w.is_active AND EXISTS ("
    "  SELECT FROM webhook_deliveries c "
    "  WHERE c.tenant_id = w.tenant_id AND c.webhook_id = w.id AND c.status = 'pending' "
    "    AND c.next_attempt_at <= now() AND (c.lease_until IS NULL OR c.lease_until < now())) "
    "GROUP BY w.tenant_id ORDER BY w.tenant_id <= $2, w.tenant_id LIMIT $1"};

// $1 rows wanted, $2 lease seconds, $3 rows in flight per subscription (one
// while it is failing), $4 per tenant, $5 the tenant: every table is read by
// tenant_id = $5, so on Citus the statement runs on the tenant's shard alone
// (FOR UPDATE across shards is refused). Returns what an attempt needs; the
// lease comes back as the column itself (RETURNING refuses the non-IMMUTABLE
// ::text on Citus) and is handed back unchanged as the fence.
//
// Fair, not oldest-first across the installation: each active subscription
// offers its oldest due rows (an index probe per subscription, so a backlog
// of one costs the others nothing), minus the rows it already has in flight;
// the tenant is held to its share the same way; and the caller takes
// tenants in turn (kDueTenants), each tenant's first rows before any
// tenant's further ones. The in-flight counts come from the leases, so they
// cover every worker (two workers claiming at the same instant may each fill
// the same free slots, for as long as those requests take). Only the rows
// chosen are locked, SKIP LOCKED and with the due condition checked again on
// the row's newest version: a row another worker leased meanwhile is left
// out, not sent twice. `locked` runs once (MATERIALIZED), never again for
// each row of the tenant the UPDATE joins it to.
const Statement kClaim{
    "webhook_deliveries_claim",
    "WITH in_flight AS MATERIALIZED ("
    "  SELECT webhook_id, count(*) AS n FROM webhook_deliveries "
    "  WHERE tenant_id = $5 AND status = 'pending' AND lease_until >= now() "
    "  GROUP BY webhook_id), "
    "offered AS MATERIALIZED ("
    "  SELECT c.id, c.webhook_id, c.next_attempt_at, COALESCE(f.n, 0) AS busy, "
    "         CASE WHEN w.failing_since IS NULL THEN $3 ELSE 1 END AS cap "
    "  FROM webhooks w "
    "  LEFT JOIN in_flight f ON f.webhook_id = w.id "
    "  CROSS JOIN LATERAL ("
    "    SELECT c.id, c.webhook_id, c.next_attempt_at FROM webhook_deliveries c "
    "    WHERE c.tenant_id = $5 AND c.webhook_id = w.id AND c.status = 'pending' "
    "      AND c.next_attempt_at <= now() AND (c.lease_until IS NULL OR c.lease_until < now()) "
    "    ORDER BY c.next_attempt_at, c.id LIMIT $3) c "
    "  WHERE w.tenant_id = $5 AND w.is_active "
    "    AND COALESCE(f.n, 0) < CASE WHEN w.failing_since IS NULL THEN $3 ELSE 1 END), "
    "per_webhook AS ("
    "  SELECT o.id, o.next_attempt_at FROM ("
    "    SELECT *, busy + row_number() OVER ("
    "      PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS slot "
    "    FROM offered) o "
    "  WHERE o.slot <= o.cap), "
    "picked AS ("
    "  SELECT p.id FROM per_webhook p ORDER BY p.next_attempt_at, p.id "
    "  LIMIT GREATEST(0, LEAST($1, $4 - (SELECT COALESCE(sum(n), 0) FROM in_flight)))), "
    "locked AS MATERIALIZED ("
    "  SELECT c.id FROM webhook_deliveries c JOIN picked p ON p.id = c.id "
    "  WHERE c.tenant_id = $5 AND c.status = 'pending' AND c.next_attempt_at <= now() "
    "    AND (c.lease_until IS NULL OR c.lease_until < now()) "
    "  FOR UPDATE OF c SKIP LOCKED) "
    "UPDATE webhook_deliveries d "
    "SET lease_until = now() + make_interval(secs => $2), attempts = d.attempts + 1, "
    "    last_attempt_at = now(), "
    "    error = CASE WHEN d.lease_until IS NOT NULL THEN '" CA_INTERRUPTED_ERROR
    "' "
    "      ELSE d.error END "
    "FROM locked l, webhooks w, events e "
    "WHERE d.tenant_id = $5 AND d.id = l.id "
    "  AND w.tenant_id = $5 AND w.id = d.webhook_id "
    "  AND e.tenant_id = $5 AND e.id = d.event_id "
    "RETURNING d.tenant_id, d.id, d.url, d.event, d.attempts, d.lease_until, w.secret, "
    "  e.payload::text, ca_event_actor_json(actor => e.actor) AS actor, e.created_at, "
    "d.webhook_id, "
    "  COALESCE(d.redelivery_of, d.id) AS message_of, "
    "  CASE WHEN w.previous_secret_until > d.last_attempt_at THEN w.previous_secret END "
    "    AS previous_secret"};

// $1 tenant, $2 id, $3 lease (fence), $4 response status.
// Columns: the subscription's id and whether it was failing; no row when
// the lease had passed on.
const Statement kRecordDelivered{
    "webhook_deliveries_delivered",
    "UPDATE webhook_deliveries d SET status = 'delivered', delivered_at = now(), "
    "  response_status = $4, error = NULL, lease_until = NULL "
    "FROM webhooks w WHERE w.tenant_id = d.tenant_id AND w.id = d.webhook_id "
    "  AND d.tenant_id = $1 AND d.id = $2 AND d.lease_until = $3::timestamptz "
    "RETURNING d.webhook_id, w.failing_since IS NOT NULL AS was_failing"};

// $1 tenant, $2 id, $3 lease (fence), $4 response status or NULL, $5 error,
// $6 delay in ms, $7 max attempts. A subscription deleted meanwhile is not
// retried. Columns: the row's new status, the subscription's id and whether
// it was failing.
const Statement kRecordFailed{
    "webhook_deliveries_failed",
    "UPDATE webhook_deliveries d SET "
    "  status = CASE WHEN d.attempts >= $7 OR NOT w.is_active THEN 'failed' ELSE 'pending' END, "
    "  response_status = $4, "
    "  error = CASE WHEN w.is_active THEN $5::text "
    "    WHEN w.deleted_at IS NULL THEN $5::text || ' (webhook disabled; not retried)' "
    "    ELSE $5::text || ' (webhook deleted; not retried)' END, "
    "  next_attempt_at = now() + make_interval(secs => $6::float8 / 1000), lease_until = NULL "
    "FROM webhooks w WHERE w.tenant_id = d.tenant_id AND w.id = d.webhook_id "
    "  AND d.tenant_id = $1 AND d.id = $2 AND d.lease_until = $3::timestamptz "
    "RETURNING d.status, d.webhook_id, w.failing_since IS NOT NULL AS was_failing"};

// A subscription is failing from its first failed attempt until a delivery
// succeeds ($1 tenant, $2 webhook). Written only when that changes, and as
// a statement of its own after the delivery's record: the record locks the
// delivery row only, as deleting a subscription locks the subscription and
// then its deliveries, so the two cannot deadlock. Two outcomes recorded at
// the same instant may leave the older one's state until the
// subscription's next attempt. Two statements, not one with `CASE WHEN
// failing THEN now()`: Citus refuses a non-IMMUTABLE function inside CASE
// in an UPDATE.
const Statement kSetFailing{"webhooks_set_failing",
                            "UPDATE webhooks SET failing_since = now() "
                            "WHERE tenant_id = $1 AND id = $2 AND failing_since IS NULL"};
const Statement kSetRecovered{"webhooks_set_recovered",
                              "UPDATE webhooks SET failing_since = NULL "
                              "WHERE tenant_id = $1 AND id = $2 AND failing_since IS NOT NULL"};

// Rows whose attempt's lease ran out with no outcome recorded (a lease is
// cleared by every outcome). Cross-tenant but without locks: each is then
// recorded through kRecordFailed with its lease as the fence, so a row
// another worker claimed meanwhile is left alone. The leased rows are few
// (webhook_deliveries_leased_idx). Columns: tenant_id, id, attempts, lease.
const Statement kFindInterrupted{
    "webhook_deliveries_find_interrupted",
    "SELECT tenant_id, id, attempts, lease_until FROM webhook_deliveries "
    "WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until < now() "
    "ORDER BY lease_until LIMIT 100"};

// A row whose previous attempt was its last one but never reported back (the
// worker died): it is failed without a further attempt. $4 error.
const Statement kGiveUp{
    "webhook_deliveries_give_up",
    "UPDATE webhook_deliveries SET status = 'failed', attempts = attempts - 1, error = $4, "
    "  lease_until = NULL "
    "WHERE tenant_id = $1 AND id = $2 AND lease_until = $3::timestamptz"};

// Automatic disabling (README "Webhook deliveries"). The candidates:
// active subscriptions failing (no delivery succeeded) for at least $1
// hours (webhooks_failing_idx, sql/045). Without locks; across tenants,
// each shard answering for its own on Citus. Each is then disabled by
// kDisable, a statement of its tenant alone that checks everything again.
const Statement kDisableCandidates{
    "webhooks_disable_candidates",
    "SELECT tenant_id, id FROM webhooks "
    "WHERE is_active AND failing_since <= now() - make_interval(hours => $1) "
    "ORDER BY failing_since, tenant_id, id LIMIT 100"};

// $1 tenant, $2 subscription, $3 hours, $4 failures, $5 the reason, $6
// whether mail is on: still active and failing that long, and its last $4
// finished deliveries (by id, along webhook_deliveries_webhook_idx) all
// failed. Its pending rows are then failed by kCancelDeleted ('webhook
// disabled') as they come due. With mail on, the tenant's active ADMINs are
// told, by outbox rows of the same statement (the first 50 by user id: a
// bound on what one disabling sends; a mailbox's hourly bound still applies
// when they are sent).
const Statement kDisable{
    "webhooks_disable",
    "WITH disabled AS ("
    "  UPDATE webhooks w SET is_active = false, disabled_at = now(), disabled_reason = $5, "
    "    updated_at = now() "
    "  WHERE w.tenant_id = $1 AND w.id = $2 AND w.is_active AND w.deleted_at IS NULL "
    "    AND w.failing_since <= now() - make_interval(hours => $3) "
    "    AND (SELECT count(*) FROM ("
    "           SELECT d.status FROM webhook_deliveries d "
    "           WHERE d.tenant_id = $1 AND d.webhook_id = $2 AND d.status <> 'pending' "
    "           ORDER BY d.id DESC LIMIT $4) last "
    "         WHERE last.status = 'failed') = $4 "
    "  RETURNING w.id, w.description), "
    "told AS (INSERT INTO mails (tenant_id, kind, recipient, data) "
    "  SELECT $1, 'webhook_disabled', a.email, jsonb_build_object("
    "    'tenant_name', t.name, 'webhook_id', d.id, 'description', d.description, "
    "    'reason', $5::text) "
    "  FROM disabled d, tenants t, ("
    "    SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id "
    "    WHERE m.tenant_id = $1 AND m.role = 'ADMIN' AND u.is_active "
    "    ORDER BY m.user_id LIMIT 50) a "
    "  WHERE $6::boolean AND t.id = $1) "
    "SELECT id FROM disabled d"};

struct Claimed {
  int64_t tenant_id = 0;
  int64_t id = 0;
  std::string url;
  std::string event;
  int attempt = 0;  // the number of this attempt, from 1
  std::string lease;
  std::string secret;
  std::string payload;
  std::optional<std::string> actor;  // the API key that wrote the event (sql/057)
  std::string created_at;
  int64_t webhook_id = 0;
  int64_t message_of = 0;                      // the delivery whose webhook-id this one sends
  std::optional<std::string> previous_secret;  // during a rotation
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

// The tenant the last claim of this process ended with: the next claim, in
// this pass or the next, takes up the turn of tenants after it.
int64_t g_last_tenant = 0;

double random01() { return randombytes_uniform(1u << 30) / static_cast<double>(1u << 30); }

// The body every attempt of a delivery sends, byte for byte.
std::string delivery_body(const Claimed& c) {
  Json body = json_object();
  json_add_str(body.get(), "event", c.event);
  json_add_int(body.get(), "tenant_id", c.tenant_id);
  json_add_str(body.get(), "timestamp", c.created_at);
  Json data = json_parse(c.payload);
  json_add(body.get(), "data", data ? std::move(data) : json_object());
  if (c.actor) {
    Json actor = json_parse(*c.actor);
    if (actor) json_add(body.get(), "actor", std::move(actor));
  }
  return json_dump(body.get());
}

WebhookRequest build_request(const Claimed& c, int64_t now_unix, std::string* problem) {
  WebhookRequest req;
  req.url = c.url;
  req.body = delivery_body(c);
  std::string msg_id = webhook_message_id(c.tenant_id, c.message_of);
  std::optional<std::string> key = webhook_secret_key(c.secret);
  std::optional<std::string> previous_key;
  if (c.previous_secret) previous_key = webhook_secret_key(*c.previous_secret);
  if (!key || (c.previous_secret && !previous_key)) {
    *problem = "the subscription's secret is malformed";
    return req;
  }
  // Standard Webhooks: space-separated signatures, any of which verifies.
  std::string signatures = webhook_signature(*key, msg_id, now_unix, req.body);
  if (previous_key) {
    // Appended in two steps: GCC 12's -O2 warns (-Wrestrict, a false
    // positive) on " " + std::string&& and -Werror fails the Release build.
    signatures += ' ';
    signatures += webhook_signature(*previous_key, msg_id, now_unix, req.body);
  }
  req.headers = {
      "Content-Type: application/json",
      "webhook-id: " + msg_id,
      "webhook-timestamp: " + std::to_string(now_unix),
      "webhook-signature: " + signatures,
  };
  return req;
}

void set_failing(Db& db, int64_t tenant_id, int64_t webhook_id, bool failing) {
  DbResult r = db.exec(failing ? kSetFailing : kSetRecovered, {tenant_id, webhook_id});
  if (!r.ok()) {
    log_error("webhook subscription %lld (tenant %lld): could not record that it %s: %s",
              static_cast<long long>(webhook_id), static_cast<long long>(tenant_id),
              failing ? "is failing" : "recovered", r.error().message.c_str());
  }
}

// The log line of a failed attempt that was recorded.
void log_outcome(const Claimed& c, const WebhookResponse& r, bool for_good, int64_t delay_ms) {
  std::string msg_id = webhook_message_id(c.tenant_id, c.message_of);
  if (for_good) {
    // The delivery, not its URL: receivers often put a credential in it.
    log_warn("webhook %s (tenant %lld, delivery %lld): failed for good after attempt %d: %s",
             msg_id.c_str(), static_cast<long long>(c.tenant_id), static_cast<long long>(c.id),
             c.attempt, r.error.c_str());
  } else {
    log_info("webhook %s (tenant %lld, delivery %lld): attempt %d failed (%s); next in %.1f s",
             msg_id.c_str(), static_cast<long long>(c.tenant_id), static_cast<long long>(c.id),
             c.attempt, r.error.c_str(), static_cast<double>(delay_ms) / 1000.0);
  }
}

// One line per attempt (at info in json mode, debug in text mode, where the
// failures already have lines of their own): ids, outcome and time, never
// the URL (receivers put credentials in it) nor the secret.
void log_attempt(const Claimed& c, const WebhookResponse& r, const char* outcome) {
  LogLevel level = log_format() == LogFormat::kJson ? LogLevel::kInfo : LogLevel::kDebug;
  if (!log_enabled(level)) return;
  Json fields = json_object();
  json_add_int(fields.get(), "delivery_id", c.id);
  json_add_int(fields.get(), "tenant_id", c.tenant_id);
  json_add_int(fields.get(), "webhook_id", c.webhook_id);
  json_add_str(fields.get(), "event", c.event);
  json_add_int(fields.get(), "attempt", c.attempt);
  json_add_str(fields.get(), "outcome", outcome);
  if (r.status != 0) json_add_int(fields.get(), "status", r.status);
  if (!r.error.empty()) json_add_str(fields.get(), "error", r.error);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c.started)
          .count();
  json_add_num(fields.get(), "duration_ms", std::round(ms * 1000) / 1000);
  log_fields(level, "webhook delivery attempt", fields.get());
}

void record(Db& db, const Config& config, const Claimed& c, const WebhookResponse& r) {
  std::string msg_id = webhook_message_id(c.tenant_id, c.message_of);
  log_attempt(c, r, r.delivered() ? "delivered" : "failed");
  std::optional<int64_t> status;
  if (r.status != 0) status = r.status;
  if (r.delivered()) {
    DbResult done = db.exec(kRecordDelivered, {c.tenant_id, c.id, c.lease, status});
    if (!done.ok()) {
      log_error("webhook %s: recording the delivery failed: %s", msg_id.c_str(),
                done.error().message.c_str());
    } else if (done->empty()) {
      log_warn("webhook %s: delivered, but the lease had passed to another worker", msg_id.c_str());
    } else if (done->boolean(0, "was_failing")) {
      set_failing(db, c.tenant_id, done->int64(0, "webhook_id"), false);
    }
    return;
  }
  if (!r.log_detail.empty()) {
    // Only here: the delivery record tells the tenant no address.
    log_warn("webhook %s (tenant %lld, delivery %lld): %s; %s", msg_id.c_str(),
             static_cast<long long>(c.tenant_id), static_cast<long long>(c.id), r.error.c_str(),
             r.log_detail.c_str());
  }
  std::optional<int64_t> retry_after;
  if (r.retry_after) retry_after = parse_retry_after(*r.retry_after, std::time(nullptr));
  int64_t delay_ms = next_attempt_delay_ms(c.attempt, config.webhook_retry_base_seconds, random01(),
                                           r.status, retry_after);
  DbResult done = db.exec(kRecordFailed, {c.tenant_id, c.id, c.lease, status, r.error, delay_ms,
                                          config.webhook_max_attempts});
  if (!done.ok()) {
    log_error("webhook %s: recording the attempt failed: %s", msg_id.c_str(),
              done.error().message.c_str());
  } else if (done->empty()) {
    log_warn("webhook %s: attempt %d failed (%s); the lease had passed to another worker",
             msg_id.c_str(), c.attempt, r.error.c_str());
  } else {
    if (!done->boolean(0, "was_failing")) {
      set_failing(db, c.tenant_id, done->int64(0, "webhook_id"), true);
    }
    log_outcome(c, r, done->text(0, "status") == "failed", delay_ms);
  }
}

// One pass: claims due rows while there are free slots, sends them, and
// records each attempt as it finishes.
class Delivery {
 public:
  Delivery(Db& db, const Config& config)
      : db_(db),
        config_(config),
        sender_(config.webhook_timeout_seconds, config.webhook_allow_private_targets,
                config.webhook_allow_any_port) {}

  // Returns the rows claimed, or -1 when the pass failed before claiming any.
  int run() {
    auto started = std::chrono::steady_clock::now();
    int claimed_total = 0;
    bool claiming = true;    // false once the budget is spent or the database failed
    bool claim_now = false;  // a request finished since the last claim (slots were freed)
    for (;;) {
      auto now = std::chrono::steady_clock::now();
      if (now - started >= kPassBudget || stop_requested()) claiming = false;
      int free = kMaxInFlight - static_cast<int>(sender_.in_flight());
      int claimed = 0;
      auto since_claim = now - last_claim_;
      bool due = sender_.in_flight() == 0 || (claim_now && since_claim >= kMinClaimGap) ||
                 since_claim >= kReclaimInterval;
      if (claiming && free > 0 && due) {
        claimed = claim(free);
        last_claim_ = now;
        claim_now = false;
        if (claimed < 0) {
          if (claimed_total == 0 && sender_.in_flight() == 0) return -1;
          claiming = false;  // finish what is in flight
          claimed = 0;
        }
        claimed_total += claimed;
      }
      if (sender_.in_flight() == 0) {
        // Done, unless the last claim settled rows without sending them
        // (more may be due).
        if (!claiming || claimed == 0) break;
        continue;
      }
      // Back in time for a claim that waits only for its gap (not when
      // every slot is taken: then only a finished request frees one).
      int wait_ms = 200;
      if (claim_now && claiming && free > 0) {
        auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(kMinClaimGap - since_claim);
        wait_ms = static_cast<int>(std::max<int64_t>(1, left.count()));
      }
      std::vector<WebhookOutcome> finished = sender_.wait(wait_ms);
      for (WebhookOutcome& f : finished) {
        auto it = sending_.find(f.tag);
        if (it == sending_.end()) continue;
        record(db_, config_, it->second, f.response);
        sending_.erase(it);
      }
      // A finished row frees a slot of its subscription and its tenant too.
      claim_now = claim_now || !finished.empty();
    }
    return claimed_total;
  }

 private:
  // Records the attempts of stopped workers (kFindInterrupted) as failed
  // attempts: retried after the usual backoff, or failed when it was the
  // last. Not a reason for the subscription to count as failing: its
  // receiver did not fail. Returns false when the database failed.
  bool settle_interrupted() {
    DbResult found = db_.exec(kFindInterrupted);
    if (!found.ok()) {
      log_error("finding interrupted webhook attempts failed: %s", found.error().message.c_str());
      return false;
    }
    for (int i = 0; i < found->size(); ++i) {
      int64_t tenant_id = found->int64(i, "tenant_id"), id = found->int64(i, "id");
      int attempts = static_cast<int>(found->int64(i, "attempts"));
      bool last = attempts >= config_.webhook_max_attempts;
      int64_t delay_ms = next_attempt_delay_ms(attempts, config_.webhook_retry_base_seconds,
                                               random01(), 0, std::nullopt);
      std::optional<int64_t> no_status;
      DbResult done = db_.exec(kRecordFailed, {tenant_id, id, found->str(i, "lease_until"),
                                               no_status, last ? kInterruptedLast : kInterrupted,
                                               delay_ms, config_.webhook_max_attempts});
      if (!done.ok()) {
        log_error("recording an interrupted webhook attempt failed: %s",
                  done.error().message.c_str());
        return false;
      }
      if (!done->empty()) {
        log_warn(
            "webhook %s: attempt %d was interrupted (its worker stopped); %s",
            webhook_message_id(tenant_id, id).c_str(), attempts,
            done->text(0, "status") == "failed" ? "failed for good" : "retried after the backoff");
      }
    }
    return true;
  }

  // Claims up to `n` rows, tenant by tenant in turn (kDueTenants: at most
  // `n` tenants, each offered an equal share of the `n` slots), and starts
  // sending them. Returns the rows claimed, or -1.
  int claim(int n) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_settle_ >= kReclaimInterval) {
      if (!settle_interrupted()) return -1;
      last_settle_ = now;
    }
    DbResult tenants = db_.exec(kDueTenants, {n, g_last_tenant});
    if (!tenants.ok()) {
      log_error("finding tenants with due webhook deliveries failed: %s",
                tenants.error().message.c_str());
      return -1;
    }
    int count = tenants->size();
    if (count == 0) return 0;
    int share = (n + count - 1) / count;
    int left = n, claimed = 0;
    for (int i = 0; i < count && left > 0; ++i) {
      int64_t tenant_id = tenants->int64(i, "tenant_id");
      int got = claim_tenant(tenant_id, std::min(share, left));
      if (got < 0) return claimed > 0 ? claimed : -1;
      g_last_tenant = tenant_id;
      left -= got;
      claimed += got;
    }
    return claimed;
  }

  // Claims up to `n` rows of one tenant and starts sending them (rows that
  // must not be sent are settled at once). Returns the rows claimed, or -1.
  int claim_tenant(int64_t tenant_id, int n) {
    DbResult r = db_.exec(kClaim, {n, config_.webhook_timeout_seconds + kLeaseMarginSeconds,
                                   kPerWebhookInFlight, kPerTenantInFlight, tenant_id});
    if (!r.ok()) {
      log_error("claiming webhook deliveries (tenant %lld) failed: %s",
                static_cast<long long>(tenant_id), r.error().message.c_str());
      return -1;
    }
    int64_t now_unix = std::time(nullptr);
    const Col tenant = r->col("tenant_id"), id = r->col("id"), url = r->col("url"),
              event = r->col("event"), attempts = r->col("attempts"), lease = r->col("lease_until"),
              secret = r->col("secret"), payload = r->col("payload"), actor = r->col("actor"),
              created = r->col("created_at"), webhook = r->col("webhook_id"),
              message_of = r->col("message_of"), previous_secret = r->col("previous_secret");
    for (int i = 0; i < r->size(); ++i) {
      Claimed c{r->int64(i, tenant),
                r->int64(i, id),
                r->str(i, url),
                r->str(i, event),
                static_cast<int>(r->int64(i, attempts)),
                r->str(i, lease),
                r->str(i, secret),
                r->str(i, payload),
                r->opt_str(i, actor),
                r->str(i, created),
                r->int64(i, webhook),
                r->int64(i, message_of),
                r->opt_str(i, previous_secret)};
      if (c.attempt > config_.webhook_max_attempts) {
        DbResult gave_up = db_.exec(kGiveUp, {c.tenant_id, c.id, c.lease, kInterruptedLast});
        if (!gave_up.ok())
          log_error("webhook: giving up failed: %s", gave_up.error().message.c_str());
        continue;
      }
      std::string problem;
      WebhookRequest req = build_request(c, now_unix, &problem);
      if (!problem.empty()) {
        WebhookResponse refused;
        refused.error = problem;
        record(db_, config_, c, refused);
        continue;
      }
      uint64_t tag = next_tag_++;
      if (std::optional<WebhookOutcome> failed = sender_.start(tag, std::move(req))) {
        record(db_, config_, c, failed->response);
        continue;
      }
      sending_.emplace(tag, std::move(c));
    }
    return r->size();
  }

  Db& db_;
  const Config& config_;
  WebhookSender sender_;
  std::unordered_map<uint64_t, Claimed> sending_;  // by the sender's tag
  uint64_t next_tag_ = 0;
  std::chrono::steady_clock::time_point last_claim_{};
  std::chrono::steady_clock::time_point last_settle_{};
};

// Disables the subscriptions that failed long enough: at most 100 per
// pass, each in a transaction of its own tenant (no lock across tenants).
// Returns how many it disabled, or -1.
int disable_failing_webhooks(Db& db, const Config& config) {
  const int failures = config.webhook_disable_after_failures;
  const int hours = config.webhook_disable_after_hours;
  if (failures == 0) return 0;
  DbResult found = db.exec(kDisableCandidates, {hours});
  if (!found.ok()) {
    log_error("finding failing webhook subscriptions failed: %s", found.error().message.c_str());
    return -1;
  }
  const std::string reason = "Disabled automatically: the last " + std::to_string(failures) +
                             " deliveries failed and none succeeded for " + std::to_string(hours) +
                             " hours";
  int disabled = 0;
  for (int i = 0; i < found->size(); ++i) {
    int64_t tenant_id = found->int64(i, "tenant_id"), id = found->int64(i, "id");
    // The tenant's ADMINs are mailed by the same statement (decision 0104).
    DbResult done =
        db.exec(kDisable, {tenant_id, id, hours, failures, reason, config.mail_enabled()});
    if (!done.ok()) {
      log_error("disabling webhook subscription %lld (tenant %lld) failed: %s",
                static_cast<long long>(id), static_cast<long long>(tenant_id),
                done.error().message.c_str());
      return -1;
    }
    if (done->empty()) continue;  // a delivery succeeded, or too few failed
    log_warn("webhook subscription %lld (tenant %lld) disabled: %s", static_cast<long long>(id),
             static_cast<long long>(tenant_id), reason.c_str());
    ++disabled;
  }
  return disabled;
}

}  // namespace

int task_deliver_webhooks(Db& db, const Config& config) {
  DbResult cancelled = db.exec(kCancelDeleted);
  if (!cancelled.ok()) {
    log_error("cancelling deliveries of deleted webhooks failed: %s",
              cancelled.error().message.c_str());
    return -1;
  }
  int delivered = Delivery(db, config).run();
  if (delivered < 0) return -1;
  int disabled = disable_failing_webhooks(db, config);
  if (disabled < 0) return -1;
  return static_cast<int>(cancelled->affected()) + delivered + disabled;
}

}  // namespace ca
