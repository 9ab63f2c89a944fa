// The paginated body of a list statement shaped "total + page": column 0 of
// every row is the total, the item's columns follow from column 1, and a
// page past the end is one row of NULLs (the total LEFT JOINed to an empty
// page), so one round trip answers both. Header-only; no state.
#pragma once

#include <utility>

#include "db.h"
#include "json.h"
#include "validate.h"

namespace ca {

// `{data, current_page, last_page, per_page, total}` with `item(rows, i)` for
// each row of the page.
template <class Item>
Json paginated_rows(const Rows& rows, const PageParams& page, Item&& item) {
  Json data = json_array();
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.is_null(i, 1)) continue;  // the empty page's row of NULLs
    json_append(data.get(), item(rows, i));
  }
  return paginated(std::move(data), page, rows.empty() ? 0 : rows.int64(0, 0));
}

}  // namespace ca
