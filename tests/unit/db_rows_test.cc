// Rows read by column name (common/db.h) and the rendered-JSON helpers
// (common/json_rendered.h), on results built in memory (no server).
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstring>
#include <string>
#include <vector>

#include "db.h"
#include "json_rendered.h"

namespace ca {
namespace {

constexpr Oid kTextOid = 25, kInt8Oid = 20, kBoolOid = 16;

// A TUPLES_OK result with `names` (of the given types) and `rows` of text
// values (nullptr = NULL).
Rows make_rows(const std::vector<std::pair<const char*, Oid>>& names,
               const std::vector<std::vector<const char*>>& rows) {
  PGresult* res = PQmakeEmptyPGresult(nullptr, PGRES_TUPLES_OK);
  std::vector<PGresAttDesc> attrs(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    attrs[i] = PGresAttDesc{};
    attrs[i].name = const_cast<char*>(names[i].first);
    attrs[i].typid = names[i].second;
    attrs[i].typlen = -1;
    attrs[i].atttypmod = -1;
  }
  EXPECT_TRUE(PQsetResultAttrs(res, static_cast<int>(attrs.size()), attrs.data()));
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < rows[r].size(); ++c) {
      const char* v = rows[r][c];
      EXPECT_TRUE(PQsetvalue(res, static_cast<int>(r), static_cast<int>(c), const_cast<char*>(v),
                             v ? static_cast<int>(std::strlen(v)) : -1));
    }
  }
  return Rows(PgResultPtr(res));
}

TEST(RowsByNameTest, ReadsEachColumnByItsName) {
  Rows r = make_rows({{"id", kInt8Oid}, {"name", kTextOid}, {"on", kBoolOid}, {"note", kTextOid}},
                     {{"7", "seven", "t", nullptr}, {"8", "eight", "f", "x"}});
  const Col id = r.col("id"), name = r.col("name"), note = r.col("note");
  EXPECT_EQ(r.int64(0, id), 7);
  EXPECT_EQ(r.int64(1, id), 8);
  EXPECT_EQ(r.text(1, name), "eight");
  EXPECT_TRUE(r.boolean(0, "on"));
  EXPECT_FALSE(r.boolean(1, "on"));
  EXPECT_FALSE(r.opt_text(0, note).has_value());
  EXPECT_EQ(r.opt_str(1, "note"), "x");
  EXPECT_EQ(r.opt_int64(0, "id"), 7);
}

TEST(RowsByNameTest, ColumnOrderDoesNotMatter) {
  Rows a = make_rows({{"id", kInt8Oid}, {"name", kTextOid}}, {{"1", "one"}});
  Rows b = make_rows({{"name", kTextOid}, {"id", kInt8Oid}}, {{"one", "1"}});
  EXPECT_EQ(a.text(0, "name"), b.text(0, "name"));
  EXPECT_EQ(a.int64(0, "id"), b.int64(0, "id"));
}

TEST(RowsByNameDeathTest, AMissingNameAbortsNamingItAndTheColumns) {
  Rows r = make_rows({{"id", kInt8Oid}, {"name", kTextOid}}, {{"1", "one"}});
  EXPECT_DEATH((void)r.col("nmae"), "no column \"nmae\" \\(its columns: id, name\\)");
  EXPECT_DEATH((void)r.text(0, "Name"), "no column \"Name\"");
}

TEST(RowsByNameDeathTest, ANameHeldTwiceAborts) {
  Rows r = make_rows({{"id", kInt8Oid}, {"id", kInt8Oid}}, {{"1", "2"}});
  EXPECT_DEATH((void)r.col("id"), "more than one column \"id\"");
}

TEST(RowsByNameDeathTest, AResultWithoutColumnsAborts) {
  Rows r(PgResultPtr(PQmakeEmptyPGresult(nullptr, PGRES_COMMAND_OK)));
  EXPECT_DEATH((void)r.col("json"), "no column \"json\" \\(its columns: \\)");
}

