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

const Statement kRead{"products_read", "SELECT " CA_PRODUCT_JSON
                                       " FROM products p WHERE p.tenant_id = $1 AND p.id = $2 "
                                       "AND p.deleted_at IS NULL"};

// One statement per combination of filters, so each gets a plan that uses
// its index (a generic plan of "$n IS NULL OR ..." would not). The SQL is
// fixed text chosen by which filters are present; values always travel as
// parameters: $1 tenant, $2 per_page, $3 offset, then the present filters in
// the order category_id, name pattern, published, after_id.
constexpr int kFilterCategory = 1, kFilterName = 2, kFilterPublished = 4, kShortName = 8,
              kAfterId = 16;
constexpr size_t kListVariants = 32;
// A name search counts its matches exactly up to this many; beyond, the
// list answers this total with total_relation "gte" (Elasticsearch's
// track_total_hits). docs/decisions/0340-capped-totals-for-name-searches.md.
constexpr int64_t kSearchTotalCap = 10000;
// A name search in a tenant of more than kSearchTotalCap live products first
// looks at its newest kSearchProbeRows rows; when at least half match, the
// matches are dense and the search walks the rows newest first (at most
// kSearchWalkRows of them) and stops at the cap, instead of rechecking every
// trigram candidate. docs/decisions/0341-early-stopping-name-searches.md.
constexpr int kSearchProbeRows = 8;
constexpr int kSearchWalkRows = 40000;

// "$n", then n + 1. Appended, not "$" + std::to_string(n): GCC 12 at -O2
// warns (-Wrestrict, a false positive) on that operator+ overload.
std::string next_param(int& n) {
  std::string p = "$";
  p += std::to_string(n++);
  return p;
}

