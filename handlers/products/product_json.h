// The Product record. PostgreSQL renders its JSON when the row is written
// (products.api_json, sql/016_rendered_json.sql); every product statement
// returns that column first and the handlers print it as it is.
#pragma once

#include "db.h"
#include "json.h"

namespace ca {

#define CA_PRODUCT_JSON "p.api_json"

// `{id, name, description, price, stock, category_id, published, created_at,
// updated_at}`, from the statement's first column.
inline Json product_json(const Rows& rows, int row) { return json_raw(rows.text(row, 0)); }

}  // namespace ca
