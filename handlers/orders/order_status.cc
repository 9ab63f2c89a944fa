// Order status changes (DESIGN §4 "Orders"): pending -> processing ->
// completed, and pending | processing -> cancelled; completed and cancelled
// are final. The order row is locked for the change, so two concurrent moves
// are applied one after the other and the second is judged against the first
// one's result. The change and its events commit together.
#include <string>
#include <string_view>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "events.h"
#include "order_json.h"
#include "orders.h"
#include "validate.h"

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

Result<Response> orders_update_status(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  CA_TRY(who, authenticate_tenant_header(ctx));
  CA_TRY(body, parse_json_object(ctx.req));
  FieldErrors errs;
  BodyReader in(body.get(), errs);
  auto status = in.str(
      "status", {.required = true, .one_of = {"pending", "processing", "completed", "cancelled"}});
  if (!errs.empty()) return Error::invalid(errs);

  Transaction tx(ctx.db);
  if (!tx.began()) return Error::database(tx.begin_error());
  DbResult locked = ctx.db.exec(kLock, {who.tenant_id, id});
  if (!locked.ok()) return Error::database(locked.error());
  if (locked->empty()) return Error::not_found("Order not found");
  std::string previous = locked->str(0, 0);
  if (!transition_allowed(previous, status.value)) {
    errs.add("status", "The order cannot move from " + previous + " to " + status.value + ".");
    return Error::invalid(errs);
  }
  DbResult set = ctx.db.exec(kSetStatus, {who.tenant_id, id, status.value});
  if (!set.ok()) return Error::database(set.error());

  Json event = order_event_json(id, locked->int64(0, 1), status.value, locked->text(0, 2),
                                locked->int64(0, 3));
  json_add_str(event.get(), "previous_status", previous);
  DbResult changed = emit_event(ctx.db, who.tenant_id, "order.status_changed", event.get());
  if (!changed.ok()) return Error::database(changed.error());
  if (status.value == "completed" || status.value == "cancelled") {
    Json final_event = order_event_json(id, locked->int64(0, 1), status.value, locked->text(0, 2),
                                        locked->int64(0, 3));
    DbResult emitted =
        emit_event(ctx.db, who.tenant_id, "order." + status.value, final_event.get());
    if (!emitted.ok()) return Error::database(emitted.error());
  }
  CA_TRY(order, order_load(ctx, who.tenant_id, id));
  DbResult committed = tx.commit();
  if (!committed.ok()) return Error::database(committed.error());
  return Response::success(200, "Order status updated", std::move(order));
}

}  // namespace ca