struct ListStatements {
  std::array<std::string, kListVariants> names;
  std::array<std::string, kListVariants> sql;
  std::array<Statement, kListVariants> statements;
  ListStatements() {
    for (int mask = 0; mask < static_cast<int>(kListVariants); ++mask) {
      std::string where = "p.tenant_id = $1 AND p.deleted_at IS NULL";
      int n = 4;
      if (mask & kFilterCategory) where += " AND p.category_id = $" + std::to_string(n++);
      // The filters but the name: the rows a dense name search walks.
      std::string base = where;
      std::string pattern;
      // A pattern under 3 characters has no trigram to look up: the trigram
      // index would scan every tenant's rows. `name || ''` hides the column
      // from that index so the plan walks this tenant's rows only.
      if (mask & kFilterName) {
        pattern = next_param(n);
        where += (mask & kShortName) ? " AND (p.name || '') ILIKE " : " AND p.name ILIKE ";
        where += pattern;
      }
      if (mask & kFilterPublished) {
        std::string published = " AND p.published = $" + std::to_string(n++);
        where += published;
        base += published;
      }
      // The keyset cursor narrows the page, not the total: the page starts
      // right after that product in the list's order (id descending) and is
      // an index range scan however deep it is, where OFFSET walks every
      // row it skips.
      std::string after_param = (mask & kAfterId) ? next_param(n) : "";
      std::string after = (mask & kAfterId) ? " AND p.id < " + after_param : "";
      names[mask] = "products_list_" + std::to_string(mask);
      // The page's ids are chosen first; the columns are built (and
      // detoasted) for the rows shown, not for the rows OFFSET skips.
      // `id = ANY (ARRAY(...))` keeps that a primary-key lookup in a generic
      // plan too (a join of the page to products could plan as a hash join
      // over the whole tenant).
      std::string page_ids;
      std::string total;
      if (mask & kFilterName) {
        // A name search has two ways to its matches; both give the same
        // page and total. Sparse matches: the trigram index finds them all
        // once (m), and both counts and pages them (given `ORDER BY id DESC
        // LIMIT`, PostgreSQL would rather walk the tenant's ids newest first
        // until enough rows match, which reads most of the tenant when the
        // matches are old). The count stops one past the cap: n > cap says
        // "more than". Dense matches (g: a tenant over the cap whose newest
        // rows mostly match): walking the rows newest first finds the cap's
        // 10,001 matches in a few more rows than that (w), where the trigram
        // index would recheck every match of the tenant; the page is a walk
        // too. The walk settles the answer (st) when it found 10,001
        // matches and, after a cursor, the page below it, or when it looked
        // at every row; otherwise (at most kSearchWalkRows rows looked at in
        // vain) the trigram path answers. Each step runs only when needed
        // (InitPlans are evaluated on first use).
        const std::string cap = std::to_string(kSearchTotalCap + 1);
        const std::string walk_rows = std::to_string(kSearchWalkRows);
        const std::string want = "GREATEST(" + cap + ", $2::bigint + $3::bigint)";
        total =
            "g AS MATERIALIZED (SELECT COALESCE((SELECT live FROM product_counts WHERE tenant_id = "
            "$1), 0) > " +
            std::to_string(kSearchTotalCap) + " AND (SELECT count(*) FROM (SELECT p.name FROM " +
            "products p WHERE " + base + " ORDER BY p.id DESC LIMIT " +
            std::to_string(kSearchProbeRows) + ") s WHERE s.name ILIKE " + pattern +
            ") >= " + std::to_string(kSearchProbeRows / 2) +
            " AS dense), "
            "w AS MATERIALIZED (SELECT count(*) AS n, " +
            ((mask & kAfterId) ? "count(*) FILTER (WHERE h.id < " + after_param + ")" : "0") +
            " AS below FROM (SELECT s.id FROM (SELECT p.id, p.name FROM products p WHERE " + base +
            " AND (SELECT dense FROM g) ORDER BY p.id DESC LIMIT " + walk_rows +
            ") s WHERE s.name ILIKE " + pattern + " LIMIT " + want +
            ") h), "
            "st AS MATERIALIZED (SELECT ((SELECT n FROM w) >= " +
            want +
            ((mask & kAfterId) ? " AND (SELECT below FROM w) >= $2::bigint + $3::bigint" : "") +
            ") OR ((SELECT dense FROM g) AND (SELECT count(*) FROM (SELECT FROM products p WHERE " +
            base + " ORDER BY p.id DESC LIMIT " + walk_rows + ") x) < " + walk_rows +
            ") AS settled), "
            "m AS MATERIALIZED (SELECT p.id FROM products p WHERE " +
            where +
            " AND NOT (SELECT settled FROM st)), "
            "total AS (SELECT CASE WHEN (SELECT settled FROM st) THEN (SELECT n FROM w) "
            "ELSE (SELECT count(*) FROM (SELECT FROM m LIMIT " +
            cap + ") c) END AS n)";
        // `name || ''`: the walk's page must not plan as a trigram search.
        page_ids =
            "CASE WHEN (SELECT settled FROM st) THEN ARRAY(SELECT p.id FROM products p "
            "WHERE " +
            base + " AND (p.name || '') ILIKE " + pattern + after +
            " ORDER BY p.id DESC LIMIT $2 OFFSET $3) ELSE ARRAY(SELECT p.id FROM m p "
            "WHERE true" +
            after + " ORDER BY p.id DESC LIMIT $2 OFFSET $3) END";
      } else {
        // Unfiltered, the total is the tenant's live counter (sql/006);
        // filtered, the filter's index is counted. The page comes from the
        // same index, in order.
        total = (mask & (kFilterCategory | kFilterPublished)) == 0
                    ? "total AS (SELECT COALESCE((SELECT live FROM product_counts "
                      "WHERE tenant_id = $1), 0) AS n)"
                    : "total AS (SELECT count(*) AS n FROM products p WHERE " + where + ")";
        page_ids = "ARRAY(SELECT p.id FROM products p WHERE " + where + after +
                   " ORDER BY p.id DESC LIMIT $2 OFFSET $3)";
      }
      sql[mask] =
          "WITH " + total +
          " SELECT " CA_PRODUCT_JSON
          ", total.n AS total FROM total LEFT JOIN products p ON p.tenant_id = $1 AND p.id = "
          "ANY (" +
          page_ids + ") ORDER BY p.id DESC";
      statements[mask] = Statement{names[mask].c_str(), sql[mask].c_str()};
    }
  }
};

const ListStatements& list_statements() {
  static const ListStatements s;
  return s;
}

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
  CA_TRY(read, authenticate_tenant_header_read(
                   ctx, list_statements().statements[static_cast<size_t>(mask)], params));
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
