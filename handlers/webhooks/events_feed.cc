// The events feed (DESIGN §8 "Events feed"): a tenant's events, oldest
// first, after a cursor. What a receiver that was down, or a new
// integration, reads to catch up; each event's `data` is the webhook body's.
//
// Paging is by id (keyset), never by offset: `after` is the last id the
// reader has, the answer's `next_after` the one to send next. Ids only grow,
// so a reader that follows next_after sees every event once. Events are
// purged after RETENTION_DAYS (README "Retention"); an older cursor gets
// the events that are left after it, without an error (decision 0100).
// Test events (`webhook.test`) are not in the feed: each is addressed to
// one subscription, not something that happened in the tenant.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "page_rows.h"
#include "validate.h"
#include "webhooks.h"

namespace ca {
namespace {

constexpr int64_t kDefaultLimit = 50;
constexpr int64_t kMaxLimit = 100;
// An answer stops before the event that would take it past this many bytes
// (has_more then says there is more): 100 of the largest events (an
// announcement.published of about 200 KB) would be 20 MB, and every answer
// stays within 8 MiB (docs/security.md). The first event is always
// answered: no event is larger than 256 KiB.
constexpr size_t kMaxAnswerBytes = 4 * 1024 * 1024;

// $1 tenant, $2 after, $3 rows (the limit + 1: one more tells has_more).
// An event written with an API key shows it as `actor` (sql/057).
// Along the primary key (tenant_id, id): a router query on Citus.
const Statement kFeed{"events_feed",
                      "SELECT id, ca_event_json(id => id, type => type, created_at => created_at, "
                      "  payload => payload, actor => actor) AS json "
                      "FROM events WHERE tenant_id = $1 AND id > $2 AND type <> 'webhook.test' "
                      "ORDER BY id LIMIT $3"};

// The same for the types in $4 (comma-separated, known and distinct): per
// type, the first rows after the cursor along events_tenant_type_idx
// (sql/045), then the first of all those. At most (types x rows) index
// entries, however rare a type is among the tenant's events.
const Statement kFeedOfTypes{
    "events_feed_of_types",
    "SELECT e.id, ca_event_json(id => e.id, type => e.type, created_at => e.created_at, "
    "  payload => e.payload, actor => e.actor) AS json "
    "FROM unnest(string_to_array($4::text, ',')) AS wanted (type) "
    "CROSS JOIN LATERAL ("
    "  SELECT id, type, created_at, payload, actor FROM events "
    "  WHERE tenant_id = $1 AND type = wanted.type AND id > $2 "
    "  ORDER BY id LIMIT $3) e "
    "ORDER BY e.id LIMIT $3"};

// `types`: comma-separated event types of the README's table (what a
// subscription may name, without "*"), returned without duplicates.
std::string read_types(std::string_view text, FieldErrors& errs) {
  std::set<std::string> seen;
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty() || item == "*" || !event_type_known(item)) {
      errs.add("types", "The types field must be a comma-separated list of known event types.");
      return "";
    }
    if (seen.insert(std::string(item)).second) {
      if (!out.empty()) out += ',';
      out += item;
    }
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

Result<Response> events_feed(Ctx& ctx) {
  // ADMIN only. Once API keys exist, a key of this tenant with the scope
  // `events:read` is let in here as well.
  CA_TRY(tenant_id, path_tenant_for(ctx, Role::kAdmin));
  FieldErrors errs;
  int64_t after = 0;
  if (auto text = ctx.req.query_param("after")) {
    if (*text != "0") {
      after = parse_id(*text);
      if (after == 0) errs.add("after", "The after field must be an integer of at least 0.");
    }
  }
  int64_t limit = kDefaultLimit;
  if (auto text = ctx.req.query_param("limit")) {
    limit = parse_id(*text);
    if (limit == 0) {
      errs.add("limit", "The limit field must be an integer of at least 1.");
    } else if (limit > kMaxLimit) {
      limit = kMaxLimit;  // clamped, as per_page is
    }
  }
  std::string types;
  std::optional<std::string> types_text = ctx.req.query_param("types");
  if (types_text) types = read_types(*types_text, errs);
  if (!errs.empty()) return Error::invalid(errs);

  DbResult r = types_text ? ctx.db.exec(kFeedOfTypes, {tenant_id, after, limit + 1, types})
                          : ctx.db.exec(kFeed, {tenant_id, after, limit + 1});
  if (!r.ok()) return Error::database(r.error());
  const Rows& rows = r.rows();
  const Col id = rows.col("id"), json = rows.col("json");
  const int fetched = static_cast<int>(std::min<int64_t>(rows.size(), limit));
  std::string out = R"({"data":[)";
  int n = 0;
  for (; n < fetched; ++n) {
    std::string_view event = rows.text(n, json);
    if (n > 0 && out.size() + event.size() > kMaxAnswerBytes) break;
    if (n > 0) out += ',';
    out += event;
  }
  out += R"(],"has_more":)";
  out += rows.size() > n ? "true" : "false";
  out += R"(,"next_after":)";
  out += n > 0 ? std::string(rows.text(n - 1, id)) : "null";
  out += '}';
  return Response::text(200, std::move(out));
}

}  // namespace ca
