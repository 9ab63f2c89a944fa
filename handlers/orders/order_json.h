// Order records as the API shows them (docs/openapi.yaml "Order"), rendered by PostgreSQL
// (sql/026: ca_order_json and the shapes of its parts), and the
// `{success, message, data}` envelope's error style. Shared by create, read,
// list and status.
#pragma once

#include <cstdint>

#include "db.h"
#include "error.h"
#include "json.h"
#include "result.h"
#include "router.h"

// The order of the alias `o` rendered: ITEMS a rendered array or NULL,
// ITEMS_COUNT a count or NULL (sql/026), OWNER and ADDRESS rendered objects
// (ca_order_user_json, ca_order_address_json).
#define CA_ORDER_JSON(ITEMS, ITEMS_COUNT, OWNER, ADDRESS)                            \
  "ca_order_json(id => o.id, user_id => o.user_id, tenant_id => o.tenant_id, "       \
  "address_id => o.address_id, payment_type => o.payment_type, "                     \
  "total_amount => o.total_amount, status => o.status, created_at => o.created_at, " \
  "updated_at => o.updated_at, items => " ITEMS ", items_count => " ITEMS_COUNT      \
  ", owner => " OWNER ", address => " ADDRESS ")"

namespace ca {

// Orders answer errors as `{success:false, ...}` (docs/design/api-conventions.md, "Error bodies").
inline constexpr ErrorStyle kOrderStyle = ErrorStyle::kSuccess;

// The single-order record: items each with their `product` summary (also for
// soft-deleted products), `user`, and `address` with `country` and
// `postal_code`. 404 `{success:false, message}` when the tenant has no such order.
Result<Json> order_load(Ctx& ctx, int64_t tenant_id, int64_t order_id);

// The same in two steps, for a write that reads the order back in its own
// round trip (common/request_tx.h): the query, then the record from its result.
Db::Query order_load_query(int64_t tenant_id, int64_t order_id);
Result<Json> order_from_result(DbResult& r);

}  // namespace ca
