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

// A create: the subscription's id from the coordinator's sequence, with the
// session check (send_check()); then one call of ca_webhook_create()
// (sql/063), which Citus runs whole on the tenant's worker
// (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md):
// the tenant's turn at its row of cap_locks (sql/039), the count under
// WEBHOOKS_MAX_PER_TENANT ($7; at the cap it raises CA422 with $8, a 422
// under "limit", which rolls the call back), the subscription and its audit
// entry webhook.created ($9 the caller, audit_who()).
const Statement kCreateId{"webhooks_create_id", "SELECT nextval('webhooks_id_seq') AS webhook_id"};
const Statement kCreate{
    "webhooks_create",
    "SELECT json FROM ca_webhook_create(tenant_id => $1, webhook_id => $2, url => $3::text, "
    "events => $4::jsonb, secret => $5::text, description => $6::text, max => $7::bigint, "
    "refusal => $8::text, who => $9::jsonb)"};

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
// field as it is; $5 whether description was sent, $6 its value; $8 the
// reason a disabling update stamps; $9 the caller (audit_who()). Enabling
// clears the disabled state and the failing mark (the subscription starts
// afresh: the run of failures that disabled it does not disable it again
// before WEBHOOK_DISABLE_AFTER_HOURS more); so does a new URL, which is a
// new receiver and takes the subscription's pending deliveries that no
// worker holds (their retries go to the receiver the ADMIN fixed). With the
// audit entry webhook.updated: one call of ca_webhook_update() (sql/063),
// which Citus runs whole on the tenant's worker
// (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md).
// `json` NULL: no such live subscription.
const Statement kUpdate{
    "webhooks_update",
    "SELECT json FROM ca_webhook_update(tenant_id => $1, webhook_id => $2::bigint, "
    "url => $3::text, events => $4::jsonb, description_sent => $5::boolean, "
    "description => $6::text, is_active => $7::boolean, disabled_reason => $8::text, "
    "who => $9::jsonb)"};

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

// A test event: its event's and delivery's ids from the coordinator's
// sequences, with the session check (send_check()); then one call of
// ca_webhook_test() (sql/063), which Citus runs whole on the tenant's worker
// (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md):
// the subscription's row locked, whether it is enabled, the pending count
// after the lock (so that two test events at once count each other's
// delivery), then the audit entry webhook.tested (decision 0112), the
// `webhook.test` event ($5 its payload) and its one delivery, to this
// subscription only (never fanned out: the subscriptions' event lists
// cannot name it). $6 WEBHOOK_RESEND_MAX_PENDING, $7 the caller
// (audit_who()). `outcome` says which refusal, or 'sent' with `json`.
const Statement kTestIds{"webhooks_test_ids",
                         "SELECT nextval('events_id_seq') AS event_id, "
                         "nextval('webhook_deliveries_id_seq') AS delivery_id"};
const Statement kSendTest{
    "webhooks_send_test",
    "SELECT outcome, json FROM ca_webhook_test(tenant_id => $1, webhook_id => $2::bigint, "
    "event_id => $3, delivery_id => $4, payload => $5::jsonb, max => $6::bigint, "
    "who => $7::jsonb)"};

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
  // Round trip 2: the session check again and the id; 3: the call (with an
  // Idempotency-Key, in one transaction).
  CA_TRY(ids, send_check(ctx, access, [](const Principal&) { return Queries{{&kCreateId, {}}}; }));
  const int64_t max = ctx.config.webhooks_max_per_tenant;
  CA_TRY(w, send_call(ctx, {{&kCreate,
                             {tenant_id, ids.results[0].rows().int64(0, "webhook_id"), url.value,
                              json_dump(events.get()), secret, desc, max,
                              Error::limit_message("webhook subscriptions per tenant", max,
                                                   "WEBHOOKS_MAX_PER_TENANT"),
                              audit_who(ctx, ids.who)}}}));
  Rows& r = w[0].rows();
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
  // One round trip: the session check and the call (common/request_tx.h).
  CA_TRY(w, send_once(ctx, access, [&](const Principal& who) {
           return Queries{{&kUpdate,
                           {tenant_id, id, new_url, new_events, description.present, desc, active,
                            kDisabledByAdmin, audit_who(ctx, who)}}};
         }));
  Rows& r = w.results[0].rows();
  if (r.is_null(0, "json")) return Error::not_found("Webhook not found");
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
  CA_TRY(ids, send_check(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [](const Principal&) {
           return Queries{{&kTestIds, {}}};
         }));
  const Rows& id_rows = ids.results[0].rows();
  const std::string payload = "{\"webhook_id\":" + std::to_string(id) + "}";
  CA_TRY(
      done,
      send_call(ctx, {{&kSendTest,
                       {tenant_id, id, id_rows.int64(0, "event_id"),
                        id_rows.int64(0, "delivery_id"), payload, max, audit_who(ctx, ids.who)}}}));
  Rows& r = done[0].rows();
  const std::string outcome = r.str(0, "outcome");
  if (outcome == "not_found") return Error::not_found("Webhook not found");
  if (outcome == "disabled") {
    return Error::bad_request("The webhook is disabled; enable it before sending a test event");
  }
  if (outcome == "limit") return Error::limit_reached(kPendingLimitWhat, max, kPendingLimitSetting);
  return Response::text(202, "{\"data\":" + r.str(0, "json") + "}");
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
