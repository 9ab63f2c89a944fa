// Order status changes (DESIGN §4 "Orders"): pending -> processing ->
// completed, and pending | processing -> cancelled; completed and cancelled
// are final. The order row is locked for the change, so two concurrent moves
// are applied one after the other and the second is judged against the first
// one's result. The change and its events commit together, in two round
// trips with the session check (common/write.h).
#include <string>
#include <string_view>

#include "auth.h"
#include "db.h"
#include "errors.h"
#include "events.h"
#include "order_json.h"
#include "orders.h"
#include "validate.h"
#include "write.h"

namespace ca {
namespace {

// Columns: status, user_id, total_amount, items_count. FOR NO KEY UPDATE: it
// serialises status changes without blocking foreign-key checks on the order.
const Statement kLock{"orders_status_lock",
                      "SELECT o.status, o.user_id, o.total_amount, "
                      "  (SELECT count(*) FROM order_items i "
                      "   WHERE i.tenant_id = o.tenant_id AND i.order_id = o.id) "
                      "FROM orders o WHERE o.tenant_id = $1 AND o.id = $2 FOR NO KEY UPDATE"};

const Statement kSetStatus{"orders_status_set",
                           "UPDATE orders SET status = $3, updated_at = now() "
                           "WHERE tenant_id = $1 AND id = $2"};

bool transition_allowed(std::string_view from, std::string_view to) {
  if (from == "pending") return to == "processing" || to == "cancelled";
  if (from == "processing") return to == "completed" || to == "cancelled";
  return false;  // completed and cancelled are final
}

}  // namespace

Response orders_update_status(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  Result<Json> body = parse_json_object(ctx.req);
  FieldErrors errs;
  Field<std::string> status;
  if (body.ok()) {
    BodyReader in(body->get(), errs);
    status = in.str("status", {.required = true,
                               .one_of = {"pending", "processing", "completed", "cancelled"}});
  }
  if (!body.ok() || !errs.empty()) {
    // A token, tenant or membership refused comes before a bad body.
    CA_TRY(who, authenticate_tenant_header(ctx));
    (void)who;
    if (!body.ok()) return std::move(body.error());
    return errors::validation(errs, kOrderStyle);
  }

  // Round trip 1: the session check and the order, locked. 2: the change,
  // its events, the order read back, COMMIT.
  CA_TRY(w, WriteTx::begin(ctx, Access::tenant_header(), [&](const Principal& who) {
           return Queries{{&kLock, {who.tenant_id, id}}};
         }));
  int64_t tenant_id = w.who().tenant_id;
  Rows& locked = w.check(0).rows();
  if (locked.empty()) return errors::not_found("Order not found", kOrderStyle);
  std::string previous = locked.str(0, 0);
  if (!transition_allowed(previous, status.value)) {
    errs.add("status", "The order cannot move from " + previous + " to " + status.value + ".");
    return errors::validation(errs, kOrderStyle);
  }
  Queries writes{{&kSetStatus, {tenant_id, id, status.value}}};
  Json event =
      order_event_json(id, locked.int64(0, 1), status.value, locked.text(0, 2), locked.int64(0, 3));
  json_add_str(event.get(), "previous_status", previous);
  writes.push_back(event_query(tenant_id, "order.status_changed", event.get()));
  if (status.value == "completed" || status.value == "cancelled") {
    Json final_event = order_event_json(id, locked.int64(0, 1), status.value, locked.text(0, 2),
                                        locked.int64(0, 3));
    writes.push_back(event_query(tenant_id, "order." + status.value, final_event.get()));
  }
  writes.push_back(order_load_query(tenant_id, id));
  CA_TRY(done, w.commit(writes));
  CA_TRY(order, order_from_result(done.back(), id));
  return Response::success(200, "Order status updated", std::move(order));
}

}  // namespace ca
