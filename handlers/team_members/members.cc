#include "members.h"

#include "db.h"
#include "page_rows.h"

namespace ca {
namespace {

// The page and the total in one round trip; a page past the end still has the total.
const Statement kList{
    "members_list",
    "WITH total AS (SELECT count(*) AS n FROM memberships WHERE tenant_id = $1), "
    "page AS (SELECT m.user_id, m.created_at, "
    "                ca_member_item_json(user_id => m.user_id, name => u.name, "
    "                  email => u.email, role => m.role, joined_at => m.created_at) "
    "                  AS json "
    "         FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.tenant_id = $1 "
    "         ORDER BY m.created_at, m.user_id LIMIT $2 OFFSET $3) "
    "SELECT total.n AS total, page.json "
    "FROM total LEFT JOIN page ON true ORDER BY page.created_at, page.user_id"};

}  // namespace

Result<Response> members_list(Ctx& ctx) { return path_tenant_page(ctx, kList); }

}  // namespace ca
