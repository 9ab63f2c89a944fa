#include "order_json.h"

#include "db.h"

namespace ca {
namespace {

// Columns: CA_ORDER_COLUMNS (0-8), user name and email (9-10), address
// street, city, country, postal_code (11-14), item id, product_id, size, qty,
// amount, notes (15-20), product name and published (21-22). One row per item.
const Statement kLoad{"orders_load",
                      "SELECT " CA_ORDER_COLUMNS
                      ", u.name, u.email, a.street, a.city, a.country, a.postal_code, "
                      "  i.id, i.product_id, i.size, i.qty, i.amount, i.notes, p.name, p.published "
                      "FROM orders o "
                      "JOIN users u ON u.id = o.user_id "
                      "JOIN addresses a ON a.user_id = o.user_id AND a.id = o.address_id "
                      "LEFT JOIN order_items i ON i.tenant_id = o.tenant_id AND i.order_id = o.id "
                      "LEFT JOIN products p ON p.tenant_id = i.tenant_id AND p.id = i.product_id "
                      "WHERE o.tenant_id = $1 AND o.id = $2 "
                      "ORDER BY i.id"};

}  // namespace

Json order_json(const Rows& r, int row, int first) {
  Json o = json_object();
  json_add_int(o.get(), "id", r.int64(row, first));
  json_add_int(o.get(), "user_id", r.int64(row, first + 1));
  json_add_str(o.get(), "tenant_id", r.text(row, first + 2));
  json_add_int(o.get(), "address_id", r.int64(row, first + 3));
  json_add_int(o.get(), "payment_type", r.int64(row, first + 4));
  json_add_str(o.get(), "total_amount", r.text(row, first + 5));
  json_add_str(o.get(), "status", r.text(row, first + 6));
  json_add_str(o.get(), "created_at", r.text(row, first + 7));
  json_add_str(o.get(), "updated_at", r.text(row, first + 8));
  return o;
}

Json order_item_json(const Rows& r, int row, int first, int64_t order_id) {
  Json item = json_object();
  json_add_int(item.get(), "id", r.int64(row, first));
  json_add_int(item.get(), "order_id", order_id);
  json_add_int(item.get(), "product_id", r.int64(row, first + 1));
  json_add_opt_str(item.get(), "size", r.opt_text(row, first + 2));
  json_add_int(item.get(), "qty", r.int64(row, first + 3));
  json_add_str(item.get(), "amount", r.text(row, first + 4));
  json_add_opt_str(item.get(), "notes", r.opt_text(row, first + 5));
  return item;
}

Json order_user_json(int64_t id, std::string_view name, std::string_view email) {
  Json u = json_object();
  json_add_int(u.get(), "id", id);
  json_add_str(u.get(), "name", name);
  json_add_str(u.get(), "email", email);
  return u;
}

Json order_event_json(int64_t order_id, int64_t user_id, std::string_view status,
                      std::string_view total_amount, int64_t items_count) {
  Json e = json_object();
  json_add_int(e.get(), "order_id", order_id);
  json_add_int(e.get(), "user_id", user_id);
  json_add_str(e.get(), "status", status);
  json_add_str(e.get(), "total_amount", total_amount);
  json_add_int(e.get(), "items_count", items_count);
  return e;
}

Db::Query order_load_query(int64_t tenant_id, int64_t order_id) {
  return {&kLoad, {tenant_id, order_id}};
}

Result<Json> order_load(Ctx& ctx, int64_t tenant_id, int64_t order_id) {
  DbResult r = ctx.db.exec(kLoad, {tenant_id, order_id});
  return order_from_result(r, order_id);
}

Result<Json> order_from_result(DbResult& r, int64_t order_id) {
  if (!r.ok()) return errors::database(r.error(), kOrderStyle);
  if (r->empty()) return errors::not_found("Order not found", kOrderStyle);
  const Rows& rows = r.rows();
  Json order = order_json(rows, 0, 0);
  Json items = json_array();
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.is_null(i, 15)) continue;  // the LEFT JOIN of an order without items
    Json item = order_item_json(rows, i, 15, order_id);
    Json product = json_object();
    json_add_int(product.get(), "id", rows.int64(i, 16));
    json_add_str(product.get(), "name_en", rows.text(i, 21));
    // No product images exist yet (DESIGN §4 "Products").
    json_add_null(product.get(), "cover_id");
    json_add_bool(product.get(), "published", rows.boolean(i, 22));
    json_add(item.get(), "product", std::move(product));
    json_append(items.get(), std::move(item));
  }
  json_add(order.get(), "items", std::move(items));
  json_add(order.get(), "user",
           order_user_json(rows.int64(0, 1), rows.text(0, 9), rows.text(0, 10)));
  Json address = json_object();
  json_add_int(address.get(), "id", rows.int64(0, 3));
  json_add_str(address.get(), "street", rows.text(0, 11));
  json_add_str(address.get(), "city", rows.text(0, 12));
  json_add_str(address.get(), "country", rows.text(0, 13));
  json_add_str(address.get(), "postal_code", rows.text(0, 14));
  json_add(order.get(), "address", std::move(address));
  return order;
}

}  // namespace ca
