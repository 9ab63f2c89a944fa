// Subscriptions: create, list, update, rotate the secret, send a test
// event, delete.
#include <string>

#include "audit.h"
#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "json_rendered.h"
#include "log.h"
#include "net_guard.h"
#include "page_rows.h"
#include "request_tx.h"
#include "user_turn.h"
#include "validate.h"
#include "webhook_signature.h"
#include "webhooks.h"

namespace ca {
namespace {

// The subscription as JSON (DESIGN §4 "Webhooks", sql/045), without its secret.
#define CA_WEBHOOK_JSON                                                                  \
  "ca_webhook_json(id => id, url => url, events => events, description => description, " \
  "is_active => is_active, disabled_at => disabled_at, "                                 \
  "disabled_reason => disabled_reason, created_at => created_at, "                       \
  "updated_at => updated_at) AS json"

// Creates take turns per tenant at a row of cap_locks (sql/039) on the
// tenant's own shard, taken first in the create's transaction with an
// upsert that changes nothing: a second create waits for the first to
// commit, so its count (a statement of its own, hence a snapshot taken after
// the lock) sees the first one's row. Not the tenants row: on Citus that is
// a reference table's, whose lock can be released before the other create's
// row is visible on the tenant's worker (decision 0060).
// $2: WEBHOOKS_MAX_PER_TENANT, $3 the refusal's text: at the cap the count
// raises CA422 (a 422 under "limit"), which rolls the request back. Sent
// after the tenant's turn (common/user_turn.h), in a statement of its own:
// its snapshot sees every create of the tenant committed before.
const Statement kUnderCap{
    "webhooks_under_cap",
    "SELECT CASE WHEN count(*) >= $2::bigint THEN ca_refuse('CA422', $3) "
    "END AS refused FROM webhooks WHERE tenant_id = $1 AND deleted_at IS NULL"};

// $6 the caller (audit_who()): the audit entry webhook.created.
const Statement kCreate{
    "webhooks_create",
    "WITH created AS (INSERT INTO webhooks (tenant_id, url, events, secret, description) "
    "  VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING id, " CA_WEBHOOK_JSON "), "
    CA_AUDIT_CTE("$1", "$6", "SELECT 'webhook.created', 'webhook', h.id, NULL FROM created h") " "
    "SELECT h.json FROM created h"};

// The page and the total in one round trip; deleted subscriptions are gone.
const Statement kList{"webhooks_list",
                      "WITH total AS (SELECT count(*) AS n FROM webhooks "
                      "               WHERE tenant_id = $1 AND deleted_at IS NULL), "
                      "page AS (SELECT id, " CA_WEBHOOK_JSON
                      " FROM webhooks WHERE tenant_id = $1 AND deleted_at IS NULL "
                      "         ORDER BY id LIMIT $2 OFFSET $3) "
                      "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "
                      "ORDER BY page.id"};

// Deactivates the subscription and ends its pending deliveries that no
// worker holds. A delivery a worker holds (live lease) is in flight and may
// finish; the worker fails it instead of retrying it. With its audit entry
// webhook.deleted: one call of ca_webhook_delete() (sql/062), which Citus
// runs whole on the tenant's worker
// (docs/decisions/0138-writes-are-delegated-calls.md). $3 audit_who().
const Statement kDelete{"webhooks_delete",
                        "SELECT deleted FROM ca_webhook_delete(tenant_id => $1, "
                        "webhook_id => $2::bigint, who => $3::jsonb)"};

// An update: $3 url, $4 events (jsonb text), $7 is_active: NULL leaves the
// field as it is; $5 whether description was sent, $6 its value. Enabling
// clears the disabled state and the failing mark (the subscription starts
// afresh: the run of failures that disabled it does not disable it again
// before WEBHOOK_DISABLE_AFTER_HOURS more); so does a new URL, which is a
// new receiver. $8 the caller (audit_who()): the audit entry webhook.updated,
// whose `changed` compares the fields an update takes before (`previous`, locked
// first: the update joins it) and after.
const Statement kUpdate{
    "webhooks_update",
    "WITH previous AS (SELECT id AS hook_id, url AS url_before, events AS events_before, "
    "  description AS description_before, is_active AS is_active_before FROM webhooks "
    "  WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE), "
    "updated AS (UPDATE webhooks "
    "SET url = COALESCE($3::text, url), events = COALESCE($4::jsonb, events), "
    "  description = CASE WHEN $5::boolean THEN $6::text ELSE description END, "
    "  is_active = COALESCE($7::boolean, is_active), "
    "  disabled_at = CASE WHEN $7::boolean THEN NULL ELSE disabled_at END, "
    "  disabled_reason = CASE WHEN $7::boolean THEN NULL ELSE disabled_reason END, "
    "  failing_since = CASE WHEN ($7::boolean AND NOT is_active) OR $3::text <> url THEN NULL "
    "    ELSE failing_since END, "
    "  updated_at = now() "
    "FROM previous o WHERE tenant_id = $1 AND id = o.hook_id "
    "RETURNING id, url, events, description, is_active, o.*), "
    CA_AUDIT_CTE("$1", "$8",
        "SELECT 'webhook.updated', 'webhook', h.id, ca_changed("
        "  jsonb_build_object('url', h.url_before, 'events', h.events_before, "
        "    'description', h.description_before, 'is_active', h.is_active_before), "
        "  jsonb_build_object('url', h.url, 'events', h.events, "
        "    'description', h.description, 'is_active', h.is_active), "
        "  '{url,events,description,is_active}') FROM updated h") " "
    "SELECT id FROM updated h"};

// Disabled by the update (is_active false, no date yet): when and why. A
// statement of its own, as Citus refuses now() inside a CASE of an UPDATE.
const Statement kStampDisabled{
    "webhooks_stamp_disabled",
    "UPDATE webhooks SET disabled_at = now(), disabled_reason = $3 "
    "WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL AND NOT is_active "
    "  AND disabled_at IS NULL"};

// A new URL also takes the subscription's pending deliveries that no worker
// holds: their retries go to the receiver the ADMIN fixed. $3 the new URL.
const Statement kMovePending{
    "webhooks_move_pending",
    "UPDATE webhook_deliveries SET url = $3 "
    "WHERE tenant_id = $1 AND webhook_id = $2 AND status = 'pending' AND url <> $3 "
    "  AND (lease_until IS NULL OR lease_until < now()) "
    "  AND EXISTS (SELECT FROM webhooks w WHERE w.tenant_id = $1 AND w.id = $2 "
    "              AND w.deleted_at IS NULL)"};

const Statement kGet{"webhooks_get",
                     "SELECT " CA_WEBHOOK_JSON
                     " FROM webhooks WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL"};

// $3 the new secret. The one it replaces signs beside it for
// kPreviousSecretHours (the worker sends both signatures meanwhile); a
// second rotation within that window drops the oldest one at once. $5 the
// caller (audit_who()): the audit entry webhook.secret_rotated.
// One call of ca_webhook_rotate_secret() (sql/062), which Citus runs whole
// on the tenant's worker (docs/decisions/0138-writes-are-delegated-calls.md).
const Statement kRotate{"webhooks_rotate_secret",
                        "SELECT rotated FROM ca_webhook_rotate_secret(tenant_id => $1, "
                        "webhook_id => $2::bigint, secret => $3::text, previous_hours => "
                        "$4::integer, who => $5::jsonb)"};
constexpr int kPreviousSecretHours = 24;

// A test event first locks the subscription's row and reads whether it is
// enabled; pending_count_query() follows as a statement of its own, with a
// snapshot taken after the lock, so that two test events at once count each
// other's delivery.
const Statement kLockForTest{
    "webhooks_lock_for_test",
    "SELECT is_active FROM webhooks WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL "
    "FOR UPDATE"};

// A `webhook.test` event and its one delivery, to this subscription only
// (never fanned out: the subscriptions' event lists cannot name it). $3 the
// payload, $4 the caller (audit_who()): the audit entry webhook.tested
// (decision 0112).
const Statement kSendTest{
    "webhooks_send_test",
    "WITH " CA_AUDIT_CTE("$1", "$4",
        "SELECT 'webhook.tested', 'webhook', $2::bigint, NULL") ", "
    "new_events AS (INSERT INTO events (tenant_id, type, payload, actor) "
    "  SELECT $1, 'webhook.test', $3::jsonb, " CA_EVENT_ACTOR_OF_AUDIT_ENTRIES " "
    "  RETURNING tenant_id, id, type) "
    "INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url) "
    "SELECT e.tenant_id, w.id, e.id, e.type, w.url FROM new_events e "
    "JOIN webhooks w ON w.tenant_id = $1 AND w.id = $2 AND w.tenant_id = e.tenant_id "
    "RETURNING " CA_DELIVERY_JSON};

constexpr size_t kMaxDescription = 500;
constexpr const char* kDisabledByAdmin = "Disabled by an ADMIN";

// `events`: a non-empty array of distinct known types (or "*"). Item errors
// use dotted keys (events.1), like the nested fields of other bodies.
Json read_events(BodyReader& in, FieldErrors& errs, bool required = true) {
  auto list = in.array("events", {.required = required});
  Json out = json_array();
  if (!list.has_value()) return out;
  if (cJSON_GetArraySize(list.value) == 0) {
    errs.add("events", "The events field must contain at least 1 item.");
    return out;
  }
  // A longer list must repeat itself; refusing it whole keeps a small body
  // from producing one error entry per item (megabytes of 422).
  size_t max_items = event_type_count();
  if (static_cast<size_t>(cJSON_GetArraySize(list.value)) > max_items) {
    errs.add("events",
             "The events field must not have more than " + std::to_string(max_items) + " items.");
    return out;
  }
  for (const std::string& type :
       distinct_known_names(list.value, "events", event_type_known, errs)) {
    json_append(out.get(), Json(cJSON_CreateString(type.c_str())));
  }
  return out;
}

// `url`: an absolute http(s) URL on an allowed port; unless private
// targets are allowed, its host must resolve to public addresses only
// (both checked again per delivery). The refusal names no address: what a
// host name resolves to is for the operator's log, not the tenant. The
// host is resolved on the process's resolver pool, outside any
// transaction; with every resolver thread busy, 503.
Result<bool> check_url(const Ctx& ctx, const Field<std::string>& url, FieldErrors& errs) {
  if (!url.has_value()) return true;
  std::string why;
  std::optional<HttpUrl> parsed = parse_http_url(url.value, &why);
  if (parsed && !webhook_port_allowed(parsed->port, ctx.config.webhook_allow_any_port)) {
    why = std::string("must use ") + kWebhookPortRule;
  } else if (parsed && !ctx.config.webhook_allow_private_targets) {
    TargetCheck target = check_url_target(*parsed);
    if (target.verdict == TargetCheck::Verdict::kBusy) {
      return Error::unavailable("Too many webhook URLs are being checked; try again shortly",
                                kResolveBusyRetryAfterSeconds);
    }
    why = target.why;
    if (!target.detail.empty()) {
      log_info("webhook subscription refused (tenant %lld): %s",
               static_cast<long long>(ctx.req.params[0]), target.detail.c_str());
    }
  }
  if (!why.empty()) errs.add("url", "The url field " + why + ".");
  return true;
}

}  // namespace

Result<Response> webhooks_create(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  const Access access = Access::path_tenant(tenant_id, Role::kAdmin);
  // Round trip 1, no transaction: the session check, so that only an ADMIN
  // of the tenant gets the URL's host resolved (check_url), which may take
  // seconds and so happens outside any transaction. A keyed request claims
  // its key with the write (or with the refusal below, so that a stored
  // answer is replayed before a 422).
  CA_TRY(caller, authenticate_path_tenant_unclaimed(ctx, tenant_id, Role::kAdmin));
  (void)caller;
  Result<Json> body = parse_json_object(ctx.req);
  if (!body.ok()) return refuse_before_write(ctx, access, body);
  FieldErrors errs;
  BodyReader in(body->get(), errs);
  auto url = in.str("url", {.required = true, .max = kMaxWebhookUrlLength});
  Json events = read_events(in, errs);
  auto description =
      in.str("description", {.nullable = true, .trim = true, .max = kMaxDescription});
  CA_TRY(checked, check_url(ctx, url, errs));
  (void)checked;
  if (!errs.empty()) return refuse_before_write(ctx, access, body, errs);

  std::optional<std::string> desc;
  if (description.has_value() && !description.value.empty()) desc = description.value;
  std::string secret = webhook_secret_generate();
  // Round trip 2: the session check again, the tenant's turn, the count
  // under the cap and the insert, in one transaction.
  CA_TRY(w, send_once(ctx, access, [&](const Principal& who) {
           Queries q = turn_under_cap(
               tenant_turn(tenant_id), kUnderCap, tenant_id, ctx.config.webhooks_max_per_tenant,
               "webhook subscriptions per tenant", "WEBHOOKS_MAX_PER_TENANT");
           q.push_back({&kCreate,
                        {tenant_id, url.value, json_dump(events.get()), secret, desc,
                         audit_who(ctx, who)}});
           return q;
         }));
  Rows& r = w.results[2].rows();
  // The secret is shown here only; lists never include it. It is base64
  // after a prefix: nothing in it needs escaping.
  const std::string quoted = "\"" + secret + "\"";
  return Response::json(201, json_raw(json_object_with(r.text(0, "json"), {{"secret", quoted}})));
}

// An update takes any of the create's fields and `is_active`, validated as
// the create validates them (the URL resolved outside any transaction, by
// an ADMIN only); a field not sent stays. 200 the subscription.
Result<Response> webhooks_update(Ctx& ctx) {
  const int64_t tenant_id = ctx.req.params[0], id = ctx.req.params[1];
  const Access access = Access::path_tenant(tenant_id, Role::kAdmin);
  CA_TRY(caller, authenticate_path_tenant_unclaimed(ctx, tenant_id, Role::kAdmin));
  (void)caller;
  Result<Json> body = parse_json_object(ctx.req);
  if (!body.ok()) return refuse_before_write(ctx, access, body);
  FieldErrors errs;
  BodyReader in(body->get(), errs);
  auto url = in.str("url", {.max = kMaxWebhookUrlLength});
  const bool events_sent = in.present("events");
  Json events = read_events(in, errs, false);
  auto description =
      in.str("description", {.nullable = true, .trim = true, .max = kMaxDescription});
  auto is_active = in.boolean("is_active", {});
  CA_TRY(checked, check_url(ctx, url, errs));
  (void)checked;
  if (!errs.empty()) return refuse_before_write(ctx, access, body, errs);

  std::optional<std::string> new_url, new_events, desc;
  if (url.has_value()) new_url = url.value;
  if (events_sent) new_events = json_dump(events.get());
  if (description.has_value() && !description.value.empty()) desc = description.value;
  std::optional<bool> active;
  if (is_active.has_value()) active = is_active.value;
  // One round trip: the session check, the update, its consequences and
  // the subscription as it now is, in one transaction.
  CA_TRY(w, send_once(ctx, access, [&](const Principal& who) {
           Queries q{{&kUpdate,
                      {tenant_id, id, new_url, new_events, description.present, desc, active,
                       audit_who(ctx, who)}},
                     {&kStampDisabled, {tenant_id, id, kDisabledByAdmin}}};
           if (new_url) q.push_back({&kMovePending, {tenant_id, id, *new_url}});
           q.push_back({&kGet, {tenant_id, id}});
           return q;
         }));
  Rows& r = w.results.back().rows();
  if (r.empty()) return Error::not_found("Webhook not found");
  return Response::text(200, r.str(0, "json"));
}

// A new secret, shown in this answer only; the old one keeps signing
// beside it for kPreviousSecretHours.
Result<Response> webhooks_rotate_secret(Ctx& ctx) {
  const int64_t tenant_id = ctx.req.params[0], id = ctx.req.params[1];
  std::string secret = webhook_secret_generate();
  CA_TRY(w, send_once(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal& who) {
           return Queries{
               {&kRotate, {tenant_id, id, secret, kPreviousSecretHours, audit_who(ctx, who)}}};
         }));
  if (!w.results[0].rows().boolean(0, "rotated")) return Error::not_found("Webhook not found");
  // Digits, and base64 after a prefix: nothing needs escaping.
  return Response::text(200, "{\"id\":" + std::to_string(id) + ",\"secret\":\"" + secret + "\"}");
}

