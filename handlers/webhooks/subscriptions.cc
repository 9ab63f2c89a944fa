// Subscriptions: create, list, delete.
#include <set>
#include <string>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "log.h"
#include "net_guard.h"
#include "page_rows.h"
#include "validate.h"
#include "webhook_signature.h"
#include "webhooks.h"

namespace ca {
namespace {

#define CA_WEBHOOK_COLUMNS "id, url, events::text, description, is_active, created_at"

const Statement kCreate{"webhooks_create",
                        "INSERT INTO webhooks (tenant_id, url, events, secret, description) "
                        "VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING " CA_WEBHOOK_COLUMNS};

// The page and the total in one round trip; deleted subscriptions are gone.
const Statement kList{"webhooks_list",
                      "WITH total AS (SELECT count(*) AS n FROM webhooks "
                      "               WHERE tenant_id = $1 AND deleted_at IS NULL), "
                      "page AS (SELECT " CA_WEBHOOK_COLUMNS
                      " FROM webhooks WHERE tenant_id = $1 AND deleted_at IS NULL "
                      "         ORDER BY id LIMIT $2 OFFSET $3) "
                      "SELECT total.n, page.* FROM total LEFT JOIN page ON true ORDER BY page.id"};

// Deactivates the subscription and, in the same statement, ends its pending
// deliveries that no worker holds. A delivery a worker holds (live lease) is
// in flight and may finish; the worker fails it instead of retrying it.
const Statement kDelete{
    "webhooks_delete",
    "WITH w AS (UPDATE webhooks SET is_active = false, deleted_at = now(), updated_at = now() "
    "           WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL "
    "           RETURNING tenant_id, id), "
    "d AS (UPDATE webhook_deliveries d SET status = 'failed', error = 'webhook deleted' "
    "      FROM w WHERE d.tenant_id = w.tenant_id AND d.webhook_id = w.id "
    "       AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now()) "
    "      RETURNING d.id) "
    "SELECT (SELECT count(*) FROM d) FROM w"};

constexpr size_t kMaxDescription = 500;

Json webhook_json(const Rows& r, int row, int first_col) {
  Json w = json_object();
  json_add_int(w.get(), "id", r.int64(row, first_col));
  json_add_str(w.get(), "url", r.text(row, first_col + 1));
  Json events = json_parse(r.text(row, first_col + 2));
  json_add(w.get(), "events", events ? std::move(events) : json_array());
  json_add_opt_str(w.get(), "description", r.opt_text(row, first_col + 3));
  json_add_bool(w.get(), "is_active", r.boolean(row, first_col + 4));
  json_add_str(w.get(), "created_at", r.text(row, first_col + 5));
  return w;
}

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
// host name resolves to is for the operator's log, not the tenant.
void check_url(const Ctx& ctx, const Field<std::string>& url, FieldErrors& errs) {
  if (!url.has_value()) return;
  std::string why;
  std::optional<HttpUrl> parsed = parse_http_url(url.value, &why);
  if (parsed && !webhook_port_allowed(parsed->port, ctx.config.webhook_allow_any_port)) {
    why = std::string("must use ") + kWebhookPortRule;
  } else if (parsed && !ctx.config.webhook_allow_private_targets) {
    std::string detail;
    if (auto refused = check_url_target(*parsed, &detail)) {
      why = *refused;
      if (!detail.empty()) {
        log_info("webhook subscription refused (tenant %lld): %s",
                 static_cast<long long>(ctx.req.params[0]), detail.c_str());
      }
    }
  }
  if (!why.empty()) errs.add("url", "The url field " + why + ".");
}

}  // namespace

Result<Response> webhooks_create(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  (void)who;
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto url = in.str("url", {.required = true, .max = kMaxWebhookUrlLength});
  check_url(ctx, url, errs);
  Json events = read_events(in, errs);
  auto description =
      in.str("description", {.nullable = true, .trim = true, .max = kMaxDescription});
  if (!errs.empty()) return Error::invalid(errs);

  std::optional<std::string> desc;
  if (description.has_value() && !description.value.empty()) desc = description.value;
  std::string secret = webhook_secret_generate();
  DbResult r = ctx.db.exec(kCreate, {tenant_id, url.value, json_dump(events.get()), secret, desc});
  if (!r.ok()) return Error::database(r.error());
  Json out = webhook_json(r.rows(), 0, 0);
  // The secret is shown here only; lists never include it.
  json_add_str(out.get(), "secret", secret);
  return Response::json(201, out);
}

Result<Response> webhooks_list(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  (void)who;
  CA_TRY(page, read_page_params(ctx.req, 15));
  DbResult r = ctx.db.exec(kList, {tenant_id, page.per_page, page.offset()});
  if (!r.ok()) return Error::database(r.error());
  return Response::json(200, paginated_rows(r.rows(), page, [](const Rows& rows, int i) {
                          return webhook_json(rows, i, 1);
                        }));
}

Result<Response> webhooks_delete(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  (void)who;
  FieldErrors errs;
  std::optional<std::string> id_text = ctx.req.query_param("id");
  int64_t id = id_text ? parse_id(*id_text) : 0;
  if (!id_text || id_text->empty()) {
    errs.add("id", "The id field is required.");
  } else if (id == 0) {
    errs.add("id", "The id field must be a positive integer.");
  }
  if (!errs.empty()) return Error::invalid(errs);

  DbResult r = ctx.db.exec(kDelete, {tenant_id, id});
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Webhook not found");
  Json out = json_object();
  json_add_str(out.get(), "message", "Webhook deleted");
  return Response::json(200, out);
}

}  // namespace ca
