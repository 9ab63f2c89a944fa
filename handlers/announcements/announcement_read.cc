// The paginated list, the caller's active list, and one announcement.
#include "announcement_json.h"
#include "announcements.h"
#include "auth.h"
#include "db.h"
#include "errors.h"
#include "validate.h"

namespace ca {
namespace {

constexpr int64_t kDefaultPerPage = 20;

// The page and the total in one round trip; a page past the end still has the total.
// The page's keys come from announcements_list_idx first, so the columns are
// built for the rows shown only, not for the rows OFFSET skips; `id = ANY
// (ARRAY(...))` keeps that a primary-key lookup in a generic plan too.
// Columns: CA_ANNOUNCEMENT_COLUMNS, then the total.
const Statement kList{
    "announcements_list",
    "WITH total AS (SELECT count(*) AS n FROM announcements WHERE tenant_id = $1) "
    "SELECT " CA_ANNOUNCEMENT_COLUMNS
    ", total.n FROM total "
    "LEFT JOIN (announcements a JOIN users u ON u.id = a.created_by) "
    "ON a.tenant_id = $1 AND a.id = ANY (ARRAY("
    "  SELECT id FROM announcements WHERE tenant_id = $1 "
    "  ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3)) "
    "ORDER BY a.created_at DESC, a.id DESC"};
constexpr int kListTotal = kAnnouncementColumnCount;

// One statement for the whole active list. The partial index
// announcements_live_idx gives the tenant's published rows that have not
// expired (the expiry is written as that index's expression), however many
// expired ones the history holds. Each row's JSON was rendered when it was
// written (active_json, sql/016). The caller's read record is looked up per
// row (LATERAL ... LIMIT 1 cannot be flattened into a join): PostgreSQL cannot
// estimate a condition on now() and would otherwise plan a hash join over
// every read record of the user. The sort keys come first: the sort
// compares whole result rows, and a key after variable-width (or null)
// columns is found by walking the row's columns on every comparison
// (nocachegetattr, a tenth of PostgreSQL's time on this statement; 7-15%
// more tps with the keys first).
const Statement kActive{
    "announcements_active",
    "SELECT a.priority, a.created_at, a.id, a.active_json, r.dismissed IS NOT NULL, "
    "       COALESCE(r.dismissed, false) "
    "FROM announcements a "
    "LEFT JOIN LATERAL (SELECT r.dismissed FROM announcement_reads r "
    "                   WHERE r.tenant_id = a.tenant_id AND r.announcement_id = a.id "
    "                     AND r.user_id = $2 LIMIT 1) r ON true "
    "WHERE a.tenant_id = $1 AND a.status = 'published' "
    "  AND (a.scheduled_at IS NULL OR a.scheduled_at <= now()) "
    "  AND COALESCE(a.expires_at, 'infinity'::timestamptz) > now() "
    "  AND r.dismissed IS NOT TRUE "
    "ORDER BY a.priority DESC, a.created_at DESC, a.id DESC"};
enum ActiveColumn { kActiveJson = 3, kActiveIsRead, kActiveIsDismissed };

const Statement kGet{"announcements_get",
                     "SELECT " CA_ANNOUNCEMENT_COLUMNS
                     " FROM announcements a JOIN users u ON u.id = a.created_by "
                     "WHERE a.tenant_id = $1 AND a.id = $2"};

// The stored object with the caller's read state added before its closing
// brace (the column always holds one object).
Json active_json(const Rows& r, int row) {
  std::string_view stored = r.text(row, kActiveJson);
  std::string out;
  out.reserve(stored.size() + 40);
  out.append(stored.substr(0, stored.size() - 1));
  out += r.boolean(row, kActiveIsRead) ? R"(,"is_read":true)" : R"(,"is_read":false)";
  out +=
      r.boolean(row, kActiveIsDismissed) ? R"(,"is_dismissed":true})" : R"(,"is_dismissed":false})";
  return json_raw(out);
}

}  // namespace

Response announcements_list(Ctx& ctx) {
  Result<PageParams> page = read_page_params(ctx.req, kDefaultPerPage, ErrorStyle::kSuccess);
  if (!page.ok()) return refuse_after_tenant_auth(ctx, std::move(page.error()));
  // Token, session, membership and the page in one round trip.
  CA_TRY(read, authenticate_tenant_header_read(ctx, kList, {page->per_page, page->offset()}));
  DbResult& r = read.rows;
  if (!r.ok()) return errors::database(r.error());
  Json data = json_array();
  for (int i = 0; i < r->size(); ++i) {
    if (r->is_null(i, kColId)) continue;  // the LEFT JOIN's empty page
    json_append(data.get(), announcement_json(r.rows(), i, AnnouncementView::kList));
  }
  return Response::success(200, nullptr,
                           paginated(std::move(data), *page, r->int64(0, kListTotal)));
}

Response announcements_active(Ctx& ctx) {
  // Token, session, membership and the list in one round trip.
  CA_TRY(read, authenticate_tenant_header_read(ctx, kActive, {}, ReadArgs::kTenantAndUser));
  DbResult& r = read.rows;
  if (!r.ok()) return errors::database(r.error());
  Json data = json_array();
  for (int i = 0; i < r->size(); ++i) json_append(data.get(), active_json(r.rows(), i));
  return Response::success(200, nullptr, std::move(data));
}

Response announcements_get(Ctx& ctx) {
  CA_TRY(read, authenticate_tenant_header_read(ctx, kGet, {ctx.req.params[0]}));
  DbResult& r = read.rows;
  if (!r.ok()) return errors::database(r.error());
  if (r->empty()) return errors::not_found("Announcement not found", ErrorStyle::kSuccess);
  return Response::success(200, nullptr, announcement_json(r.rows(), 0));
}

}  // namespace ca
