// Subscriptions: create, list, delete.
#include <set>
#include <string>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "log.h"
#include "net_guard.h"
#include "page_rows.h"
#include "user_turn.h"
#include "validate.h"
#include "webhook_signature.h"
#include "webhooks.h"
#include "write.h"

namespace ca {
namespace {

// The subscription as JSON (DESIGN §4 "Webhooks", sql/030), without its secret.
#define CA_WEBHOOK_JSON \
  "ca_webhook_json(id, url, events, description, is_active, created_at) AS json"

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

const Statement kCreate{"webhooks_create",
                        "INSERT INTO webhooks (tenant_id, url, events, secret, description) "
                        "VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING " CA_WEBHOOK_JSON};

// The page and the total in one round trip; deleted subscriptions are gone.
const Statement kList{"webhooks_list",
                      "WITH total AS (SELECT count(*) AS n FROM webhooks "
                      "               WHERE tenant_id = $1 AND deleted_at IS NULL), "
                      "page AS (SELECT id, " CA_WEBHOOK_JSON
                      " FROM webhooks WHERE tenant_id = $1 AND deleted_at IS NULL "
                      "         ORDER BY id LIMIT $2 OFFSET $3) "
                      "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "
                      "ORDER BY page.id"};

// Deactivates the subscription and, in the same statement, ends its pending
// deliveries that no worker holds. A delivery a worker holds (live lease) is
// in flight and may finish; the worker fails it instead of retrying it.
const Statement kDelete{
    "webhooks_delete",
    "WITH w AS (UPDATE webhooks SET is_active = false, deleted_at = now(), updated_at = now() "
    "           WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL "
    "           RETURNING tenant_id, id), "
    "d AS (UPDATE webhook_deliveries d SET status = 'failed', error = 'webhook deleted' "
    "      FROM w WHERE d.tenant_id = $1 AND d.webhook_id = w.id "
    "       AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now()) "
    "      RETURNING d.id) "
    "SELECT (SELECT count(*) FROM d) AS ended FROM w"};

constexpr size_t kMaxDescription = 500;

// `events`: a non-empty array of distinct known types (or "*"). Item errors
// use dotted keys (events.1), like the nested fields of other bodies.
Json read_events(BodyReader& in, FieldErrors& errs) {
  auto list = in.array("events", {.required = true});
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
  std::set<std::string> seen;
  int i = 0;
  for (const cJSON* item = list.value->child; item != nullptr; item = item->next, ++i) {
    std::string key = "events." + std::to_string(i);
    if (!cJSON_IsString(item)) {
      errs.add(key, "The " + key + " field must be a string.");
    } else if (!event_type_known(item->valuestring)) {
      errs.add(key, "The selected " + key + " is invalid.");
    } else if (!seen.insert(item->valuestring).second) {
      errs.add(key, "The " + key + " field has a duplicate value.");
    } else {
      json_append(out.get(), Json(cJSON_CreateString(item->valuestring)));
    }
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
  const int64_t max = ctx.config.webhooks_max_per_tenant;
  const std::string refusal =
      Error::limit_message("webhook subscriptions per tenant", max, "WEBHOOKS_MAX_PER_TENANT");
  // Round trip 2: the session check again, the tenant's turn, the count
  // under the cap and the insert, in one transaction.
  CA_TRY(w, write_once(ctx, access, [&](const Principal&) {
           return Queries{
               tenant_turn(tenant_id),
               {&kUnderCap, {tenant_id, max, refusal}},
               {&kCreate, {tenant_id, url.value, json_dump(events.get()), secret, desc}}};
         }));
  Rows& r = w.results[2].rows();
  // The secret is shown here only; lists never include it. It is base64
  // after a prefix: nothing in it needs escaping.
  const std::string quoted = "\"" + secret + "\"";
  return Response::json(201, json_raw(json_object_with(r.text(0, "json"), {{"secret", quoted}})));
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
  // The session check and the delete: one round trip (common/write.h).
  CA_TRY(w, write_once(ctx, access, [&](const Principal&) {
           return Queries{{&kDelete, {tenant_id, id}}};
         }));
  if (w.results[0].rows().empty()) return Error::not_found("Webhook not found");
  Json out = json_object();
  json_add_str(out.get(), "message", "Webhook deleted");
  return Response::json(200, out);
}

}  // namespace ca
