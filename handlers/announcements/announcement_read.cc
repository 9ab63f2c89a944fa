// The paginated list, the caller's active list, and one announcement.
#include <algorithm>

#include "active_list.h"
#include "announcement_json.h"
#include "announcements.h"
#include "auth.h"
#include "config.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "page_rows.h"
#include "validate.h"

namespace ca {
namespace {

constexpr int64_t kAnnouncementsPerPage = 20;
// Not 100: a page of the largest announcements must stay under the 8 MiB
// answer bound (docs/decisions/0020-announcement-size-bounds.md).
constexpr int64_t kMaxAnnouncementsPerPage = 50;

// The page and the total in one round trip; a page past the end still has the total.
// The page's keys come from announcements_list_idx first, so the columns are
// built for the rows shown only, not for the rows OFFSET skips; `id = ANY
// (ARRAY(...))` keeps that a primary-key lookup in a generic plan too.
const Statement kList{
    "announcements_list",
    "WITH total AS (SELECT count(*) AS n FROM announcements WHERE tenant_id = $1) "
    "SELECT " CA_ANNOUNCEMENT_LIST_JSON
    ", total.n AS total FROM total "
    "LEFT JOIN (announcements a JOIN users u ON u.id = a.created_by) "
    "ON a.tenant_id = $1 AND a.id = ANY (ARRAY("
    "  SELECT id FROM announcements WHERE tenant_id = $1 "
    "  ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3)) "
    "ORDER BY a.created_at DESC, a.id DESC"};

// The active list from the database, one statement: what is answered when
// the kept list (below) is not current. The partial index
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
// The live rows are those kActiveFill keeps; the two conditions must agree.
#define CA_LIVE_ANNOUNCEMENT                     \
  "a.tenant_id = $1 AND a.status = 'published' " \
  "AND COALESCE(a.expires_at, 'infinity'::timestamptz) > now() "
const Statement kActive{
    "announcements_active",
    "SELECT a.priority, a.created_at, a.id, a.active_json AS json, "
    "       r.dismissed IS NOT NULL AS is_read, COALESCE(r.dismissed, false) AS is_dismissed "
    "FROM announcements a "
    "LEFT JOIN LATERAL (SELECT r.dismissed FROM announcement_reads r "
    "                   WHERE r.tenant_id = $1 AND r.announcement_id = a.id "
    "                     AND r.user_id = $2 LIMIT 1) r ON true "
    "WHERE " CA_LIVE_ANNOUNCEMENT
    "  AND (a.scheduled_at IS NULL OR a.scheduled_at <= now()) "
    "  AND r.dismissed IS NOT TRUE "
    "ORDER BY a.priority DESC, a.created_at DESC, a.id DESC LIMIT $3"};

// The tenant's list version (sql/019). A tenant gets its row with its first
// announcement, in the same transaction: no row is version 0, the empty list.
#define CA_LIST_VERSION \
  "COALESCE((SELECT version FROM announcement_list_versions WHERE tenant_id = $1), 0)"

// The tenant's list to keep, with the version it belongs to and the
// moments it holds between, all read in one snapshot: from now() to the
// first expiry of a listed row or the first scheduled_at of a row still to
// come. At least one row (NULL id and JSON when the list is empty); at most
// $2 rows (one more than the list holds, to tell a truncated list).
const Statement kActiveFill{
    "announcements_active_fill",
    "WITH pending AS ("
    "  SELECT a.priority, a.created_at, a.id, a.active_json, a.scheduled_at, a.expires_at, "
    "         (a.scheduled_at IS NULL OR a.scheduled_at <= now()) AS live "
    "  FROM announcements a WHERE " CA_LIVE_ANNOUNCEMENT
    ") "
    "SELECT " CA_LIST_VERSION
    " AS list_version, ca_epoch_us(now()) AS now_us, "
    "       ca_epoch_us(LEAST((SELECT min(expires_at) FROM pending WHERE live), "
    "                         (SELECT min(scheduled_at) FROM pending WHERE NOT live))) AS "
    "until_us, "
    "       p.id, p.active_json AS json "
    "FROM (VALUES (1)) one LEFT JOIN pending p ON p.live "
    "ORDER BY p.priority DESC, p.created_at DESC, p.id DESC LIMIT $2"};

// The caller's read version in the tenant (sql/019), the same way.
#define CA_READ_VERSION                                       \
  "COALESCE((SELECT version FROM announcement_read_versions " \
  "          WHERE tenant_id = $1 AND user_id = $2), 0)"

// Sent with the session check: the tenant's list version, the caller's read
// version and the database's clock. Two primary-key reads.
const Statement kActiveCheck{"announcements_active_check",
                             "SELECT " CA_LIST_VERSION " AS list_version, " CA_READ_VERSION
                             " AS read_version, ca_epoch_us(now()) AS now_us"};

// The caller's read records of the kept list's announcements ($3), with
// the read version they are as of. One row with NULL read columns when
// there are none. (`IN (SELECT unnest(...))` is hashed once; `= ANY ($3)`
// unpacked the array again for every read record it was checked against.)
const Statement kActiveReads{
    "announcements_active_reads",
    "SELECT " CA_READ_VERSION
    " AS read_version, r.announcement_id, r.dismissed "
    "FROM (VALUES (1)) one "
    "LEFT JOIN (SELECT r.announcement_id, r.dismissed FROM announcement_reads r "
    "           WHERE r.user_id = $2 AND r.tenant_id = $1 "
    "             AND r.announcement_id IN (SELECT unnest($3::bigint[]))) r ON true"};

// Per thread, so without locks: 1 MiB of lists (about 0.6 KB an
// announcement) and 256 KiB of callers' read records each, at most.
constexpr size_t kActiveListBytes = size_t{1} << 20;
constexpr size_t kReaderStateBytes = size_t{256} << 10;
ActiveListCache& active_lists() {
  thread_local ActiveListCache cache(kActiveListBytes);
  return cache;
}
ReaderStateCache& reader_states() {
  thread_local ReaderStateCache cache(kReaderStateBytes);
  return cache;
}

// The first `max` rows of kActiveFill's answer (it reads one more).
std::shared_ptr<const ActiveList> list_from_fill(const Rows& r, int64_t max) {
  auto list = std::make_shared<ActiveList>();
  list->version = r.int64(0, "list_version");
  list->valid_from_us = r.int64(0, "now_us");
  if (!r.is_null(0, "until_us")) list->valid_until_us = r.int64(0, "until_us");
  const Col id = r.col("id"), json = r.col("json");
  for (int i = 0; i < r.size(); ++i) {
    if (r.is_null(i, id)) continue;
    if (static_cast<int64_t>(list->ids.size()) == max) {
      list->truncated = true;
      break;
    }
    list->add(r.int64(i, id), r.text(i, json));
  }
  return list;
}

std::shared_ptr<const ReaderState> reader_from_reads(const Rows& r, int64_t list_version) {
  auto state = std::make_shared<ReaderState>();
  state->list_version = list_version;
  state->reads_version = r.int64(0, "read_version");
  const Col id = r.col("announcement_id"), dismissed = r.col("dismissed");
  for (int i = 0; i < r.size(); ++i) {
    if (!r.is_null(i, id)) state->reads.push_back({r.int64(i, id), r.boolean(i, dismissed)});
  }
  return state;
}

// The active list from the database (kActive), and the list to keep for
// the next requests, in one round trip.
Result<Response> active_from_database(Ctx& ctx, const Principal& who) {
  const int64_t max = ctx.config.active_announcements_max;
  std::vector<DbResult> results = ctx.db.pipeline(
      {{&kActive, {who.tenant_id, who.user_id, max}}, {&kActiveFill, {who.tenant_id, max + 1}}});
  DbResult& r = results[0];
  if (!r.ok()) return Error::database(r.error());
  // The answer's text built in place (json_rendered.h's rendered_page_text()
  // explains why): with the rows, its only copy.
  std::string body(kSuccessDataBefore);
  body += '[';
  if (!r->empty()) {
    const Col json = r->col("json"), is_read = r->col("is_read"),
              is_dismissed = r->col("is_dismissed");
    size_t size = body.size() + kSuccessDataAfter.size() + 1;
    for (int i = 0; i < r->size(); ++i) size += r->text(i, json).size() + 40;
    body.reserve(size);
    for (int i = 0; i < r->size(); ++i) {
      if (i > 0) body += ',';
      append_active_item(body, r->text(i, json), r->boolean(i, is_read),
                         r->boolean(i, is_dismissed));
    }
  }
  body += ']';
  body += kSuccessDataAfter;
  if (results[1].ok()) {
    active_lists().store(who.tenant_id, list_from_fill(results[1].rows(), max));
  }
  return Response::text(200, std::move(body));
}

const Statement kGet{"announcements_get",
                     "SELECT " CA_ANNOUNCEMENT_JSON
                     " FROM announcements a JOIN users u ON u.id = a.created_by "
                     "WHERE a.tenant_id = $1 AND a.id = $2"};

}  // namespace

Result<Response> announcements_list(Ctx& ctx) {
  return tenant_header_page(ctx, kList, kAnnouncementsPerPage, kMaxAnnouncementsPerPage);
}

Result<Response> announcements_active(Ctx& ctx) {
  // Token, session, membership and the versions in one round trip.
  CA_TRY(read, authenticate_tenant_header_read(ctx, kActiveCheck, {}, ReadArgs::kTenantAndUser));
  DbResult& check = read.rows;
  if (!check.ok()) return Error::database(check.error());
  const Principal& who = read.who;
  int64_t list_version = check->int64(0, "list_version");
  std::shared_ptr<const ActiveList> list = active_lists().find(who.tenant_id);
  if (!list || !list->current(list_version, check->int64(0, "now_us"))) {
    return active_from_database(ctx, who);
  }
  // The kept list is the list. The caller's read records of it, kept or read.
  ReaderKey key{who.tenant_id, who.user_id};
  std::shared_ptr<const ReaderState> reader = reader_states().find(key);
  if (!reader || !reader->current(list_version, check->int64(0, "read_version"))) {
    DbResult reads = ctx.db.exec(kActiveReads, {who.tenant_id, who.user_id, list->ids_param});
    if (!reads.ok()) return Error::database(reads.error());
    reader = reader_from_reads(reads.rows(), list_version);
    reader_states().store(key, reader);
  }
  if (list->truncated && std::any_of(reader->reads.begin(), reader->reads.end(),
                                     [](const ReadState& r) { return r.dismissed; })) {
    return active_from_database(ctx, who);
  }
  std::string body(kSuccessDataBefore);
  body += active_array_for(*list, reader->reads);
  body += kSuccessDataAfter;
  return Response::text(200, std::move(body));
}

Result<Response> announcements_get(Ctx& ctx) {
  CA_TRY(read, authenticate_tenant_header_read(ctx, kGet, {ctx.req.params[0]}));
  DbResult& r = read.rows;
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Announcement not found");
  return Response::success(200, nullptr, json_rendered(r.rows(), 0));
}

}  // namespace ca
