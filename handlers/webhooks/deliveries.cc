// Delivery records: one row per (event, subscription), newest first (by
// created_at, then id: sql/065). Records of deleted subscriptions stay
// listable.
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
    "page AS (SELECT id, created_at, " CA_DELIVERY_JSON
    " FROM webhook_deliveries WHERE " CA_DELIVERY_FILTER
    "         ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5) "
    "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "
    "ORDER BY page.created_at DESC, page.id DESC"};

// A redelivery: the new delivery's id from the coordinator's sequence, with
// the session check (send_check()); then one call of ca_webhook_redeliver()
// (sql/063), which Citus runs whole on the tenant's worker
// (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md):
// the delivery to repeat, read with its subscription's row locked (so that
// the pending count after it sees every other redelivery's row), whether its
// subscription can take one, then the new delivery (the same event, to the
// subscription's URL of now, with the message id of the delivery it repeats
// and a fresh attempt budget, plain VALUES) and the audit entry
// webhook.redelivered. $4 WEBHOOK_RESEND_MAX_PENDING, $5 the caller
// (audit_who()). `outcome` says which refusal, or 'sent' with `json`.
const Statement kRedeliverId{"webhook_deliveries_redeliver_id",
                             "SELECT nextval('webhook_deliveries_id_seq') AS delivery_id"};
const Statement kRedeliver{
    "webhook_deliveries_redeliver",
    "SELECT outcome, json FROM ca_webhook_redeliver(tenant_id => $1, delivery_id => $2::bigint, "
    "new_delivery_id => $3, max => $4::bigint, who => $5::jsonb)"};

}  // namespace

// A new pending delivery of a finished delivery's event to the same
// subscription, with the same webhook-id (receivers deduplicate on it):
// 202 with its record.
Result<Response> deliveries_redeliver(Ctx& ctx) {
  const int64_t tenant_id = ctx.req.params[0], id = ctx.req.params[1];
  const int64_t max = ctx.config.webhook_resend_max_pending;
  CA_TRY(ids, send_check(ctx, Access::path_tenant(tenant_id, Role::kAdmin), [](const Principal&) {
           return Queries{{&kRedeliverId, {}}};
         }));
  CA_TRY(done, send_call(ctx, {{&kRedeliver,
                                {tenant_id, id, ids.results[0].rows().int64(0, "delivery_id"), max,
                                 audit_who(ctx, ids.who)}}}));
  Rows& r = done[0].rows();
  const std::string outcome = r.str(0, "outcome");
  if (outcome == "not_found") return Error::not_found("Delivery not found");
  if (outcome == "deleted") return Error::bad_request("The webhook of this delivery is deleted");
  if (outcome == "disabled") {
    return Error::bad_request("The webhook of this delivery is disabled; enable it first");
  }
  if (outcome == "pending") return Error::bad_request("The delivery is still pending");
  if (outcome == "limit") return Error::limit_reached(kPendingLimitWhat, max, kPendingLimitSetting);
  return Response::text(202, "{\"data\":" + r.str(0, "json") + "}");
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