// The lookup runs once per result; it must cost nothing next to a request
// (tens of microseconds). A loose bound, to catch a lookup gone quadratic or
// allocating, not to time the machine.
TEST(JsonRenderedTest, PrintsTheTextAsItIsAndNullAsNull) {
  Rows r = make_rows({{"json", kTextOid}}, {{R"({"id":1,"name":"a\"b"})"}, {nullptr}});
  EXPECT_EQ(json_dump(json_rendered(r, 0).get()), R"({"id":1,"name":"a\"b"})");
  EXPECT_EQ(json_dump(json_rendered(r, 1).get()), "null");
}

TEST(JsonRenderedTest, PageLeavesOutTheEmptyPagesRowAndKeepsTheTotal) {
  PageParams page;
  page.page = 2;
  page.per_page = 2;
  Rows some = make_rows({{"json", kTextOid}, {"total", kInt8Oid}}, {{"{\"id\":3}", "3"}});
  EXPECT_EQ(json_dump(json_rendered_page(some, page).get()),
            R"({"data":[{"id":3}],"current_page":2,"last_page":2,"per_page":2,"total":3})");
  Rows past = make_rows({{"total", kInt8Oid}, {"json", kTextOid}}, {{"3", nullptr}});
  EXPECT_EQ(json_dump(json_rendered_page(past, page).get()),
            R"({"data":[],"current_page":2,"last_page":2,"per_page":2,"total":3})");
  Rows none = make_rows({{"json", kTextOid}, {"total", kInt8Oid}}, {});
  EXPECT_EQ(json_dump(json_rendered_page(none, page).get()),
            R"({"data":[],"current_page":2,"last_page":1,"per_page":2,"total":0})");
}

TEST(JsonRenderedTest, PageTextIsByteForByteWhatThePageTreePrints) {
  PageParams page;
  page.page = 2;
  page.per_page = 2;
  Rows some = make_rows({{"json", kTextOid}, {"total", kInt8Oid}},
                        {{R"({"id":3,"s":"\u00e9\"x"})", "5"}, {"{\"id\":4}", "5"}});
  Rows past = make_rows({{"total", kInt8Oid}, {"json", kTextOid}}, {{"3", nullptr}});
  Rows none = make_rows({{"json", kTextOid}, {"total", kInt8Oid}}, {});
  for (const Rows* rows : {&some, &past, &none}) {
    PageText text{.total = rendered_page_total(*rows)};
    EXPECT_EQ(rendered_page_text(*rows, page, text),
              json_dump(json_rendered_page(*rows, page).get()));
    EXPECT_EQ(rendered_page_text(*rows, page, text, kSuccessDataBefore, kSuccessDataAfter),
              Response::success(200, nullptr, json_rendered_page(*rows, page)).body);
  }
}

TEST(JsonRenderedTest, PageTextTakesACursorPageAndExtraMembers) {
  PageParams page;
  page.per_page = 10;
  Rows some = make_rows({{"json", kTextOid}, {"total", kInt8Oid}}, {{"{}", "10000"}});
  EXPECT_EQ(rendered_page_text(
                some, page,
                {.total = 10000, .current_page_null = true, .extra = R"(,"total_relation":"gte")"},
                kSuccessDataBefore, kSuccessDataAfter),
            R"({"success":true,"data":{"data":[{}],"current_page":null,"last_page":1000,)"
            R"("per_page":10,"total":10000,"total_relation":"gte"}})");
}

TEST(JsonRenderedTest, AddsTheCallersMembersAfterTheRenderedOnes) {
  EXPECT_EQ(json_object_with(R"({"id":1})", {{"is_read", json_bool_text(true)},
                                             {"is_dismissed", json_bool_text(false)}}),
            R"({"id":1,"is_read":true,"is_dismissed":false})");
  EXPECT_EQ(json_object_with("{}", {{"n", "2"}}), R"({"n":2})");
  EXPECT_EQ(json_object_with("{ }", {{"n", "2"}, {"m", "null"}}), R"({ "n":2,"m":null})");
  std::string out = "[";
  json_append_with(out, R"({"a":[]})", {{"b", "{}"}});
  EXPECT_EQ(out, R"([{"a":[],"b":{}})");
}

}  // namespace
}  // namespace ca
