// GET /products (paginated, filtered) and GET /products/{id}.
#include <array>

#include "auth.h"
#include "error.h"
#include "json_rendered.h"
#include "product_json.h"
#include "products.h"
#include "validate.h"

namespace ca {
namespace {

// $1 written into its text on the tenant's Citus node (decision 0134).
const Statement kRead{"products_read",
                      "SELECT " CA_PRODUCT_JSON
                      " FROM products p WHERE p.tenant_id = $1 AND p.id = $2 "
                      "AND p.deleted_at IS NULL",
                      1};

// One statement per combination of filters, so each gets a plan that uses
// its index (a generic plan of "$n IS NULL OR ..." would not); $1, the
// tenant, written into its text on the tenant's Citus node (decision 0134).
// Each is a
// literal, declared below (the macros only spare writing the shared parts
// 24 times; tests/statements.sql shows every text in full). Values always
// travel as parameters: $1 tenant, $2 per_page, $3 offset, then the present
// filters in the order category_id, name pattern, published, after_id.
constexpr int kFilterCategory = 1, kFilterName = 2, kFilterPublished = 4, kShortName = 8,
              kAfterId = 16;
constexpr size_t kListVariants = 32;

// The numbers the name search's SQL states, as text (they are part of the
// literals) and as numbers (checked to agree below).
// A name search counts its matches exactly up to CA_SEARCH_TOTAL_CAP; beyond,
// the list answers that total with total_relation "gte" (Elasticsearch's
// track_total_hits). docs/decisions/0340-capped-totals-for-name-searches.md.
#define CA_SEARCH_TOTAL_CAP "10000"
#define CA_SEARCH_TOTAL_CAP_PLUS_ONE "10001"
// A name search in a tenant of more than the cap's live products first looks
// at its newest CA_SEARCH_PROBE_ROWS rows; when at least half of them
// (CA_SEARCH_PROBE_DENSE) match, the matches are dense and the search walks
// the rows newest first (at most CA_SEARCH_WALK_ROWS of them) and stops at
// the cap, instead of rechecking every trigram candidate.
// docs/decisions/0341-early-stopping-name-searches.md.
#define CA_SEARCH_PROBE_ROWS "8"
#define CA_SEARCH_PROBE_DENSE "4"
#define CA_SEARCH_WALK_ROWS "40000"

constexpr int64_t decimal(const char* s) {
  int64_t v = 0;
  for (; *s; ++s) v = v * 10 + (*s - '0');
  return v;
}
constexpr int64_t kSearchTotalCap = decimal(CA_SEARCH_TOTAL_CAP);
static_assert(decimal(CA_SEARCH_TOTAL_CAP_PLUS_ONE) == kSearchTotalCap + 1);
static_assert(decimal(CA_SEARCH_PROBE_DENSE) * 2 == decimal(CA_SEARCH_PROBE_ROWS));

// A live product of the tenant.
#define CA_LIVE_PRODUCT "p.tenant_id = $1 AND p.deleted_at IS NULL"

// The page's ids are chosen first; the columns are built (and detoasted) for
// the rows shown, not for the rows OFFSET skips. `id = ANY (ARRAY(...))`
// keeps that a primary-key lookup in a generic plan too (a join of the page
// to products could plan as a hash join over the whole tenant). TOTAL is the
// CTE `total` (column n), PAGE_IDS an array of ids.
#define CA_PRODUCT_LIST(TOTAL, PAGE_IDS)                                                   \
  "WITH " TOTAL " SELECT " CA_PRODUCT_JSON                                                 \
  ", total.n AS total FROM total LEFT JOIN products p ON p.tenant_id = $1 AND p.id = ANY " \
  "(" PAGE_IDS ") ORDER BY p.id DESC"

// The keyset cursor (AFTER: "" or " AND p.id < $n") narrows the page, not the
// total: the page starts right after that product in the list's order (id
// descending) and is an index range scan however deep it is, where OFFSET
// walks every row it skips.
#define CA_PRODUCT_PAGE(WHERE, AFTER) \
  "ARRAY(SELECT p.id FROM products p WHERE " WHERE AFTER " ORDER BY p.id DESC LIMIT $2 OFFSET $3)"

// No filter: the total is the tenant's live counter (sql/006).
#define CA_PRODUCT_LIST_ALL(NAME, AFTER)                                  \
  Statement {                                                             \
    NAME,                                                                 \
        CA_PRODUCT_LIST(                                                  \
            "total AS (SELECT COALESCE((SELECT live FROM product_counts " \
            "WHERE tenant_id = $1), 0) AS n)",                            \
            CA_PRODUCT_PAGE(CA_LIVE_PRODUCT, AFTER)),                     \
        1                                                                 \
  }

// Category and published filters (FILTERS: " AND p.category_id = $n",
// " AND p.published = $n"): the filter's index is counted; the page comes
// from the same index, in order.
#define CA_PRODUCT_LIST_FILTERED(NAME, FILTERS, AFTER)                                           \
  Statement {                                                                                    \
    NAME,                                                                                        \
        CA_PRODUCT_LIST(                                                                         \
            "total AS (SELECT count(*) AS n FROM products p WHERE " CA_LIVE_PRODUCT FILTERS ")", \
            CA_PRODUCT_PAGE(CA_LIVE_PRODUCT FILTERS, AFTER)),                                    \
        1                                                                                        \
  }

// A name search (PATTERN the parameter of the ILIKE pattern; CATEGORY and
// PUBLISHED "" or the filter) has two ways to its matches; both give the same
// page and total.
// - Sparse matches: the trigram index finds them all once (trigram_matches),
//   and both counts and pages them (given `ORDER BY id DESC LIMIT`,
//   PostgreSQL would rather walk the tenant's ids newest first until enough
//   rows match, which reads most of the tenant when the matches are old).
//   The count stops one past the cap: n > cap says "more than".
// - Dense matches (probe: a tenant over the cap whose newest rows mostly
//   match): walking the rows newest first finds the cap's 10,001 matches in a
//   few more rows than that (walk), where the trigram index would recheck
//   every match of the tenant; the page is a walk too.
// The walk settles the answer (walk_settled) when it found 10,001 matches
// and, after a cursor, the page below it, or when it looked at every row;
// otherwise (at most CA_SEARCH_WALK_ROWS rows looked at in vain) the trigram
// path answers. Each step runs only when needed (InitPlans are evaluated on
// first use).
// A pattern under 3 characters has no trigram to look up: the trigram index
// would scan every tenant's rows. NAME_COLUMN `(p.name || '')` hides the
// column from that index so the plan walks this tenant's rows only; the
// walk's page always uses it, so that it never plans as a trigram search.
// BELOW counts the walk's matches under the cursor ("0" without one);
// BELOW_SETTLES adds "the page below the cursor was found" to the walk's
// verdict; AFTER is the cursor's condition.
#define CA_SEARCH_WANT "GREATEST(" CA_SEARCH_TOTAL_CAP_PLUS_ONE ", $2::bigint + $3::bigint)"
#define CA_PRODUCT_SEARCH_(NAME, CATEGORY, NAME_COLUMN, PATTERN, PUBLISHED, BELOW, BELOW_SETTLES,  \
                           AFTER)                                                                  \
  Statement {                                                                                      \
    NAME,                                                                                          \
        CA_PRODUCT_LIST(                                                                           \
            "probe AS MATERIALIZED (SELECT COALESCE((SELECT live FROM product_counts WHERE "       \
            "tenant_id = $1), 0) > " CA_SEARCH_TOTAL_CAP                                           \
            " AND (SELECT count(*) FROM (SELECT p.name FROM products p WHERE " CA_LIVE_PRODUCT     \
                CATEGORY PUBLISHED " ORDER BY p.id DESC LIMIT " CA_SEARCH_PROBE_ROWS               \
            ") s WHERE s.name ILIKE " PATTERN ") >= " CA_SEARCH_PROBE_DENSE                        \
            " AS dense), "                                                                         \
            "walk AS MATERIALIZED (SELECT count(*) AS n, " BELOW                                   \
            " AS below FROM (SELECT s.id FROM (SELECT p.id, p.name FROM products p "               \
            "WHERE " CA_LIVE_PRODUCT CATEGORY PUBLISHED                                            \
            " AND (SELECT dense FROM probe) ORDER BY p.id DESC LIMIT " CA_SEARCH_WALK_ROWS         \
            ") s WHERE s.name ILIKE " PATTERN " LIMIT " CA_SEARCH_WANT                             \
            ") h), "                                                                               \
            "walk_settled AS MATERIALIZED (SELECT ((SELECT n FROM walk) >= " CA_SEARCH_WANT        \
                BELOW_SETTLES                                                                      \
            ") OR ((SELECT dense FROM probe) AND (SELECT count(*) FROM (SELECT FROM products p "   \
            "WHERE " CA_LIVE_PRODUCT CATEGORY PUBLISHED                                            \
            " ORDER BY p.id DESC LIMIT " CA_SEARCH_WALK_ROWS ") x) < " CA_SEARCH_WALK_ROWS         \
            ") AS settled), "                                                                      \
            "trigram_matches AS MATERIALIZED (SELECT p.id FROM products p WHERE " CA_LIVE_PRODUCT  \
                CATEGORY " AND " NAME_COLUMN " ILIKE " PATTERN PUBLISHED                           \
            " AND NOT (SELECT settled FROM walk_settled)), "                                       \
            "total AS (SELECT CASE WHEN (SELECT settled FROM walk_settled) THEN (SELECT n FROM "   \
            "walk) ELSE (SELECT count(*) FROM (SELECT FROM trigram_matches "                       \
            "LIMIT " CA_SEARCH_TOTAL_CAP_PLUS_ONE ") c) END AS n)",                                \
            "CASE WHEN (SELECT settled FROM walk_settled) THEN ARRAY(SELECT p.id FROM products p " \
            "WHERE " CA_LIVE_PRODUCT CATEGORY PUBLISHED " AND (p.name || '') ILIKE " PATTERN AFTER \
            " ORDER BY p.id DESC LIMIT $2 OFFSET $3) ELSE ARRAY(SELECT p.id FROM "                 \
            "trigram_matches p WHERE true" AFTER " ORDER BY p.id DESC LIMIT $2 OFFSET $3) END"),   \
        1                                                                                          \
  }
#define CA_PRODUCT_SEARCH(NAME, CATEGORY, NAME_COLUMN, PATTERN, PUBLISHED) \
  CA_PRODUCT_SEARCH_(NAME, CATEGORY, NAME_COLUMN, PATTERN, PUBLISHED, "0", "", "")
#define CA_PRODUCT_SEARCH_AFTER(NAME, CATEGORY, NAME_COLUMN, PATTERN, PUBLISHED, AFTER_ID) \
  CA_PRODUCT_SEARCH_(NAME, CATEGORY, NAME_COLUMN, PATTERN, PUBLISHED,                      \
                     "count(*) FILTER (WHERE h.id < " AFTER_ID ")",                        \
                     " AND (SELECT below FROM walk) >= $2::bigint + $3::bigint",           \
                     " AND p.id < " AFTER_ID)

// Indexed by the mask of filters present.
const Statement kList[kListVariants] = {
    // 0: no filter
    CA_PRODUCT_LIST_ALL("products_list_0", ""),
    // 1: category
    CA_PRODUCT_LIST_FILTERED("products_list_1", " AND p.category_id = $4", ""),
    // 2: name
    CA_PRODUCT_SEARCH("products_list_2", "", "p.name", "$4", ""),
    // 3: category, name
    CA_PRODUCT_SEARCH("products_list_3", " AND p.category_id = $4", "p.name", "$5", ""),
    // 4: published
    CA_PRODUCT_LIST_FILTERED("products_list_4", " AND p.published = $4", ""),
    // 5: category, published
    CA_PRODUCT_LIST_FILTERED("products_list_5", " AND p.category_id = $4 AND p.published = $5", ""),
    // 6: name, published
    CA_PRODUCT_SEARCH("products_list_6", "", "p.name", "$4", " AND p.published = $5"),
    // 7: category, name, published
    CA_PRODUCT_SEARCH("products_list_7", " AND p.category_id = $4", "p.name", "$5",
                      " AND p.published = $6"),
    // 8: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 9: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 10: name, short name
    CA_PRODUCT_SEARCH("products_list_10", "", "(p.name || '')", "$4", ""),
    // 11: category, name, short name
    CA_PRODUCT_SEARCH("products_list_11", " AND p.category_id = $4", "(p.name || '')", "$5", ""),
    // 12: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 13: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 14: name, short name, published
    CA_PRODUCT_SEARCH("products_list_14", "", "(p.name || '')", "$4", " AND p.published = $5"),
    // 15: category, name, short name, published
    CA_PRODUCT_SEARCH("products_list_15", " AND p.category_id = $4", "(p.name || '')", "$5",
                      " AND p.published = $6"),
    // 16: after_id
    CA_PRODUCT_LIST_ALL("products_list_16", " AND p.id < $4"),
    // 17: category, after_id
    CA_PRODUCT_LIST_FILTERED("products_list_17", " AND p.category_id = $4", " AND p.id < $5"),
    // 18: name, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_18", "", "p.name", "$4", "", "$5"),
    // 19: category, name, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_19", " AND p.category_id = $4", "p.name", "$5", "",
                            "$6"),
    // 20: published, after_id
    CA_PRODUCT_LIST_FILTERED("products_list_20", " AND p.published = $4", " AND p.id < $5"),
    // 21: category, published, after_id
    CA_PRODUCT_LIST_FILTERED("products_list_21", " AND p.category_id = $4 AND p.published = $5",
                             " AND p.id < $6"),
    // 22: name, published, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_22", "", "p.name", "$4", " AND p.published = $5", "$6"),
    // 23: category, name, published, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_23", " AND p.category_id = $4", "p.name", "$5",
                            " AND p.published = $6", "$7"),
    // 24: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 25: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 26: name, short name, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_26", "", "(p.name || '')", "$4", "", "$5"),
    // 27: category, name, short name, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_27", " AND p.category_id = $4", "(p.name || '')", "$5",
                            "", "$6"),
    // 28: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 29: never chosen (kShortName comes with kFilterName)
    Statement{},
    // 30: name, short name, published, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_30", "", "(p.name || '')", "$4", " AND p.published = $5",
                            "$6"),
    // 31: category, name, short name, published, after_id
    CA_PRODUCT_SEARCH_AFTER("products_list_31", " AND p.category_id = $4", "(p.name || '')", "$5",
                            " AND p.published = $6", "$7"),
};

