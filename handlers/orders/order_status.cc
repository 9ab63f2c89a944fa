// Order status changes (docs/design/api-conventions.md "Orders"): pending -> processing ->
// completed, and pending | processing -> cancelled; completed and cancelled
// are final. The order row is locked for the change, so two concurrent moves
// are applied one after the other and the second is judged against the first
// one's result. The change and its events commit together, in two round
// trips with the session check (common/request_tx.h).
#include <string>
#include <string_view>

#include "audit.h"
#include "auth.h"
#include "counter_slot.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "order_json.h"
#include "orders.h"
#include "request_tx.h"
#include "validate.h"

namespace ca {
namespace {

// The events' ids from the coordinator's sequence, with the session check
// (send_check()): $1 how many (order.status_changed, and order.completed or
// order.cancelled when the new status is final), in the order the events
// are written.
const Statement kEventIds{"orders_status_event_ids",
                          "SELECT ARRAY(SELECT nextval('events_id_seq') "
                          "FROM generate_series(1, $1::integer) ORDER BY 1)::text AS event_ids"};

// Then one call of ca_order_status() (sql/063), which Citus runs whole on
// the tenant's worker
// (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md):
// the order's row locked, the move judged against the status found ($4 the
// statuses it may leave for $3), then the change, its counters, its audit
// entry and its events with their deliveries. $6 the caller (audit_who()).
// `previous` NULL: no such order; `changed` false: the move is refused,
// nothing written. The order read back follows in the same send.
const Statement kSetStatus{
    "orders_status_set",
    "SELECT previous, changed FROM ca_order_status(tenant_id => $1, order_id => $2::bigint, "
    "status => $3::text, allowed_from => $4::text[], event_ids => $5::bigint[], "
    "who => $6::jsonb)"};

bool transition_allowed(std::string_view from, std::string_view to) {
  if (from == "pending") return to == "processing" || to == "cancelled";
  if (from == "processing") return to == "completed" || to == "cancelled";
  return false;  // completed and cancelled are final
}

}  // namespace

Result<Response> orders_update_status(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> status;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    status = in.str("status", {.required = true});
    if (status.has_value() && !order_status_known(status.value)) {
      in.fail("status", "The selected status is invalid.");
      status.present = false;
    }
  }
  if (!body.ok() || !errs.empty())
    return refuse_before_write(ctx, Access::tenant_header(), body, errs);

  // Round trip 1: the session check and the events' ids. 2: the call and
  // the order read back (with an Idempotency-Key, in one transaction).
  const bool final = status.value == "completed" || status.value == "cancelled";
  CA_TRY(ids, send_check(ctx, Access::tenant_header(), [&](const Principal&) {
           return Queries{{&kEventIds, {final ? 2 : 1}}};
         }));
  int64_t tenant_id = ids.who.tenant_id;
  std::string allowed_from = "{";
  for (std::string_view from : {"pending", "processing", "completed", "cancelled"}) {
    if (!transition_allowed(from, status.value)) continue;
    if (allowed_from.size() > 1) allowed_from += ",";
    allowed_from += from;
  }
  allowed_from += "}";
  CA_TRY(done,
         send_call(ctx, {{&kSetStatus,
                          {tenant_id, id, status.value, allowed_from,
                           ids.results[0].rows().str(0, "event_ids"), audit_who(ctx, ids.who)}},
                         order_load_query(tenant_id, id)}));
  Rows& set = done[0].rows();
  if (set.is_null(0, "previous")) return Error::not_found("Order not found");
  if (!set.boolean(0, "changed")) {
    errs.add("status",
             "The order cannot move from " + set.str(0, "previous") + " to " + status.value + ".");
    return Error::invalid(errs);
  }
  CA_TRY(order, order_from_result(done.back()));
  return Response::success(200, "Order status updated", std::move(order));
}

}  // namespace ca
