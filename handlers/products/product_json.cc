#include "product_json.h"

namespace ca {

Json product_json(const Rows& r, int row) {
  Json p = json_object();
  json_add_int(p.get(), "id", r.int64(row, 0));
  json_add_str(p.get(), "name", r.text(row, 1));
  json_add_opt_str(p.get(), "description", r.opt_text(row, 2));
  // NUMERIC(12,2) as text ("12.50") becomes the JSON number 12.5.
  json_add_num(p.get(), "price", r.number(row, 3));
  json_add_int(p.get(), "stock", r.int64(row, 4));
  json_add_opt_int(p.get(), "category_id", r.opt_int64(row, 5));
  json_add_bool(p.get(), "published", r.boolean(row, 6));
  json_add_str(p.get(), "created_at", r.text(row, 7));
  json_add_str(p.get(), "updated_at", r.text(row, 8));
  return p;
}

}  // namespace ca