// A `webhook.test` event delivered to this subscription only, signed and
// retried like any other: 202 with its delivery record.
Result<Response> webhooks_send_test(Ctx& ctx) {
  const int64_t tenant_id = ctx.req.params[0], id = ctx.req.params[1];
  const int64_t max = ctx.config.webhook_resend_max_pending;
  CA_TRY(
      w, send_first(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal&) {
        return Queries{{&kLockForTest, {tenant_id, id}}, pending_count_query(tenant_id, id, max)};
      }));
  Rows& hook = w.results[0].rows();
  if (hook.empty()) return Error::not_found("Webhook not found");
  if (!hook.boolean(0, "is_active")) {
    return Error::bad_request("The webhook is disabled; enable it before sending a test event");
  }
  if (w.results[1].rows().int64(0, "pending") >= max) {
    return Error::limit_reached(kPendingLimitWhat, max, kPendingLimitSetting);
  }
  const std::string payload = "{\"webhook_id\":" + std::to_string(id) + "}";
  CA_TRY(done, send_last(ctx, {{&kSendTest, {tenant_id, id, payload, audit_who(ctx, w.who)}}}));
  return Response::text(202, "{\"data\":" + done[0].rows().str(0, "json") + "}");
}

Result<Response> webhooks_list(Ctx& ctx) { return path_tenant_page(ctx, kList, Role::kAdmin); }

Result<Response> webhooks_delete(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  const Access access = Access::path_tenant(tenant_id, Role::kAdmin);
  FieldErrors errs;
  std::optional<std::string> id_text = ctx.req.query_param("id");
  int64_t id = id_text ? parse_id(*id_text) : 0;
  if (!id_text || id_text->empty()) {
    errs.add("id", "The id field is required.");
  } else if (id == 0) {
    errs.add("id", "The id field must be a positive integer.");
  }
  if (!errs.empty()) {
    // A token, tenant or role refused comes before a bad id.
    CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
    (void)who;
    return Error::invalid(errs);
  }
  // The session check and the delete: one round trip (common/request_tx.h).
  CA_TRY(w, send_once(ctx, access, [&](const Principal& who) {
           return Queries{{&kDelete, {tenant_id, id, audit_who(ctx, who)}}};
         }));
  if (!w.results[0].rows().boolean(0, "deleted")) return Error::not_found("Webhook not found");
  Json out = json_object();
  json_add_str(out.get(), "message", "Webhook deleted");
  return Response::json(200, out);
}

}  // namespace ca
