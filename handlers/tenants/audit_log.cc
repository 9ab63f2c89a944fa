#include "audit_log.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "../announcements/formats.h"
#include "auth.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "page_rows.h"
#include "validate.h"

namespace ca {
namespace {

// The total counts at most this many entries; beyond, the list answers it
// with total_relation "gte", as the products search does (decision 0340).
constexpr int64_t kTotalCap = 10000;

// Every filter, NULL for "any": $4 actor_type, $5 actor_id, $6 action,
// $7 target_type, $8 target_id, $9 since (inclusive), $10 until
// (exclusive).
#define CA_AUDIT_FILTERS                                                                       \
  "a.tenant_id = $1 AND ($4::text IS NULL OR a.actor_type = $4) "                              \
  "AND ($5::bigint IS NULL OR a.actor_id = $5) AND ($6::text IS NULL OR a.action = $6) "       \
  "AND ($7::text IS NULL OR a.target_type = $7) AND ($8::bigint IS NULL OR a.target_id = $8) " \
  "AND ($9::timestamptz IS NULL OR a.created_at >= $9) "                                       \
  "AND ($10::timestamptz IS NULL OR a.created_at < $10)"

// The page (newest first: created_at, then id) and the total counted up to
// one past kTotalCap, in one round trip. LEAD repeats the filter that picks
// the index as plain equalities, so that a generic plan uses it too: the
// statement chosen is the one whose index (sql/056) holds the asked rows in
// the page's order.
#define CA_AUDIT_LIST(LEAD)                                                                        \
  "WITH total AS (SELECT count(*) AS n FROM (SELECT FROM audit_log a WHERE " LEAD CA_AUDIT_FILTERS \
  " LIMIT 10001) c), "                                                                             \
  "page AS (SELECT a.id, a.created_at, ca_audit_json(id => a.id, action => a.action, "             \
  "  actor_type => a.actor_type, actor_id => a.actor_id, actor_name => a.actor_name, "             \
  "  target_type => a.target_type, target_id => a.target_id, changed => a.changed, "               \
  "  request_id => a.request_id, created_at => a.created_at) AS json "                             \
  "  FROM audit_log a WHERE " LEAD CA_AUDIT_FILTERS                                                \
  "  ORDER BY a.created_at DESC, a.id DESC LIMIT $2 OFFSET $3) "                                   \
  "SELECT total.n AS total, page.json FROM total LEFT JOIN page ON true "                          \
  "ORDER BY page.created_at DESC, page.id DESC"

const Statement kList{"audit_log_list", CA_AUDIT_LIST("")};
const Statement kListByTarget{"audit_log_list_by_target",
                              CA_AUDIT_LIST("a.target_type = $7 AND a.target_id = $8 AND ")};
const Statement kListByActor{"audit_log_list_by_actor",
                             CA_AUDIT_LIST("a.actor_type = $4 AND a.actor_id = $5 AND ")};
const Statement kListByAction{"audit_log_list_by_action", CA_AUDIT_LIST("a.action = $6 AND ")};

// The actions and target types of a tenant's entries (the writers of
// common/audit.h); a filter naming another is a 422. (A password reset's
// entry, user.password_reset, belongs to no tenant: sql/056.)
constexpr std::array<std::string_view, 26> kActions{
    "product.created",      "product.updated",      "product.deleted",
    "category.created",     "category.updated",     "category.deleted",
    "category.toggled",     "order.created",        "order.status_changed",
    "announcement.created", "announcement.updated", "announcement.archived",
    "member.invited",       "member.joined",        "member.role_updated",
    "member.removed",       "invitation.revoked",   "webhook.created",
    "webhook.updated",      "webhook.deleted",      "webhook.secret_rotated",
    "webhook.redelivered",  "webhook.tested",       "api_key.created",
    "api_key.revoked",      "tenant.updated"};
constexpr std::array<std::string_view, 9> kTargetTypes{"product",      "category", "order",
                                                       "announcement", "member",   "invitation",
                                                       "webhook",      "api_key",  "tenant"};

template <size_t N>
bool known(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

std::optional<int64_t> read_id(const Request& req, const char* name, FieldErrors& errs) {
  std::optional<std::string> text = req.query_param(name);
  if (!text) return std::nullopt;
  int64_t id = parse_id(*text);
  if (id == 0) {
    errs.add(name, std::string("The ") + name + " field must be a positive integer.");
    return std::nullopt;
  }
  return id;
}

std::optional<std::string> read_time(const Request& req, const char* name, FieldErrors& errs) {
  std::optional<std::string> text = req.query_param(name);
  if (!text) return std::nullopt;
  std::optional<Timestamp> ts = parse_timestamp(*text);
  if (!ts) {
    errs.add(name, std::string("The ") + name +
                       " field must be a valid ISO 8601 date-time such as 2026-12-01T10:00:00Z.");
    return std::nullopt;
  }
  return ts->canonical;
}

}  // namespace

Result<Response> audit_log_list(Ctx& ctx) {
  CA_TRY(tenant_id, path_tenant_for(ctx, Role::kAdmin));
  FieldErrors errs;
  PageParams page = read_page_params(ctx.req, kDefaultPerPage, errs);
  std::optional<std::string> actor_type = ctx.req.query_param("actor_type");
  if (actor_type && *actor_type != "user" && *actor_type != "api_key") {
    errs.add("actor_type", "The selected actor_type is invalid.");
  }
  std::optional<int64_t> actor_id = read_id(ctx.req, "actor_id", errs);
  std::optional<std::string> action = ctx.req.query_param("action");
  if (action && !known(kActions, *action)) errs.add("action", "The selected action is invalid.");
  std::optional<std::string> target_type = ctx.req.query_param("target_type");
  if (target_type && !known(kTargetTypes, *target_type)) {
    errs.add("target_type", "The selected target_type is invalid.");
  }
  std::optional<int64_t> target_id = read_id(ctx.req, "target_id", errs);
  std::optional<std::string> since = read_time(ctx.req, "since", errs);
  std::optional<std::string> until = read_time(ctx.req, "until", errs);
  if (!errs.empty()) return Error::invalid(errs);

  const Statement& list = (target_type && target_id) ? kListByTarget
                          : (actor_type && actor_id) ? kListByActor
                          : action                   ? kListByAction
                                                     : kList;
  DbResult r = ctx.db.exec(list, {tenant_id, page.per_page, page.offset(), actor_type, actor_id,
                                  action, target_type, target_id, since, until});
  if (!r.ok()) return Error::database(r.error());
  const int64_t counted = rendered_page_total(r.rows());
  const bool capped = counted > kTotalCap;
  PageText text{.total = capped ? kTotalCap : counted,
                .extra = capped ? R"(,"total_relation":"gte")" : R"(,"total_relation":"eq")"};
  return Response::text(200, rendered_page_text(r.rows(), page, text));
}

}  // namespace ca
