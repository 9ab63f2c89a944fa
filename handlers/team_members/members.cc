#include "members.h"

#include "auth.h"
#include "db.h"
#include "error.h"
#include "page_rows.h"
#include "validate.h"

namespace ca {
namespace {

// The page and the total in one round trip; a page past the end still has the total.
const Statement kList{
    "members_list",
    "WITH total AS (SELECT count(*) AS n FROM memberships WHERE tenant_id = $1), "
    "page AS (SELECT m.user_id, u.name, u.email, m.role, m.created_at AS joined_at, "
    "                m.created_at "
    "         FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.tenant_id = $1 "
    "         ORDER BY m.created_at, m.user_id LIMIT $2 OFFSET $3) "
    "SELECT total.n, page.user_id, page.name, page.email, page.role, page.joined_at "
    "FROM total LEFT JOIN page ON true ORDER BY page.created_at, page.user_id"};

}  // namespace

Result<Response> members_list(Ctx& ctx) {
  int64_t tenant_id = ctx.req.params[0];
  CA_TRY(who, authenticate_path_tenant(ctx, tenant_id));
  (void)who;
  CA_TRY(page, read_page_params(ctx.req, 15));
  DbResult r = ctx.db.exec(kList, {tenant_id, page.per_page, page.offset()});
  if (!r.ok()) return Error::database(r.error());
  return Response::json(200, paginated_rows(r.rows(), page, [](const Rows& rows, int i) {
                          Json m = json_object();
                          json_add_int(m.get(), "user_id", rows.int64(i, 1));
                          json_add_str(m.get(), "name", rows.text(i, 2));
                          json_add_str(m.get(), "email", rows.text(i, 3));
                          json_add_str(m.get(), "role", rows.text(i, 4));
                          json_add_str(m.get(), "joined_at", rows.text(i, 5));
                          return m;
                        }));
}

}  // namespace ca
