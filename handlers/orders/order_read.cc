// Reading orders: one order with everything (docs/openapi.yaml, tag Orders), and the
// paginated list (docs/design/api-conventions.md "Orders": filters `status` and `user_id`, newest
// first). The list leaves the items out and gives their count instead.
#include <optional>
#include <string>

#include "auth.h"
#include "db.h"
#include "error.h"
#include "json_rendered.h"
#include "order_json.h"
#include "orders.h"
#include "validate.h"

namespace ca {
namespace {

// One statement per filter combination, so that each gets a plan on its own
// index (a shared "$n IS NULL OR ..." form would not). The total and the page
// come in one round trip; a page past the end still carries the total. The
// page's ids are chosen first and looked up as `id = ANY (ARRAY(...))`, a
// primary-key lookup in a generic plan too (see common/db.cc).
// $1 tenant, $2 per_page, $3 offset, then the filters in the order status,
// user_id. Columns: total, json (the order with items_count, sql/026; NULL
// for a page past the end). The items' count names `i.tenant_id = $1`, not
// `o.tenant_id`: so Citus sees every table pinned to one tenant and sends the
// whole statement to its shard; correlated on `o.tenant_id` it was refused
// there ("correlated subqueries are not supported when the FROM clause
// contains a CTE or subquery"). The same plan on single-node.
#define CA_ORDER_LIST(NAME, TOTAL, FILTER)                                                    \
  Statement {                                                                                 \
    NAME, "WITH total AS (" TOTAL                                                           \
          ") "                                                                              \
          "SELECT total.n AS total, CASE WHEN o.id IS NOT NULL THEN " CA_ORDER_JSON(        \
              "NULL",                                                                       \
              "(SELECT count(*) FROM order_items i "                                        \
              " WHERE i.tenant_id = $1 AND i.order_id = o.id)",                             \
              "ca_order_user_json(id => u.id, name => u.name, email => u.email)",          \
              "ca_order_address_json(all_fields => false, id => a.id, street => a.street, " \
              "city => a.city, country => NULL, postal_code => NULL)") " END AS json "      \
          "FROM total LEFT JOIN (orders o JOIN users u ON u.id = o.user_id "                \
          "  JOIN addresses a ON a.user_id = o.user_id AND a.id = o.address_id) "           \
          "ON o.tenant_id = $1 AND o.id = ANY (ARRAY("                                      \
          "  SELECT o.id FROM orders o WHERE o.tenant_id = $1" FILTER                       \
          "  ORDER BY o.id DESC LIMIT $2 OFFSET $3)) "                                      \
          "ORDER BY o.id DESC" \
  }

// The total without a user filter is the sum of the tenant's counter slots
// (sql/017), any number of orders; a user's orders are counted.
#define CA_ORDER_COUNTER(FILTER) \
  "SELECT COALESCE(sum(n), 0) AS n FROM order_counts WHERE tenant_id = $1" FILTER
#define CA_ORDER_COUNT(FILTER) "SELECT count(*) AS n FROM orders o WHERE o.tenant_id = $1" FILTER

const Statement kListAll = CA_ORDER_LIST("orders_list", CA_ORDER_COUNTER(""), "");
const Statement kListByStatus =
    CA_ORDER_LIST("orders_list_status", CA_ORDER_COUNTER(" AND status = $4"), " AND o.status = $4");
const Statement kListByUser =
    CA_ORDER_LIST("orders_list_user", CA_ORDER_COUNT(" AND o.user_id = $4::bigint"),
                  " AND o.user_id = $4::bigint");
const Statement kListByUserStatus = CA_ORDER_LIST(
    "orders_list_user_status", CA_ORDER_COUNT(" AND o.status = $4 AND o.user_id = $5::bigint"),
    " AND o.status = $4 AND o.user_id = $5::bigint");

struct ListFilters {
  std::optional<std::string> status;
  std::optional<int64_t> user_id;
};

// `status` one of the order states, `user_id` a positive integer; failures go to `errs`.
ListFilters read_filters(const Request& req, FieldErrors& errs) {
  ListFilters f;
  if (auto status = req.query_param("status")) {
    if (order_status_known(*status)) {
      f.status = *status;
    } else {
      errs.add("status", "The selected status is invalid: use " + order_statuses_text() + ".");
    }
  }
  if (auto user_id = req.query_param("user_id")) {
    int64_t id = parse_id(*user_id);
    if (id == 0) {
      errs.add("user_id", "The user_id field must be a positive integer.");
    } else {
      f.user_id = id;
    }
  }
  return f;
}

}  // namespace

Result<Response> orders_read(Ctx& ctx) {
  int64_t id = ctx.req.params[0];
  CA_TRY(who, authenticate_tenant_header(ctx));
  CA_TRY(order, order_load(ctx, who.tenant_id, id));
  return Response::success(200, nullptr, std::move(order));
}

Result<Response> orders_list(Ctx& ctx) {
  // Page and filter errors are reported together.
  FieldErrors errs;
  PageParams page = read_page_params(ctx.req, kDefaultPerPage, errs);
  ListFilters filters = read_filters(ctx.req, errs);
  if (!errs.empty()) return refuse_after_tenant_auth(ctx, Error::invalid(errs));
  std::vector<Param> params{page.per_page, page.offset()};
  const Statement* stmt = &kListAll;
  if (filters.status) params.emplace_back(*filters.status);
  if (filters.user_id) params.emplace_back(*filters.user_id);
  if (filters.status && filters.user_id) {
    stmt = &kListByUserStatus;
  } else if (filters.status) {
    stmt = &kListByStatus;
  } else if (filters.user_id) {
    stmt = &kListByUser;
  }
  // Token, session, membership and the page in one round trip.
  CA_TRY(read, authenticate_tenant_header_read(ctx, *stmt, std::move(params)));
  DbResult& r = read.rows;
  if (!r.ok()) return Error::database(r.error());

  return Response::text(200, rendered_page_text(r.rows(), page, {rendered_page_total(r.rows())},
                                                kSuccessDataBefore, kSuccessDataAfter));
}

}  // namespace ca
