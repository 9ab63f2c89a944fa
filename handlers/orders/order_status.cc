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

// Column: status. FOR NO KEY UPDATE: it serialises status changes without
// blocking foreign-key checks on the order.
const Statement kLock{"orders_status_lock",
                      "SELECT o.status AS status FROM orders o "
                      "WHERE o.tenant_id = $1 AND o.id = $2 FOR NO KEY UPDATE"};

// $1 tenant, $2 order, $3 the new status, $4 the previous one. The change and
// its events: order.status_changed, then order.completed or order.cancelled
// when the new status is final (sql/026's payload). `counted` moves the order from
// the old status's counter to the new one's in this connection's slot
// (order_counts, sql/017 and sql/032), rows taken in status order as every
// writer of them does, so that two changes sharing a slot queue instead of
// deadlocking.
const Statement kSetStatus{
    "orders_status_set",
    "WITH changed AS ("
    "  UPDATE orders SET status = $3, updated_at = now() "
    "  WHERE tenant_id = $1 AND id = $2 "
    "  RETURNING tenant_id, id, user_id, status, total_amount), "
    "item_count AS (SELECT count(*) AS items FROM order_items WHERE tenant_id = $1 AND order_id = $2), "
    "counted AS ("
    "  INSERT INTO order_counts AS k (tenant_id, status, slot, n) "
    "  SELECT $1, s.status, " CA_COUNTER_SLOT ", s.n "
    "  FROM changed o CROSS JOIN (VALUES ($4::text, -1), ($3::text, 1)) AS s (status, n) "
    "  WHERE $3::text <> $4::text ORDER BY s.status "
    "  ON CONFLICT (tenant_id, status, slot) DO UPDATE SET n = k.n + EXCLUDED.n), "
    CA_AUDIT_CTE("$1", "$5",
        "SELECT 'order.status_changed', 'order', o.id, '{status}'::text[] FROM changed o") ", "
    CA_AUDITED_EVENTS_CTE("$1",
        "SELECT o.tenant_id, t.type, "
        "  ca_order_event_json(order_id => o.id, user_id => o.user_id, status => o.status, "
        "    total_amount => o.total_amount, items_count => c.items, "
        "    previous_status => t.previous)"
        "  ::jsonb "
        "FROM changed o CROSS JOIN item_count c CROSS JOIN (VALUES (1, 'order.status_changed', $4::text), "
        "                                       (2, 'order.' || $3::text, NULL)) "
        "                               AS t (n, type, previous) "
        "WHERE t.n = 1 OR $3::text IN ('completed', 'cancelled') ORDER BY t.n") " "
    "SELECT count(*) AS changed FROM changed o"};

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

  // Round trip 1: the session check and the order, locked. 2: the change,
  // its events, the order read back, COMMIT.
  CA_TRY(w, send_first(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kLock, {who.tenant_id, id}}};
         }));
  int64_t tenant_id = w.who.tenant_id;
  Rows& locked = w.results[0].rows();
  if (locked.empty()) return Error::not_found("Order not found");
  std::string previous = locked.str(0, "status");
  if (!transition_allowed(previous, status.value)) {
    errs.add("status", "The order cannot move from " + previous + " to " + status.value + ".");
    return Error::invalid(errs);
  }
  Queries writes{{&kSetStatus, {tenant_id, id, status.value, previous, audit_who(ctx, w.who)}},
                 order_load_query(tenant_id, id)};
  CA_TRY(done, send_last(ctx, writes));
  CA_TRY(order, order_from_result(done.back()));
  return Response::success(200, "Order status updated", std::move(order));
}

}  // namespace ca
