// Delivery records: one row per (event, subscription), newest first. Records
// of deleted subscriptions stay listable.
#include "audit.h"
#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "page_rows.h"
#include "request_tx.h"
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
    "page AS (SELECT id, " CA_DELIVERY_JSON " FROM webhook_deliveries WHERE " CA_DELIVERY_FILTER
    "         ORDER BY id DESC LIMIT $4 OFFSET $5) "
    "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "
    "ORDER BY page.id DESC"};

// $3 rows at most.
const Statement kPendingCount{
    "webhook_deliveries_pending_count",
    "SELECT count(*) AS pending FROM ("
    "  SELECT FROM webhook_deliveries "
    "  WHERE tenant_id = $1 AND webhook_id = $2 AND status = 'pending' LIMIT $3) p"};

// The delivery to repeat, with its subscription's row locked (so that the
// pending count after it sees every other redelivery's row): what the new
// delivery copies, and whether its subscription can take one.
const Statement kLockForRedelivery{
    "webhook_deliveries_lock_for_redelivery",
    "SELECT d.webhook_id, d.event_id, d.event, d.status, w.url, "
    "       COALESCE(d.redelivery_of, d.id) AS message_of, w.is_active, "
    "       w.deleted_at IS NOT NULL AS deleted "
    "FROM webhook_deliveries d "
    "JOIN webhooks w ON w.tenant_id = $1 AND w.id = d.webhook_id "
    "WHERE d.tenant_id = $1 AND d.id = $2 "
    "FOR UPDATE OF w"};

// kPendingCount for the subscription of delivery $2.
const Statement kPendingCountOfDelivery{
    "webhook_deliveries_pending_count_of_delivery",
    "SELECT count(*) AS pending FROM ("
    "  SELECT FROM webhook_deliveries o "
    "  JOIN webhook_deliveries p ON p.tenant_id = $1 AND p.webhook_id = o.webhook_id "
    "   AND p.status = 'pending' "
    "  WHERE o.tenant_id = $1 AND o.id = $2 LIMIT $3) x"};

// The new delivery: the same event, to the subscription's URL of now ($5,
// read under the lock above), with the message id ($6) of the delivery it
// repeats and a fresh attempt budget. Plain VALUES: Citus planned an
// INSERT ... SELECT from webhooks on every shard.
const Statement kRedeliver{
    "webhook_deliveries_redeliver",
    "INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event, url, redelivery_of) "
    "VALUES ($1, $2, $3, $4, $5, $6) RETURNING " CA_DELIVERY_JSON};

}  // namespace

Db::Query pending_count_query(int64_t tenant_id, int64_t webhook_id, int64_t max) {
  return {&kPendingCount, {tenant_id, webhook_id, max}};
}

// A new pending delivery of a finished delivery's event to the same
// subscription, with the same webhook-id (receivers deduplicate on it):
// 202 with its record.
Result<Response> deliveries_redeliver(Ctx& ctx) {
  const int64_t tenant_id = ctx.req.params[0], id = ctx.req.params[1];
  const int64_t max = ctx.config.webhook_resend_max_pending;
  // The pending count runs after the lock, as a statement of its own.
  CA_TRY(w, send_first(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [&](const Principal&) {
           return Queries{{&kLockForRedelivery, {tenant_id, id}},
                          {&kPendingCountOfDelivery, {tenant_id, id, max}}};
         }));
  Rows& d = w.results[0].rows();
  if (d.empty()) return Error::not_found("Delivery not found");
  if (d.boolean(0, "deleted")) return Error::bad_request("The webhook of this delivery is deleted");
  if (!d.boolean(0, "is_active")) {
    return Error::bad_request("The webhook of this delivery is disabled; enable it first");
  }
  if (d.text(0, "status") == "pending") {
    return Error::bad_request("The delivery is still pending");
  }
  if (w.results[1].rows().int64(0, "pending") >= max) {  // rolled back
    return Error::limit_reached(kPendingLimitWhat, max, kPendingLimitSetting);
  }
  CA_TRY(done, send_last(ctx, {{&kRedeliver,
                                {tenant_id, d.int64(0, "webhook_id"), d.int64(0, "event_id"),
                                 d.str(0, "event"), d.str(0, "url"), d.int64(0, "message_of")}},
                               audit_query(ctx, w.who, "webhook.redelivered", "webhook",
                                           d.int64(0, "webhook_id"))}));
  return Response::text(202, "{\"data\":" + done[0].rows().str(0, "json") + "}");
}

Result<Response> deliveries_list(Ctx& ctx) {
  CA_TRY(tenant_id, path_tenant_for(ctx, Role::kAdmin));
  FieldErrors errs;
  PageParams page = read_page_params(ctx.req, kDefaultPerPage, errs);
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
