// The Product record: the columns every product statement returns, and its JSON.
#pragma once

#include "db.h"
#include "json.h"

namespace ca {

#define CA_PRODUCT_COLUMNS                                                      \
  "p.id, p.name, p.description, p.price, p.stock, p.category_id, p.published, " \
  "p.created_at, p.updated_at"
inline constexpr int kProductColumns = 9;

// `{id, name, description, price, stock, category_id, published, created_at, updated_at}`.
Json product_json(const Rows& rows, int row);

}  // namespace ca
