// Scheduled publishing and push for announcements (docs/design/api-conventions.md "Announcements").
//
// Publishing: due `scheduled` rows become `published` in batches, each batch
// one statement that also writes their `announcement.published` events, so
// an announcement is published, and its event written, exactly once.
//
// Push: a published, active announcement with push `pending` is claimed by
// one statement that sets `sending` with a random claim id and a lease, so
// two workers never send the same push. The outcome (`success` + sent_at, or
// `failed` + push_error) is written only by the holder of the claim. A claim
// whose lease ran out (its worker died mid-send) is taken over by the next
// pass, so only a worker killed between sending and recording can cause a
// second send of the same push.
//
// Both claim tenant by tenant, so that on Citus every locking statement is a
// router query on one tenant's shard (FOR UPDATE across shards is refused;
// docs/scaling.md): a statement without locks lists the tenants with due
// rows, in turn from where the last pass stopped, and each tenant's rows are
// then claimed by a statement with tenant_id = $n. Taking tenants in turn
// keeps one tenant's backlog from holding back the others.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "../announcements/announcement_json.h"
#include "events.h"
#include "json.h"
#include "jwt.h"
#include "log.h"
#include "push_gateway.h"
#include "tasks.h"

namespace ca {
namespace {

constexpr int kPublishBatch = 100;
constexpr int kPublishMaxPerPass = 1000;
constexpr int kPushMaxPerPass = 100;
// A pass also has webhook deliveries to do: pushes stop being claimed after this.
constexpr auto kPushPassBudget = std::chrono::seconds(5);

// Tenants at most per statement of the lists below.
constexpr int kTenantsPerRound = 100;

// $1 tenants at most, $2 the tenant the previous round ended with (0 at
// first): tenants with scheduled rows that fell due, those after $2 first.
const Statement kPublishDueTenants{
    "worker_announcements_publish_due_tenants",
    "SELECT tenant_id FROM announcements WHERE status = 'scheduled' AND scheduled_at <= now() "
    "GROUP BY tenant_id ORDER BY tenant_id <= $2, tenant_id LIMIT $1"};

// $1 rows at most, $2 the tenant. One batch is one statement, committed on
// its own (one round trip, as common/request_tx.h's writes): the rows published,
// the tenant's active list version moved (`list_version`, sql/019, sql/032), and one
// `announcement.published` event per row with its deliveries (events.h), in
// the order the rows fell due. Column: published, the rows published. The
// locking CTEs here and in kPushClaim are MATERIALIZED: run once, not again
// for each row of the tenant the UPDATE joins them to (a rerun skips the
// rows this statement already updated and locks the next ones: every due
// row of the tenant).
const Statement kPublishDue{
    "worker_announcements_publish_due",
    "WITH due AS MATERIALIZED (SELECT id FROM announcements "
    "             WHERE tenant_id = $2 AND status = 'scheduled' AND scheduled_at <= now() "
    "             ORDER BY scheduled_at LIMIT $1 FOR UPDATE SKIP LOCKED), "
    "published AS (UPDATE announcements x SET status = 'published', published_at = now(), "
    "        updated_at = now() "
    "      FROM due WHERE x.tenant_id = $2 AND x.id = due.id RETURNING x.*), "
    "list_version AS (INSERT INTO announcement_list_versions AS v (tenant_id, version) "
    "  SELECT $2::bigint, 1 WHERE EXISTS (SELECT 1 FROM published a) "
    "  ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1), "
    "rendered AS (SELECT a.tenant_id, a.scheduled_at, a.id, " CA_ANNOUNCEMENT_JSON
    "      FROM published a JOIN users u ON u.id = a.created_by), " CA_EVENTS_CTE("$2",
        "SELECT r.tenant_id, 'announcement.published', r.json::jsonb FROM rendered r "
        "ORDER BY r.scheduled_at, r.id") " "
    "SELECT count(*) AS published FROM published a"};

// Pending pushes of announcements that expired before they went out.
const Statement kPushExpired{
    "worker_announcements_push_expired",
    "UPDATE announcements SET push_status = 'failed', "
    "  push_error = 'announcement expired before the push was sent', push_claim = NULL, "
    "  push_lease_until = NULL, updated_at = now() "
    "WHERE status = 'published' AND is_push_enabled AND expires_at <= now() "
    "  AND (push_status = 'pending' OR (push_status = 'sending' AND push_lease_until < now()))"};

// Pushes whose worker died while sending, after the announcement was
// archived or its push turned off: kPushClaim no longer takes them over, and
// whether the gateway got them is unknown. By announcements_sending_idx.
const Statement kPushAbandoned{
    "worker_announcements_push_abandoned",
    "UPDATE announcements SET push_status = 'failed', "
    "  push_error = 'the worker stopped while sending; not retried: the announcement was "
    "archived or its push turned off', "
    "  push_claim = NULL, push_lease_until = NULL, updated_at = now() "
    "WHERE push_status = 'sending' AND push_lease_until < now() "
    "  AND NOT (status = 'published' AND is_push_enabled)"};

// $1 tenants at most, $2 the tenant the previous round ended with (0 at
// first): tenants with a push to send or to take over, those after $2 first.
const Statement kPushDueTenants{
    "worker_announcements_push_due_tenants",
    "SELECT tenant_id FROM announcements "
    "WHERE status = 'published' AND is_push_enabled "
    "  AND (push_status = 'pending' OR (push_status = 'sending' AND push_lease_until < now())) "
    "  AND (scheduled_at IS NULL OR scheduled_at <= now()) "
    "  AND (expires_at IS NULL OR expires_at > now()) "
    "GROUP BY tenant_id ORDER BY tenant_id <= $2, tenant_id LIMIT $1"};

// $1 lease in seconds, $2 the tenant, $3 a fresh claim id (made here, not
// gen_random_uuid(): Citus refuses VOLATILE functions in an UPDATE of a
// distributed table). Columns: tenant_id, id, claim, title, body, push_data,
// topic, target_type, target_value. A `users` target was checked against
// the tenant's members when it was written; the push may go out days
// later, so it is narrowed to those still members now (NULL when none is).
const Statement kPushClaim{
    "worker_announcements_push_claim",
    "WITH claimed AS MATERIALIZED (SELECT id FROM announcements "
    "      WHERE tenant_id = $2 AND status = 'published' AND is_push_enabled "
    "        AND (push_status = 'pending' OR (push_status = 'sending' AND push_lease_until < "
    "now())) "
    "        AND (scheduled_at IS NULL OR scheduled_at <= now()) "
    "        AND (expires_at IS NULL OR expires_at > now()) "
    "      ORDER BY push_lease_until NULLS FIRST, published_at, id "
    "      LIMIT 1 FOR UPDATE SKIP LOCKED) "
    "UPDATE announcements x SET push_status = 'sending', push_claim = $3::uuid, "
    "  push_lease_until = now() + make_interval(secs => $1) "
    "FROM claimed c WHERE x.tenant_id = $2 AND x.id = c.id "
    "RETURNING x.tenant_id, x.id, x.push_claim::text AS claim, "
    "  COALESCE(x.push_title, x.title) AS title, COALESCE(x.push_body, x.summary) AS body, "
    "  x.push_data::text AS data, x.topic, x.target_type, "
    "  CASE WHEN x.target_type = 'users' THEN "
    "    (SELECT string_agg(t.id::text, ',' ORDER BY t.n) "
    "     FROM unnest(string_to_array(x.target_value, ',')::bigint[]) WITH ORDINALITY t(id, n) "
    "     JOIN memberships m ON m.tenant_id = x.tenant_id AND m.user_id = t.id) "
    "  ELSE x.target_value END AS target_value"};

// $1 tenant, $2 id, $3 claim, $4 outcome, $5 error or NULL.
// Two statements, not one with `CASE WHEN success THEN now()`: Citus
// refuses a non-IMMUTABLE function inside CASE in an UPDATE.
const Statement kPushDone{
    "worker_announcements_push_done",
    "UPDATE announcements SET push_status = $4, push_error = $5, sent_at = now(), "
    "  push_claim = NULL, push_lease_until = NULL, updated_at = now() "
    "WHERE tenant_id = $1 AND id = $2 AND push_claim = $3::uuid AND push_status = 'sending'"};
const Statement kPushFailed{
    "worker_announcements_push_failed",
    "UPDATE announcements SET push_status = $4, push_error = $5, "
    "  push_claim = NULL, push_lease_until = NULL, updated_at = now() "
    "WHERE tenant_id = $1 AND id = $2 AND push_claim = $3::uuid AND push_status = 'sending'"};

// Where the next round of each task takes up the turn of tenants (this
// process's; another worker keeps its own).
int64_t g_last_publish_tenant = 0;
int64_t g_last_push_tenant = 0;

// One batch of one tenant (kPublishDue); returns how many were published,
// -1 on error.
int publish_batch(Db& db, int64_t tenant_id) {
  DbResult due = db.exec(kPublishDue, {kPublishBatch, tenant_id});
  if (!due.ok()) {
    log_error("publishing scheduled announcements: %s", due.error().message.c_str());
    return -1;
  }
  return static_cast<int>(due->int64(0, "published"));
}

// A topic as the gateway gets it: in the tenant's own namespace,
// "tenant_<id>.<topic>", so that no tenant can name another's topic (a
// tenant writing "tenant_9.news" gets "tenant_4.tenant_9.news").
std::string tenant_topic(int64_t tenant_id, std::string_view topic) {
  return "tenant_" + std::to_string(tenant_id) + "." + std::string(topic);
}

// The gateway request: {title, body, data, topic, target_type, target_value,
// announcement_id, tenant_id}, from a kPushClaim row. Topics are scoped to
// the tenant (tenant_topic); `all` names the tenant's root topic
// "tenant_<id>" as its target_value, so a gateway that routes by topic alone
// still reaches only this tenant's audience; `users` ids are members of the
// tenant (kPushClaim) and go as they are.
std::string push_body(const Rows& r) {
  int64_t tenant_id = r.int64(0, "tenant_id");
  Json body = json_object();
  cJSON* o = body.get();
  json_add_str(o, "title", r.text(0, "title"));
  json_add_str(o, "body", r.text(0, "body"));
  Json data = r.is_null(0, "data") ? nullptr : json_parse(r.text(0, "data"));
  json_add(o, "data", data ? std::move(data) : json_object());
  std::optional<std::string> topic;
  if (std::optional<std::string_view> t = r.opt_text(0, "topic"))
    topic = tenant_topic(tenant_id, *t);
  json_add_opt_str(o, "topic", topic);
  std::string_view target_type = r.text(0, "target_type");
  std::optional<std::string> target_value;
  if (target_type == "all") {
    target_value = "tenant_" + std::to_string(tenant_id);
  } else if (std::optional<std::string_view> v = r.opt_text(0, "target_value")) {
    target_value = target_type == "topic" ? tenant_topic(tenant_id, *v) : std::string(*v);
  }
  json_add_str(o, "target_type", target_type);
  json_add_opt_str(o, "target_value", target_value);
  json_add_int(o, "announcement_id", r.int64(0, "id"));
  json_add_int(o, "tenant_id", tenant_id);
  return json_dump(o);
}

// Claims and sends one push of the tenant; 1 when one was handled, 0 when
// none is due, -1 on error.
int push_one(Db& db, const Config& config, int lease_seconds, int64_t tenant_id_wanted) {
  DbResult claim = db.exec(kPushClaim, {lease_seconds, tenant_id_wanted, random_uuid()});
  if (!claim.ok()) {
    log_error("claiming a push: %s", claim.error().message.c_str());
    return -1;
  }
  if (claim->empty()) return 0;
  int64_t tenant_id = claim->int64(0, "tenant_id");
  int64_t id = claim->int64(0, "id");
  auto started = std::chrono::steady_clock::now();
  PushOutcome outcome;
  if (claim->text(0, "target_type") == "users" && claim->is_null(0, "target_value")) {
    outcome.error = "no target user is a member of the tenant any more";
  } else {
    outcome = push_gateway_send(config, push_body(claim.rows()));
  }
  if (log_format() == LogFormat::kJson) {
    // One line per push, whatever its outcome (the gateway's token is never logged).
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    Json fields = json_object();
    json_add_int(fields.get(), "announcement_id", id);
    json_add_int(fields.get(), "tenant_id", tenant_id);
    json_add_str(fields.get(), "outcome", outcome.delivered ? "delivered" : "failed");
    if (!outcome.delivered) json_add_str(fields.get(), "error", outcome.error);
    json_add_num(fields.get(), "duration_ms", std::round(ms * 1000) / 1000);
    log_fields(outcome.delivered ? LogLevel::kInfo : LogLevel::kWarn, "push", fields.get());
  } else if (!outcome.delivered) {
    log_warn("push for announcement %lld (tenant %lld) failed: %s", static_cast<long long>(id),
             static_cast<long long>(tenant_id), outcome.error.c_str());
  }
  std::optional<std::string> error;
  if (!outcome.delivered) error = outcome.error.substr(0, 1000);
  DbResult done = db.exec(
      outcome.delivered ? kPushDone : kPushFailed,
      {tenant_id, id, claim->str(0, "claim"), outcome.delivered ? "success" : "failed", error});
  if (!done.ok()) {
    log_error("recording a push: %s", done.error().message.c_str());
    return -1;
  }
  if (done->affected() == 0) {
    log_warn("push for announcement %lld: the claim expired before the outcome was recorded",
             static_cast<long long>(id));
  }
  return 1;
}

}  // namespace

int task_publish_scheduled(Db& db, const Config&) {
  int total = 0;
  // Rounds over the tenants with due rows, a batch of each per round.
  while (total < kPublishMaxPerPass) {
    DbResult tenants = db.exec(kPublishDueTenants, {kTenantsPerRound, g_last_publish_tenant});
    if (!tenants.ok()) {
      log_error("finding scheduled announcements: %s", tenants.error().message.c_str());
      return -1;
    }
    if (tenants->empty()) break;
    int round = 0;  // none: the due rows are locked by another worker's batch
    for (int i = 0; i < tenants->size() && total < kPublishMaxPerPass; ++i) {
      int64_t tenant_id = tenants->int64(i, "tenant_id");
      int n = publish_batch(db, tenant_id);
      if (n < 0) return -1;
      total += n;
      round += n;
      g_last_publish_tenant = tenant_id;
    }
    if (round == 0) break;
  }
  return total;
}

int task_send_push(Db& db, const Config& config) {
  DbResult expired = db.exec(kPushExpired);
  if (!expired.ok()) {
    log_error("expiring pushes: %s", expired.error().message.c_str());
    return -1;
  }
  int total = static_cast<int>(expired->affected());
  DbResult abandoned = db.exec(kPushAbandoned);
  if (!abandoned.ok()) {
    log_error("failing abandoned pushes: %s", abandoned.error().message.c_str());
    return -1;
  }
  total += static_cast<int>(abandoned->affected());
  // The lease outlives a send (the gateway timeout) with a wide margin.
  int timeout = config.webhook_timeout_seconds > 0 ? config.webhook_timeout_seconds : 10;
  int lease_seconds = std::max(120, 2 * timeout + 30);
  auto deadline = std::chrono::steady_clock::now() + kPushPassBudget;
  // Rounds over the tenants with a push due, one push of each per round.
  int sent = 0;
  while (sent < kPushMaxPerPass && std::chrono::steady_clock::now() < deadline) {
    DbResult tenants = db.exec(kPushDueTenants, {kTenantsPerRound, g_last_push_tenant});
    if (!tenants.ok()) {
      log_error("finding pushes to send: %s", tenants.error().message.c_str());
      return -1;
    }
    if (tenants->empty()) break;
    int round = sent;
    for (int i = 0; i < tenants->size() && sent < kPushMaxPerPass &&
                    std::chrono::steady_clock::now() < deadline;
         ++i) {
      int64_t tenant_id = tenants->int64(i, "tenant_id");
      int n = push_one(db, config, lease_seconds, tenant_id);
      if (n < 0) return -1;
      g_last_push_tenant = tenant_id;
      sent += n;
    }
    if (sent == round) break;  // another worker holds what is due
  }
  return total + sent;
}

}  // namespace ca
