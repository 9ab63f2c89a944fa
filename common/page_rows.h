// The paginated body of a list statement shaped "total + page": column 0 of
// every row is the total, the item's columns follow from column 1, and a
// page past the end is one row of NULLs (the total LEFT JOINed to an empty
// page), so one round trip answers both; and the list endpoint of a path
// tenant built on it (path_tenant_page). Header-only; no state.
#pragma once

#include <utility>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "json.h"
#include "json_rendered.h"
#include "result.h"
#include "router.h"
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

// The whole of a GET that lists what belongs to the tenant in the path
// (`{tenantId}`, the route's first parameter), without filters of its own:
// authenticate_path_tenant() with `min_role`, the page parameters (default
// 15 per page), then `list` run with $1 the tenant, $2 per_page and $3 the
// offset, shaped as json_rendered.h's lists (a `json` and a `total` column).
// Answers 200 with the rendered page.
inline Result<Response> path_tenant_page(Ctx& ctx, const Statement& list,
                                         Role min_role = Role::kMember) {
  const int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id, min_role));
  (void)who;
  CA_TRY(page, read_page_params(ctx.req, 15));
  DbResult r = ctx.db.exec(list, {tenant_id, page.per_page, page.offset()});
  if (!r.ok()) return Error::database(r.error());
  return Response::json(200, json_rendered_page(r.rows(), page));
}

}  // namespace ca
