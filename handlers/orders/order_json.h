// Order records as the API shows them (SPEC "Order"): the record's own
// fields, items, the owner and the address, the `{success, message, data}`
// envelope, and the event summary. Shared by create, read, list and status.
#pragma once

#include <cstdint>
#include <string_view>

#include "db.h"
#include "errors.h"
#include "json.h"
#include "result.h"
#include "router.h"

// The order's own columns, in this order, wherever a statement returns an
// order (kOrderColumns of them, read by order_json()). Amounts leave the
// database as numeric text ("12.50").
#define CA_ORDER_COLUMNS                                                                   \
  "o.id, o.user_id, o.tenant_id, o.address_id, o.payment_type, o.total_amount, o.status, " \
  "o.created_at AS created_at, o.updated_at AS updated_at"

namespace ca {

inline constexpr int kOrderColumns = 9;

// Orders answer errors as `{success:false, ...}` (SPEC "Errors").
inline constexpr ErrorStyle kOrderStyle = ErrorStyle::kSuccess;

// `{id, user_id, tenant_id, address_id, payment_type, total_amount, status,
// created_at, updated_at}` from CA_ORDER_COLUMNS starting at column `first`;
// `tenant_id` is a string, as SPEC.md shows it.
Json order_json(const Rows& r, int row, int first);

// `{id, order_id, product_id, size, qty, amount, notes}` from the columns
// item id, product_id, size, qty, amount, notes starting at `first`.
Json order_item_json(const Rows& r, int row, int first, int64_t order_id);

Json order_user_json(int64_t id, std::string_view name, std::string_view email);

// The summary every `order.*` event carries (DESIGN §5).
Json order_event_json(int64_t order_id, int64_t user_id, std::string_view status,
                      std::string_view total_amount, int64_t items_count);

// The single-order record: items each with their `product` summary (also for
// soft-deleted products), `user`, and `address` with `country` and
// `postal_code`. 404 `{success:false, message}` when the tenant has no such order.
Result<Json> order_load(Ctx& ctx, int64_t tenant_id, int64_t order_id);

// The same in two steps, for a write that reads the order back in its own
// round trip (common/write.h): the query, then the record from its result.
Db::Query order_load_query(int64_t tenant_id, int64_t order_id);
Result<Json> order_from_result(DbResult& r, int64_t order_id);

}  // namespace ca
