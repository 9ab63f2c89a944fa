#include "order_json.h"

#include "db.h"
#include "json_rendered.h"

namespace ca {
namespace {

// $1 tenant, $2 order. Column: json, the record.
const Statement kLoad{
    "orders_load",
    "SELECT " CA_ORDER_JSON(
        "(SELECT '[' || COALESCE(string_agg(ca_order_item_json(id => i.id, "
        "          order_id => i.order_id, product_id => i.product_id, size => i.size, "
        "          qty => i.qty, amount => i.amount, notes => i.notes, "
        "          product => ca_order_product_json(id => p.id, name => p.name, "
        "                                           published => p.published)), "
        "          ',' ORDER BY i.id), '') || ']' "
        " FROM order_items i JOIN products p ON p.tenant_id = $1 AND p.id = i.product_id "
        " WHERE i.tenant_id = $1 AND i.order_id = o.id)",
        "NULL", "ca_order_user_json(id => u.id, name => u.name, email => u.email)",
        "ca_order_address_json(all_fields => true, id => a.id, street => a.street, "
        "city => a.city, country => a.country, postal_code => a.postal_code)") " AS json "
    "FROM orders o "
    "JOIN users u ON u.id = o.user_id "
    "JOIN addresses a ON a.user_id = o.user_id AND a.id = o.address_id "
    "WHERE o.tenant_id = $1 AND o.id = $2"};

}  // namespace

Db::Query order_load_query(int64_t tenant_id, int64_t order_id) {
  return {&kLoad, {tenant_id, order_id}};
}

Result<Json> order_load(Ctx& ctx, int64_t tenant_id, int64_t order_id) {
  DbResult r = ctx.db.exec(kLoad, {tenant_id, order_id});
  return order_from_result(r);
}

Result<Json> order_from_result(DbResult& r) {
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Order not found");
  return json_rendered(r.rows(), 0);
}

}  // namespace ca