// "%" + q with LIKE's wildcards escaped + "%".
std::string contains_pattern(const std::string& q) {
  std::string out = "%";
  for (char c : q) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

}  // namespace

Result<Response> products_list(Ctx& ctx) {
  FieldErrors errs;
  PageParams page = read_page_params(ctx.req, kDefaultPerPage, errs);
  int mask = 0;
  std::vector<Param> params;
  if (auto c = ctx.req.query_param("category_id")) {
    int64_t id = parse_id(*c);
    if (id == 0) errs.add("category_id", "The category_id field must be a positive integer.");
    params.emplace_back(id);
    mask |= kFilterCategory;
  }
  if (auto q = ctx.req.query_param("q")) {
    // A NUL would end the pattern early in PostgreSQL's C strings.
    if (!utf8_valid(*q) || q->find('\0') != std::string::npos || utf8_length(*q) > 255) {
      errs.add("q", "The q field must be valid text of at most 255 characters.");
    } else if (!q->empty()) {
      params.emplace_back(contains_pattern(*q));
      mask |= utf8_length(*q) < 3 ? kFilterName | kShortName : kFilterName;
    }
  }
  if (auto p = ctx.req.query_param("published")) {
    if (*p == "true" || *p == "1") {
      params.emplace_back(true);
    } else if (*p == "false" || *p == "0") {
      params.emplace_back(false);
    } else {
      errs.add("published", "The published field must be true or false.");
    }
    mask |= kFilterPublished;
  }
  if (auto a = ctx.req.query_param("after_id")) {
    if (ctx.req.query_param("page")) {
      errs.add("page", "The page field cannot be combined with after_id.");
    }
    int64_t id = parse_id(*a);
    if (id == 0) errs.add("after_id", "The after_id field must be a positive integer.");
    params.emplace_back(id);
    mask |= kAfterId;
  }
  if (!errs.empty()) return refuse_after_tenant_auth(ctx, Error::invalid(errs));

  // Token, session, membership and the page in one round trip.
  params.insert(params.begin(), {page.per_page, page.offset()});
  CA_TRY(read, authenticate_tenant_header_read(ctx, kList[mask], params));
  DbResult& r = read.rows;
  if (!r.ok()) return Error::database(r.error());
  int64_t total = r->empty() ? 0 : r->int64(0, "total");
  // Only a name search's count stops at the cap; other counts are exact.
  bool capped = (mask & kFilterName) != 0 && total > kSearchTotalCap;
  // After a cursor the page's position would take counting every row above
  // it, the cost the cursor exists to avoid: it is not reported.
  PageText text{.total = capped ? kSearchTotalCap : total,
                .current_page_null = (mask & kAfterId) != 0,
                .extra = capped ? R"(,"total_relation":"gte")" : R"(,"total_relation":"eq")"};
  return Response::text(
      200, rendered_page_text(r.rows(), page, text, kSuccessDataBefore, kSuccessDataAfter));
}

Result<Response> products_read(Ctx& ctx) {
  // Token, session, membership and the product in one round trip.
  CA_TRY(read, authenticate_tenant_header_read(ctx, kRead, {ctx.req.params[0]}));
  DbResult& r = read.rows;
  if (!r.ok()) return Error::database(r.error());
  if (r->empty()) return Error::not_found("Product not found");
  return Response::json(200, json_rendered(r.rows(), 0));
}

}  // namespace ca
