// The one way rows become JSON (issue 28;
// docs/decisions/0320-one-json-renderer-in-postgresql.md).
//
// PostgreSQL renders every resource: one SQL function per resource shape
// (sql/016, sql/025: ca_product_json, ca_category_json, ...), taking
// columns, called in the statement or stored in a generated column where
// reads dominate. A statement returns the rendered text in a column named
// `json` (lists: also `total`), and the handler prints it as it is. What is
// built here, once for every resource, is only what wraps it: the page
// envelope (validate.h's paginated()), and the caller's own members
// appended to a rendered object (is_read, is_dismissed).
//
// Usage:
//   const Statement kGet{"x_get", "SELECT ca_x_json(x.id, x.name, ...) AS json FROM x ..."};
//   Response::success(200, nullptr, json_rendered(r.rows(), 0));
//   // a list: SELECT ... AS json, total.n AS total (a page past the end is
//   // one row with a NULL json and the total, page_rows.h's convention)
//   Response::success(200, nullptr, json_rendered_page(r.rows(), page));
//
// A new shape: a `ca_<resource>_json(<columns>)` function in a migration
// (rules at the top of sql/025_resource_json.sql), called once through a
// macro next to the handler (e.g. CA_ANNOUNCEMENT_JSON), selected AS json.
//
// Nothing here is shared between threads; the Json values are cJSON raw
// items (copies of the text), valid after the Rows are gone.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "db.h"
#include "json.h"
#include "validate.h"

namespace ca {

// Row `row`'s column `col` (rendered JSON text) as a value printed as it
// is; JSON null when the column is NULL.
Json json_rendered(const Rows& rows, int row, Col col);
// The same from the column named `json`.
Json json_rendered(const Rows& rows, int row);

// The column `json` of every row as an array, rows where it is NULL left
// out (the LEFT JOIN's empty page).
Json json_rendered_array(const Rows& rows);

// `{data, current_page, last_page, per_page, total}`: data from the `json`
// column, total from the `total` column (0 when there is no row at all).
Json json_rendered_page(const Rows& rows, const PageParams& page);

// The same page as the answer's text, without cJSON: `before`, then
// `{"data":[...],"current_page":P,"last_page":L,"per_page":N,"total":T`,
// then `extra` (members' text, each starting with a comma), `}` and
// `after`, in one string reserved to its size. Byte for byte what
// json_rendered_page() prints; for answers that may be megabytes (the
// largest lists, docs/security.md) the rows and this string are then the
// only copies, where a cJSON tree, its print buffers and their copy would
// hold four more.
struct PageText {
  int64_t total = 0;               // the `total` member
  bool current_page_null = false;  // `"current_page":null` (a cursor page)
  std::string_view extra = "";     // e.g. `,"total_relation":"eq"`
};
std::string rendered_page_text(const Rows& rows, const PageParams& page, const PageText& text,
                               std::string_view before = "", std::string_view after = "");
// The `total` column of a page's first row, 0 when there is no row.
int64_t rendered_page_total(const Rows& rows);
// The envelope of the orders, announcements, categories and products
// answers around a rendered page: `{"success":true,"data":` ... `}`.
inline constexpr std::string_view kSuccessDataBefore = R"({"success":true,"data":)";
inline constexpr std::string_view kSuccessDataAfter = "}";

// A member the caller adds to a rendered object: a name known at compile
// time and the JSON text of its value (json_bool_text(), a number's digits,
// a rendered object).
struct JsonMember {
  JsonKey key;
  std::string_view value;
};
inline std::string_view json_bool_text(bool b) { return b ? "true" : "false"; }

// Appends to `out` the rendered object `object` (the text of one JSON
// object, as the shape functions give it) with `members` added after its
// own, in order. The names must not be members of `object` already. The
// only place a rendered text is edited.
void json_append_with(std::string& out, std::string_view object,
                      std::initializer_list<JsonMember> members);
std::string json_object_with(std::string_view object, std::initializer_list<JsonMember> members);

}  // namespace ca
