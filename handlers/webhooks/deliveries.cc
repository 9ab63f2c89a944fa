// Delivery records: one row per (event, subscription), newest first. Records
// of deleted subscriptions stay listable.
#include "auth.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "validate.h"
#include "webhooks.h"

namespace ca {
namespace {

// $2 webhook_id and $3 status are optional filters (NULL = any).
#define CA_DELIVERY_FILTER                                                                        \
  "tenant_id = $1 AND ($2::bigint IS NULL OR webhook_id = $2) AND ($3::text IS NULL OR status = " \
  "$3)"

const Statement kList{
    "deliveries_list",
    "WITH total AS (SELECT count(*) AS n FROM webhook_deliveries WHERE " CA_DELIVERY_FILTER
    "), "
    "page AS (SELECT id, "
    "                ca_delivery_json(tenant_id, id, webhook_id, event_id, event, url, status, "
    "                  attempts, CASE WHEN status = 'pending' THEN next_attempt_at END, "
    "                  last_attempt_at, response_status, error, created_at, delivered_at) "
    "                  AS json "
    "         FROM webhook_deliveries WHERE " CA_DELIVERY_FILTER
    "         ORDER BY id DESC LIMIT $4 OFFSET $5) "
    "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "
    "ORDER BY page.id DESC"};

}  // namespace

Result<Response> deliveries_list(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, Role::kAdmin));
  (void)who;
  FieldErrors errs;
  PageParams page = read_page_params(ctx.req, 15, errs);
  std::optional<int64_t> webhook_id;
  if (auto text = ctx.req.query_param("webhook_id")) {
    int64_t id = parse_id(*text);
    if (id == 0) {
      errs.add("webhook_id", "The webhook_id field must be a positive integer.");
    } else {
      webhook_id = id;
    }
  }
  std::optional<std::string> status = ctx.req.query_param("status");
  if (status && *status != "pending" && *status != "delivered" && *status != "failed") {
    errs.add("status", "The selected status is invalid.");
  }
  if (!errs.empty()) return Error::invalid(errs);

  DbResult r = ctx.db.exec(kList, {tenant_id, webhook_id, status, page.per_page, page.offset()});
  if (!r.ok()) return Error::database(r.error());
  return Response::text(200, rendered_page_text(r.rows(), page, {rendered_page_total(r.rows())}));
}

}  // namespace ca
