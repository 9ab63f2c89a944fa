// Products (docs/design/api-conventions.md) through nginx: every endpoint's
// body field by field, every validation error collected in one response,
// partial updates, soft delete, the paginated and filtered list, tenant
// isolation, auth and tenant-header checks, and the outbox events.
#include <gtest/gtest.h>

#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

constexpr const char* kBase = "/api/v2/admin/products";

// A 422 `{message, errors}` with exactly these errors.
void expect_invalid(const HttpResponse& r, const std::string& errors) {
  expect_body(r, 422, R"({"message":"The given data was invalid.","errors":)" + errors + "}");
}

const char* kNotFound = R"({"error":"Product not found"})";

struct Expected {
  std::string name;
  std::optional<std::string> description{};
  double price = 0;
  int64_t stock = 0;
  std::optional<int64_t> category_id{};
  bool published = true;
};

// Checks every field of a Product and that there are no others.
void expect_product(const cJSON* p, const Expected& e) {
  ASSERT_TRUE(cJSON_IsObject(p)) << json_dump(p);
  EXPECT_EQ(cJSON_GetArraySize(p), 9) << json_dump(p);
  EXPECT_GT(int_of(p, "id"), 0);
  EXPECT_EQ(json_get_str(p, "name").value_or("<not a string>"), e.name);
  if (e.description) {
    EXPECT_EQ(json_get_str(p, "description").value_or("<not a string>"), *e.description);
  } else {
    EXPECT_TRUE(cJSON_IsNull(json_get(p, "description"))) << json_dump(p);
  }
  const cJSON* price = json_get(p, "price");
  ASSERT_TRUE(cJSON_IsNumber(price)) << "price must be a JSON number: " << json_dump(p);
  EXPECT_DOUBLE_EQ(price->valuedouble, e.price);
  EXPECT_EQ(int_of(p, "stock"), e.stock);
  if (e.category_id) {
    EXPECT_EQ(int_of(p, "category_id"), *e.category_id);
  } else {
    EXPECT_TRUE(cJSON_IsNull(json_get(p, "category_id"))) << json_dump(p);
  }
  EXPECT_TRUE(cJSON_IsBool(json_get(p, "published")));
  EXPECT_EQ(cJSON_IsTrue(json_get(p, "published")), e.published) << json_dump(p);
  EXPECT_TRUE(is_timestamp(json_get(p, "created_at"))) << json_dump(p);
  EXPECT_TRUE(is_timestamp(json_get(p, "updated_at"))) << json_dump(p);
}

HttpResponse create(const Scope& s, const std::string& body) {
  HttpResponse r = http("POST", kBase, s.call(body));
  EXPECT_EQ(r.status, 201) << body << " -> " << r.body;
  return r;
}

int64_t create_id(const Scope& s, const std::string& body) { return create(s, body).integer("id"); }

int64_t create_category(const Scope& s, const std::string& name) {
  HttpResponse r =
      http("POST", "/api/v2/admin/category/create", s.call("{\"name\":" + json_text(name) + "}"));
  EXPECT_EQ(r.status, 201) << r.body;
  return int_of(r["data"], "id");
}

std::string item(int64_t id) { return std::string(kBase) + "/" + to_string(id); }

std::string row(const Scope& s, int64_t id, const std::string& columns) {
  return sql_one("SELECT " + columns + " FROM products WHERE tenant_id = " + s.tid() +
                 " AND id = " + to_string(id));
}

// The ids of one list page, in order.
std::vector<int64_t> ids_of(const HttpResponse& r) {
  std::vector<int64_t> out;
  const cJSON* rows = json_get(r["data"], "data");
  for (int i = 0; i < cJSON_GetArraySize(rows); ++i) {
    out.push_back(int_of(cJSON_GetArrayItem(rows, i), "id"));
  }
  return out;
}

// The list body's page fields (everything but `data`) are exactly `expected`.
void expect_json_meta(const HttpResponse& r, const std::string& expected) {
  ASSERT_EQ(r.status, 200) << r.body;
  Json meta(cJSON_Duplicate(r["data"], true));
  ASSERT_TRUE(meta) << r.body;
  cJSON_DeleteItemFromObjectCaseSensitive(meta.get(), "data");
  Json want = json_parse(expected);
  ASSERT_TRUE(want) << expected;
  EXPECT_EQ(json_dump(meta.get()), json_dump(want.get()));
}

std::vector<int64_t> list_ids(const Scope& s, const std::string& query) {
  HttpResponse r = http("GET", std::string(kBase) + query, s.call());
  EXPECT_EQ(r.status, 200) << query << " -> " << r.body;
  std::vector<int64_t> ids = ids_of(r);
  EXPECT_EQ(int_of(r["data"], "total"), static_cast<int64_t>(ids.size())) << query;
  return ids;
}

TEST(Products, CreateReturns201WithTheBareProductAndDefaults) {
  Scope s = fresh_scope(admin_token());
  HttpResponse r = create(s, R"({"name":"  Plain mug ","price":12.5})");
  expect_product(r.json.get(), {.name = "Plain mug", .price = 12.5});
  EXPECT_EQ(json_dump(r["created_at"]), json_dump(r["updated_at"]));
  int64_t id = r.integer("id");
  EXPECT_EQ(row(s, id,
                "name || '|' || coalesce(description, 'null') || '|' || price || '|' || stock || "
                "'|' || coalesce(category_id::text, 'null') || '|' || published || '|' || "
                "(deleted_at IS NULL)"),
            "Plain mug|null|12.50|0|null|true|true");
  // The body is the bare product: price is a number in the JSON text.
  EXPECT_NE(r.body.find("\"price\":12.5,"), std::string::npos) << r.body;
}

TEST(Products, CreateStoresEveryFieldAndIgnoresTenantIdInTheBody) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  int64_t category = create_category(s, "Kitchen");
  HttpResponse r =
      create(s,
             "{\"name\":\"Teapot\",\"description\":\"Porcelain\",\"price\":19.99,"
             "\"stock\":7,\"category_id\":" +
                 to_string(category) + ",\"published\":false,\"tenant_id\":" + other.tid() + "}");
  expect_product(r.json.get(), {.name = "Teapot",
                                .description = "Porcelain",
                                .price = 19.99,
                                .stock = 7,
                                .category_id = category,
                                .published = false});
  int64_t id = r.integer("id");
  EXPECT_EQ(row(s, id, "tenant_id::text || '|' || price || '|' || stock || '|' || published"),
            s.tid() + "|19.99|7|false");
  EXPECT_EQ(sql_one("SELECT count(*) FROM products WHERE tenant_id = " + other.tid()), "0");
  // The read returns exactly what the create returned.
  HttpResponse read = http("GET", item(id), s.call());
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.body, r.body);
}

TEST(Products, PriceIsStoredAsNumeric12_2AndReturnedAsAJsonNumber) {
  Scope s = fresh_scope(admin_token());
  struct Case {
    const char* sent;
    double value;
    const char* json;
    const char* stored;
  };
  for (const Case& c :
       {Case{"0", 0, "0", "0.00"}, Case{"10", 10, "10", "10.00"}, Case{"0.1", 0.1, "0.1", "0.10"},
        Case{"19.99", 19.99, "19.99", "19.99"}, Case{"1e2", 100, "100", "100.00"},
        Case{"1234567890.12", 1234567890.12, "1234567890.12", "1234567890.12"},
        Case{"9999999999.99", 9999999999.99, "9999999999.99", "9999999999.99"}}) {
    SCOPED_TRACE(c.sent);
    HttpResponse r = create(s, std::string(R"({"name":"Priced","price":)") + c.sent + "}");
    expect_product(r.json.get(), {.name = "Priced", .price = c.value});
    EXPECT_NE(r.body.find(std::string("\"price\":") + c.json + ","), std::string::npos) << r.body;
    EXPECT_EQ(row(s, r.integer("id"), "price::text"), c.stored);
  }
  // The upper limits of stock too.
  HttpResponse r = create(s, R"({"name":"Stocked","price":1,"stock":2147483647})");
  EXPECT_EQ(r.integer("stock"), 2147483647) << r.body;
}

// PostgreSQL renders a product's JSON when the row is written and stores it
// (sql/016): every kind of write must render it again, in the API's format
// byte for byte, with strings escaped the way cJSON escapes them.
TEST(Products, TheJsonIsRenderedFromTheRowAfterEveryKindOfWrite) {
  Scope s = fresh_scope(admin_token());
  int64_t category = create_category(s, "Tea");
  const std::string name =
      "Tea \"Ceylon\" \\ 100%_\n\t\x01 \xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x8D\xB5 </b>";
  const std::string description = "L1\r\nL2\x1f\x7f";
  HttpResponse created =
      create(s, "{\"name\":" + json_text(name) + ",\"description\":" + json_text(description) +
                    ",\"price\":7.10,\"stock\":3,\"category_id\":" + to_string(category) + "}");
  expect_product(created.json.get(), {.name = name,
                                      .description = description,
                                      .price = 7.1,
                                      .stock = 3,
                                      .category_id = category});
  int64_t id = created.integer("id");
  auto expected = [&](const std::string& middle, const std::string& times) {
    return "{\"id\":" + to_string(id) + ",\"name\":" + json_text(name) +
           ",\"description\":" + json_text(description) + middle + times + "}";
  };
  const std::string created_times = R"(,"created_at":)" + json_dump(created["created_at"]) +
                                    R"(,"updated_at":)" + json_dump(created["updated_at"]);
  EXPECT_EQ(created.body, expected(R"(,"price":7.1,"stock":3,"category_id":)" +
                                       to_string(category) + R"(,"published":true)",
                                   created_times));
  // The read and the list print the same text.
  EXPECT_EQ(http("GET", item(id), s.call()).body, created.body);
  HttpResponse list = http("GET", kBase, s.call());
  EXPECT_NE(list.body.find("[" + created.body + "]"), std::string::npos) << list.body;

  // Through the API.
  HttpResponse updated = http("POST", item(id), s.call(R"({"stock":9,"published":false})"));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(int_of(updated.json.get(), "stock"), 9);
  EXPECT_EQ(http("GET", item(id), s.call()).body, updated.body);
  EXPECT_NE(updated.body.find(R"("stock":9,"category_id":)" + to_string(category) +
                              R"(,"published":false,)"),
            std::string::npos)
      << updated.body;

  // By the foreign key's ON DELETE SET NULL when the category goes.
  ASSERT_EQ(http("DELETE", "/api/v2/admin/category/" + to_string(category), s.call()).status, 200);
  HttpResponse read = http("GET", item(id), s.call());
  EXPECT_NE(read.body.find(R"("stock":9,"category_id":null,"published":false,)"), std::string::npos)
      << read.body;

  // By anyone else writing the row, here with SQL.
  sql("UPDATE products SET price = 1234567890.5, published = true, "
      "created_at = '2001-02-03 04:05:06+00', updated_at = '2030-01-02 03:04:05.678901+00' "
      "WHERE tenant_id = " +
      s.tid() + " AND id = " + to_string(id));
  EXPECT_EQ(http("GET", item(id), s.call()).body,
            expected(R"(,"price":1234567890.5,"stock":9,"category_id":null,"published":true)",
                     R"(,"created_at":"2001-02-03T04:05:06.000000Z")"
                     R"(,"updated_at":"2030-01-02T03:04:05.678901Z")"));
  // Values no API call writes are printed as they always were: a NaN
  // price as null, an infinite timestamp as PostgreSQL's text.
  sql("UPDATE products SET price = 'NaN', updated_at = 'infinity' WHERE tenant_id = " + s.tid() +
      " AND id = " + to_string(id));
  EXPECT_EQ(http("GET", item(id), s.call()).body,
            expected(R"(,"price":null,"stock":9,"category_id":null,"published":true)",
                     R"(,"created_at":"2001-02-03T04:05:06.000000Z","updated_at":"infinity")"));
}

TEST(Products, CreateReportsEveryInvalidFieldAtOnceAndStoresNothing) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  int64_t foreign_category = create_category(other, "Theirs");
  std::string before = catalog_snapshot(s.tenant);

  expect_invalid(
      http("POST", kBase, s.call("{}")),
      R"({"name":["The name field is required."],"price":["The price field is required."]})");
  expect_invalid(
      http("POST", kBase, s.call(R"({"name":null,"price":null})")),
      R"({"name":["The name field is required."],"price":["The price field is required."]})");
  expect_invalid(http("POST", kBase, s.call(R"({"name":"   ","price":1})")),
                 R"({"name":["The name field is required."]})");
  // Every field wrong at once: wrong types.
  expect_invalid(
      http("POST", kBase,
           s.call(R"({"name":5,"description":[],"price":"12","stock":"3","category_id":"x",)"
                  R"("published":"yes"})")),
      R"({"name":["The name field must be a string."],)"
      R"("description":["The description field must be a string."],)"
      R"("price":["The price field must be a number."],)"
      R"("stock":["The stock field must be an integer."],)"
      R"("category_id":["The category_id field must be an integer."],)"
      R"("published":["The published field must be true or false."]})");
  // Every field wrong at once: out of range.
  expect_invalid(
      http("POST", kBase,
           s.call("{\"name\":\"" + repeat("n", 256) + "\",\"description\":\"" + repeat("d", 10001) +
                  "\",\"price\":-0.01,\"stock\":-1,\"category_id\":0,\"published\":null}")),
      R"({"name":["The name field must not be greater than 255 characters."],)"
      R"("description":["The description field must not be greater than 10000 characters."],)"
      R"("price":["The price field must be at least 0."],)"
      R"("stock":["The stock field must be at least 0."],)"
      R"("category_id":["The category_id field must be at least 1."],)"
      R"("published":["The published field must not be null."]})");
  // Over the upper limits; 1e400 parses as infinity, which is not a number here.
  expect_invalid(
      http("POST", kBase, s.call(R"({"name":"x","price":10000000000,"stock":2147483648})")),
      R"({"price":["The price field must not be greater than 9999999999.99."],)"
      R"("stock":["The stock field must not be greater than 2147483647."]})");
  expect_invalid(http("POST", kBase, s.call(R"({"name":"x","price":1e400,"stock":1.5})")),
                 R"({"price":["The price field must be a number."],)"
                 R"("stock":["The stock field must be an integer."]})");
  expect_invalid(http("POST", kBase, s.call(R"({"name":"x","price":-1e400})")),
                 R"({"price":["The price field must be a number."]})");
  // Past 2^53 a double skips integers (...993 would be read as ...992, another
  // id): out of range instead.
  expect_invalid(
      http("POST", kBase, s.call(R"({"name":"x","price":1,"category_id":9007199254740993})")),
      R"({"category_id":["The category_id field must not be greater than 9007199254740991."]})");
  // Precision: at most 2 decimals, at any magnitude.
  for (const char* price :
       {"12.345", "0.001", "999999999.991", "1234567890.125", "9999999999.985"}) {
    SCOPED_TRACE(price);
    expect_invalid(
        http("POST", kBase, s.call(std::string(R"({"name":"x","price":)") + price + "}")),
        R"({"price":["The price field must have at most 2 decimal places."]})");
  }
  // Unknown category and another tenant's category, collected with the other errors.
  expect_invalid(
      http("POST", kBase, s.call(R"({"name":"","price":1.234,"category_id":123456789012})")),
      R"({"name":["The name field is required."],)"
      R"("price":["The price field must have at most 2 decimal places."],)"
      R"("category_id":["The selected category_id is invalid."]})");
  expect_invalid(http("POST", kBase,
                      s.call("{\"name\":\"x\",\"price\":1,\"category_id\":" +
                             to_string(foreign_category) + "}")),
                 R"({"category_id":["The selected category_id is invalid."]})");
  // A body that is not a JSON object.
  for (const char* body : {"[1]", "\"text\"", "{", ""}) {
    expect_body(http("POST", kBase, s.call(body)), 400,
                R"({"error":"Request body must be a JSON object"})");
  }
  EXPECT_EQ(catalog_snapshot(s.tenant), before);
  EXPECT_EQ(sql_one("SELECT count(*) FROM products WHERE tenant_id = " + other.tid()), "0");
}

TEST(Products, CreateAcceptsTheLengthLimitsInCharacters) {
  Scope s = fresh_scope(admin_token());
  std::string name = repeat("ü", 255);  // 510 bytes, 255 characters
  std::string description = repeat("é", 10000);
  HttpResponse r = create(s, "{\"name\":" + json_text(name) +
                                 ",\"description\":" + json_text(description) + ",\"price\":1}");
  expect_product(r.json.get(), {.name = name, .description = description, .price = 1});
  EXPECT_EQ(row(s, r.integer("id"), "char_length(name) || '|' || char_length(description)"),
            "255|10000");
  expect_invalid(
      http("POST", kBase,
           s.call("{\"name\":" + json_text(repeat("ü", 256)) +
                  ",\"description\":" + json_text(description + "é") + ",\"price\":1}")),
      R"({"name":["The name field must not be greater than 255 characters."],)"
      R"("description":["The description field must not be greater than 10000 characters."]})");
}

TEST(Products, ReadOfAMissingDeletedOrForeignProductIs404) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  int64_t foreign = create_id(other, R"({"name":"Theirs","price":1})");
  int64_t deleted = create_id(s, R"({"name":"Gone","price":1})");
  ASSERT_EQ(http("DELETE", item(deleted), s.call()).status, 200);

  expect_body(http("GET", item(foreign), s.call()), 404, kNotFound);
  expect_body(http("GET", item(deleted), s.call()), 404, kNotFound);
  expect_body(http("GET", item(9223372036854775807), s.call()), 404, kNotFound);
  // The owner still reads its own.
  EXPECT_EQ(http("GET", item(foreign), other.call()).status, 200);
}

TEST(Products, UpdateChangesOnlyTheSentFields) {
  Scope s = fresh_scope(admin_token());
  int64_t category = create_category(s, "Cups");
  int64_t second_category = create_category(s, "Mugs");
  HttpResponse created =
      create(s,
             "{\"name\":\"Cup\",\"description\":\"White\",\"price\":3.5,\"stock\":10,"
             "\"category_id\":" +
                 to_string(category) + ",\"published\":true}");
  int64_t id = created.integer("id");
  std::string columns =
      "name || '|' || description || '|' || price || '|' || stock || '|' || category_id || '|' || "
      "published || '|' || ca_ts(created_at)";
  std::string created_at = created.str("created_at");
  Expected e{.name = "Cup",
             .description = "White",
             .price = 3.5,
             .stock = 10,
             .category_id = category,
             .published = true};

  struct Step {
    std::string body;
    void (*apply)(Expected&, int64_t);
  };
  std::vector<Step> steps = {
      {R"({"price":4.25})", [](Expected& x, int64_t) { x.price = 4.25; }},
      {R"({"name":"  Big cup "})", [](Expected& x, int64_t) { x.name = "Big cup"; }},
      {R"({"description":"Blue"})", [](Expected& x, int64_t) { x.description = "Blue"; }},
      {R"({"stock":0})", [](Expected& x, int64_t) { x.stock = 0; }},
      {R"({"published":false})", [](Expected& x, int64_t) { x.published = false; }},
      {"{\"category_id\":" + to_string(second_category) + "}",
       [](Expected& x, int64_t c) { x.category_id = c; }},
      {R"({"tenant_id":1,"id":1,"created_at":"2000-01-01T00:00:00.000000Z"})",
       [](Expected&, int64_t) {}},
      {"{}", [](Expected&, int64_t) {}},
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(step.body);
    step.apply(e, second_category);
    HttpResponse r = http("POST", item(id), s.call(step.body));
    EXPECT_EQ(r.status, 200) << r.body;
    expect_product(r.json.get(), e);
    EXPECT_EQ(r.integer("id"), id);
    EXPECT_EQ(r.str("created_at"), created_at);
    // What the database holds matches the response.
    char price[32];
    std::snprintf(price, sizeof price, "%.2f", e.price);
    EXPECT_EQ(row(s, id, columns), e.name + "|" + *e.description + "|" + price + "|" +
                                       std::to_string(e.stock) + "|" + to_string(*e.category_id) +
                                       "|" + (e.published ? "true" : "false") + "|" + created_at);
    // The read agrees with the update's answer.
    EXPECT_EQ(http("GET", item(id), s.call()).body, r.body);
  }
  EXPECT_EQ(row(s, id, "tenant_id::text"), s.tid());
  EXPECT_EQ(row(s, id, "updated_at > created_at"), "t");
}

TEST(Products, UpdateWithNullClearsDescriptionAndCategoryButNotRequiredFields) {
  Scope s = fresh_scope(admin_token());
  int64_t category = create_category(s, "Lamps");
  int64_t id = create_id(s,
                         "{\"name\":\"Lamp\",\"description\":\"Tall\",\"price\":40,\"stock\":2,"
                         "\"category_id\":" +
                             to_string(category) + ",\"published\":false}");
  std::string before = catalog_snapshot(s.tenant);
  expect_invalid(http("POST", item(id),
                      s.call(R"({"name":null,"price":null,"stock":null,"published":null,)"
                             R"("description":null,"category_id":null})")),
                 R"({"name":["The name field must not be null."],)"
                 R"("price":["The price field must not be null."],)"
                 R"("stock":["The stock field must not be null."],)"
                 R"("published":["The published field must not be null."]})");
  EXPECT_EQ(catalog_snapshot(s.tenant), before);  // nothing was cleared either

  HttpResponse cleared = http("POST", item(id), s.call(R"({"description":null})"));
  EXPECT_EQ(cleared.status, 200) << cleared.body;
  expect_product(
      cleared.json.get(),
      {.name = "Lamp", .price = 40, .stock = 2, .category_id = category, .published = false});
  HttpResponse detached = http("POST", item(id), s.call(R"({"category_id":null})"));
  EXPECT_EQ(detached.status, 200) << detached.body;
  expect_product(detached.json.get(),
                 {.name = "Lamp", .price = 40, .stock = 2, .published = false});
  EXPECT_EQ(row(s, id, "(description IS NULL) || '|' || (category_id IS NULL)"), "true|true");
}

TEST(Products, UpdateValidationErrorsAreAllReportedAndChangeNothing) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  int64_t foreign_category = create_category(other, "Theirs");
  int64_t id = create_id(s, R"({"name":"Kept","price":2})");
  std::string before = catalog_snapshot(s.tenant);

  expect_invalid(
      http(
          "POST", item(id),
          s.call("{\"name\":\"\",\"description\":1,\"price\":12.345,\"stock\":-3,\"category_id\":" +
                 to_string(foreign_category) + ",\"published\":0}")),
      R"({"name":["The name field must not be empty."],)"
      R"("description":["The description field must be a string."],)"
      R"("price":["The price field must have at most 2 decimal places."],)"
      R"("stock":["The stock field must be at least 0."],)"
      R"("published":["The published field must be true or false."],)"
      R"("category_id":["The selected category_id is invalid."]})");
  expect_invalid(http("POST", item(id), s.call(R"({"price":1e400,"category_id":123456789012})")),
                 R"({"price":["The price field must be a number."],)"
                 R"("category_id":["The selected category_id is invalid."]})");
  expect_invalid(http("POST", item(id), s.call("{\"name\":" + json_text(repeat("x", 256)) + "}")),
                 R"({"name":["The name field must not be greater than 255 characters."]})");
  expect_body(http("POST", item(id), s.call("[]")), 400,
              R"({"error":"Request body must be a JSON object"})");
  // Validation comes before existence.
  expect_invalid(http("POST", item(9223372036854775807), s.call(R"({"stock":-1})")),
                 R"({"stock":["The stock field must be at least 0."]})");
  EXPECT_EQ(catalog_snapshot(s.tenant), before);
}

TEST(Products, DeleteIsSoftAndHidesTheProductEverywhere) {
  Scope s = fresh_scope(admin_token());
  int64_t kept = create_id(s, R"({"name":"Kept","price":1})");
  int64_t id = create_id(s, R"({"name":"Doomed","price":1})");

  expect_body(http("DELETE", item(id), s.call()), 200, R"({"message":"Product deleted"})");
  // Still in the table, marked deleted.
  EXPECT_EQ(row(s, id, "name || '|' || (deleted_at IS NOT NULL)"), "Doomed|true");

  expect_body(http("GET", item(id), s.call()), 404, kNotFound);
  expect_body(http("POST", item(id), s.call(R"({"name":"Revived"})")), 404, kNotFound);
  expect_body(http("DELETE", item(id), s.call()), 404, kNotFound);
  EXPECT_EQ(row(s, id, "name"), "Doomed");
  EXPECT_EQ(list_ids(s, ""), std::vector<int64_t>{kept});
  EXPECT_EQ(list_ids(s, "?q=doomed"), std::vector<int64_t>{});
  EXPECT_EQ(list_ids(s, "?published=true"), std::vector<int64_t>{kept});
  // One product.deleted, for the first delete only.
  EXPECT_EQ(sql_one("SELECT string_agg(payload->>'id', ',') FROM events WHERE tenant_id = " +
                    s.tid() + " AND type = 'product.deleted'"),
            to_string(id));
}

TEST(Products, AnotherTenantsProductIs404OnEveryVerbAndStaysUnchanged) {
  std::string token = admin_token();
  Scope mine = fresh_scope(token);
  Scope theirs = fresh_scope(token);  // the caller is a member of both
  int64_t category = create_category(theirs, "Theirs");
  int64_t foreign = create_id(theirs,
                              "{\"name\":\"Theirs\",\"description\":\"d\",\"price\":5,\"stock\":1,"
                              "\"category_id\":" +
                                  to_string(category) + "}");
  std::string before = catalog_snapshot(theirs.tenant);

  expect_body(http("GET", item(foreign), mine.call()), 404, kNotFound);
  expect_body(
      http("POST", item(foreign),
           mine.call(R"({"name":"Stolen","price":0,"description":null,"category_id":null})")),
      404, kNotFound);
  expect_body(http("DELETE", item(foreign), mine.call()), 404, kNotFound);
  EXPECT_EQ(list_ids(mine, ""), std::vector<int64_t>{});
  EXPECT_EQ(list_ids(mine, "?category_id=" + to_string(category)), std::vector<int64_t>{});

  EXPECT_EQ(catalog_snapshot(theirs.tenant), before);
  EXPECT_EQ(sql_one("SELECT count(*) FROM events WHERE tenant_id = " + mine.tid()), "0");
}

// A category deleted between the statement's check and its write: the write's
// foreign key check waits for the deletion, fails, and the request is the
// same 422 as for a category that never existed; nothing is written.
TEST(Products, ACategoryDeletedDuringTheWriteIsAFieldError) {
  Scope s = fresh_scope(admin_token());
  int64_t product = create_id(s, R"({"name":"Kept","price":1})");
  std::string stored = "SELECT (SELECT count(*) FROM products WHERE tenant_id = " + s.tid() +
                       ") || '|' || (SELECT count(*) FROM events WHERE tenant_id = " + s.tid() +
                       ") || '|' || (SELECT count(*) FROM products WHERE category_id IS NOT NULL "
                       "AND tenant_id = " +
                       s.tid() + ")";
  struct Write {
    const char* method;
    std::string path;
    const char* statement;  // what waits for the deletion
  };
  for (const Write& w : {Write{"POST", kBase, "%ca_product_create(%"},
                         Write{"POST", item(product), "%ca_product_update(%"}}) {
    SCOPED_TRACE(w.path);
    int64_t category = create_category(s, "Doomed");
    std::string before = sql_one(stored);
    PgConn conn = connect_database();
    ASSERT_TRUE(conn);
    ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
    ASSERT_TRUE(exec_ok(conn.get(), "DELETE FROM categories WHERE tenant_id = " + s.tid() +
                                        " AND id = " + to_string(category)));
    std::future<HttpResponse> written = std::async(std::launch::async, [&] {
      return http(w.method, w.path,
                  s.call(R"({"name":"Late","price":2,"category_id":)" + to_string(category) + "}"));
    });
    bool waiting = wait_for_lock_wait(w.statement);
    // EXPECT, not ASSERT: the write must be waited for before `conn` goes away.
    EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
    EXPECT_TRUE(waiting) << "the write never waited for the deletion";
    expect_invalid(written.get(), R"({"category_id":["The selected category_id is invalid."]})");
    EXPECT_EQ(sql_one(stored), before);
  }
  EXPECT_EQ(row(s, product, "name || '|' || price"), "Kept|1.00");
}

// A write stuck behind a row lock that another session holds is cut off by
// the handlers' statement timeout (DB_STATEMENT_TIMEOUT_SECONDS, 5 s in the
// tests' stack): a 503 to retry, nothing written, and the thread serves again.
TEST(Products, AWriteStuckBehindALockHeldElsewhereGets503AndChangesNothing) {
  ASSERT_EQ(stack_env("DB_STATEMENT_TIMEOUT_SECONDS").value_or("unset"), "5");
  Scope s = fresh_scope(admin_token());
  int64_t product = create_id(s, R"({"name":"Locked","price":1})");
  std::string before = catalog_snapshot(s.tenant);
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT 1 FROM products WHERE tenant_id = " + s.tid() +
                                      " AND id = " + to_string(product) + " FOR UPDATE"));
  // nginx would give up after 30 s (504) and leave the thread waiting.
  HttpResponse stuck = http("POST", item(product), s.call(R"({"name":"Late"})"));
  EXPECT_TRUE(exec_ok(conn.get(), "ROLLBACK"));
  expect_body(stuck, 503, R"({"error":"Service temporarily unavailable"})");
  EXPECT_EQ(stuck.headers["retry-after"], "1");
  EXPECT_EQ(catalog_snapshot(s.tenant), before);

  HttpResponse again = http("POST", item(product), s.call(R"({"name":"Late"})"));
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(row(s, product, "name"), "Late");
}

TEST(Products, ListIsPaginatedNewestFirst) {
  Scope s = fresh_scope(admin_token());
  expect_body(http("GET", kBase, s.call()), 200,
              R"({"success":true,"data":{"data":[],"current_page":1,"last_page":1,)"
              R"("per_page":15,"total":0,"total_relation":"eq"}})");
  std::vector<int64_t> ids;
  for (int i = 0; i < 23; ++i) {
    ids.push_back(create_id(
        s, "{\"name\":\"Item " + std::to_string(i) + "\",\"price\":" + std::to_string(i) + "}"));
  }
  std::vector<int64_t> newest_first(ids.rbegin(), ids.rend());

  std::vector<int64_t> seen;
  const size_t sizes[] = {10, 10, 3};
  for (int page = 1; page <= 3; ++page) {
    SCOPED_TRACE(page);
    HttpResponse r =
        http("GET", std::string(kBase) + "?per_page=10&page=" + std::to_string(page), s.call());
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(cJSON_GetArraySize(r.json.get()), 2);
    EXPECT_TRUE(cJSON_IsTrue(r["success"]));
    const cJSON* data = r["data"];
    EXPECT_EQ(cJSON_GetArraySize(data), 6);  // data and the five page fields
    EXPECT_EQ(int_of(data, "current_page"), page);
    EXPECT_EQ(int_of(data, "last_page"), 3);
    EXPECT_EQ(int_of(data, "per_page"), 10);
    EXPECT_EQ(int_of(data, "total"), 23);
    std::vector<int64_t> page_ids = ids_of(r);
    EXPECT_EQ(page_ids.size(), sizes[page - 1]);
    seen.insert(seen.end(), page_ids.begin(), page_ids.end());
    // Each row is a full product.
    const cJSON* first = cJSON_GetArrayItem(json_get(data, "data"), 0);
    int n = static_cast<int>(23 - (page - 1) * 10 - 1);
    expect_product(first, {.name = "Item " + std::to_string(n), .price = static_cast<double>(n)});
  }
  EXPECT_EQ(seen, newest_first);

  expect_body(http("GET", std::string(kBase) + "?per_page=10&page=4", s.call()), 200,
              R"({"success":true,"data":{"data":[],"current_page":4,"last_page":3,)"
              R"("per_page":10,"total":23,"total_relation":"eq"}})");
  HttpResponse clamped = http("GET", std::string(kBase) + "?per_page=1000", s.call());
  EXPECT_EQ(int_of(clamped["data"], "per_page"), 100);
  EXPECT_EQ(int_of(clamped["data"], "last_page"), 1);
  EXPECT_EQ(ids_of(clamped), newest_first);
  // Past int64 as well: the largest page, past the end, not a 422.
  expect_body(
      http("GET",
           std::string(kBase) + "?per_page=1000000000000000000000&page=" + std::string(30, '9'),
           s.call()),
      200,
      R"({"success":true,"data":{"data":[],"current_page":1000000000,"last_page":1,)"
      R"("per_page":100,"total":23,"total_relation":"eq"}})");
  HttpResponse defaults = http("GET", kBase, s.call());
  EXPECT_EQ(int_of(defaults["data"], "per_page"), 15);
  EXPECT_EQ(int_of(defaults["data"], "last_page"), 2);
  EXPECT_EQ(ids_of(defaults),
            std::vector<int64_t>(newest_first.begin(), newest_first.begin() + 15));
}

TEST(Products, ListFiltersByCategoryPublishedAndNameWithLiteralWildcards) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  int64_t shirts = create_category(s, "Shirts");
  int64_t mugs = create_category(s, "Mugs");
  std::string in_shirts = ",\"category_id\":" + to_string(shirts);
  std::string in_mugs = ",\"category_id\":" + to_string(mugs);
  int64_t cotton = create_id(s, "{\"name\":\"Shirt 100% Cotton\",\"price\":20" + in_shirts + "}");
  int64_t threads = create_id(
      s, "{\"name\":\"Shirt 1000 threads\",\"price\":30" + in_shirts + ",\"published\":false}");
  int64_t underscore = create_id(s, "{\"name\":\"mug_large\",\"price\":5" + in_mugs + "}");
  int64_t spaced = create_id(s, R"({"name":"MUG LARGE","price":6,"published":false})");
  int64_t backslash = create_id(s, R"({"name":"C:\\temp mug","price":7})");
  int64_t deleted = create_id(s, "{\"name\":\"Shirt deleted\",\"price\":1" + in_shirts + "}");
  ASSERT_EQ(http("DELETE", item(deleted), s.call()).status, 200);
  create_id(other, R"({"name":"Shirt 100% Cotton","price":20})");

  using Ids = std::vector<int64_t>;
  EXPECT_EQ(list_ids(s, "?category_id=" + to_string(shirts)), (Ids{threads, cotton}));
  EXPECT_EQ(list_ids(s, "?category_id=" + to_string(mugs)), (Ids{underscore}));
  EXPECT_EQ(list_ids(s, "?category_id=9223372036854775807"), Ids{});
  for (const char* yes : {"true", "1"}) {
    EXPECT_EQ(list_ids(s, std::string("?published=") + yes), (Ids{backslash, underscore, cotton}));
  }
  for (const char* no : {"false", "0"}) {
    EXPECT_EQ(list_ids(s, std::string("?published=") + no), (Ids{spaced, threads}));
  }
  // q: case-insensitive substring; % _ and \ are literal characters.
  EXPECT_EQ(list_ids(s, "?q=SHIRT"), (Ids{threads, cotton}));
  EXPECT_EQ(list_ids(s, "?q=mug"), (Ids{backslash, spaced, underscore}));
  EXPECT_EQ(list_ids(s, "?q=100%25"), (Ids{cotton}));
  EXPECT_EQ(list_ids(s, "?q=%25"), (Ids{cotton}));
  EXPECT_EQ(list_ids(s, "?q=0%25+c"), (Ids{cotton}));
  EXPECT_EQ(list_ids(s, "?q=_"), (Ids{underscore}));
  EXPECT_EQ(list_ids(s, "?q=mug_l"), (Ids{underscore}));
  EXPECT_EQ(list_ids(s, "?q=%5C"), (Ids{backslash}));
  EXPECT_EQ(list_ids(s, "?q=nothing"), Ids{});
  EXPECT_EQ(list_ids(s, "?q="), (Ids{backslash, spaced, underscore, threads, cotton}));
  // Filters combine, and with pagination.
  EXPECT_EQ(list_ids(s, "?q=shirt&published=true&category_id=" + to_string(shirts)), (Ids{cotton}));
  EXPECT_EQ(list_ids(s, "?q=mug&published=false"), (Ids{spaced}));
  HttpResponse paged = http("GET", std::string(kBase) + "?q=mug&per_page=2&page=2", s.call());
  EXPECT_EQ(ids_of(paged), (Ids{underscore}));
  EXPECT_EQ(int_of(paged["data"], "total"), 3);
  EXPECT_EQ(int_of(paged["data"], "last_page"), 2);
}

TEST(Products, ListRejectsInvalidFiltersAndPagesAllAtOnce) {
  Scope s = fresh_scope(admin_token());
  std::string positive = R"(["The category_id field must be a positive integer."])";
  for (const char* bad : {"abc", "0", "-1", "1.5", "", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    expect_invalid(http("GET", std::string(kBase) + "?category_id=" + bad, s.call()),
                   R"({"category_id":)" + positive + "}");
  }
  for (const char* bad : {"yes", "", "TRUE", "2"}) {
    SCOPED_TRACE(bad);
    expect_invalid(http("GET", std::string(kBase) + "?published=" + bad, s.call()),
                   R"({"published":["The published field must be true or false."]})");
  }
  expect_invalid(http("GET", std::string(kBase) + "?q=" + repeat("a", 256), s.call()),
                 R"({"q":["The q field must be valid text of at most 255 characters."]})");
  expect_invalid(http("GET", std::string(kBase) + "?q=%FF", s.call()),
                 R"({"q":["The q field must be valid text of at most 255 characters."]})");
  // A NUL would end the pattern early: "ab%00zz" must not search for "ab".
  expect_invalid(http("GET", std::string(kBase) + "?q=ab%00zz", s.call()),
                 R"({"q":["The q field must be valid text of at most 255 characters."]})");
  expect_invalid(http("GET",
                      std::string(kBase) +
                          "?page=0&per_page=x&category_id=x&published=x&q=" + repeat("a", 256),
                      s.call()),
                 R"({"page":["The page field must be an integer of at least 1."],)"
                 R"("per_page":["The per_page field must be an integer of at least 1."],)"
                 R"("category_id":)" +
                     positive + "," +
                     R"("q":["The q field must be valid text of at most 255 characters."],)"
                     R"("published":["The published field must be true or false."]})");
}

TEST(Products, AfterIdPagesByKeysetWithTheFiltersAndTheFullTotal) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  using Ids = std::vector<int64_t>;
  // The page's ids (list_ids also checks the total against them; here the
  // total is the whole list's).
  auto page_ids = [](const Scope& scope, const std::string& query) {
    HttpResponse r = http("GET", std::string(kBase) + query, scope.call());
    EXPECT_EQ(r.status, 200) << query << " -> " << r.body;
    return ids_of(r);
  };
  Ids ids;
  for (int i = 0; i < 7; ++i) {
    ids.push_back(create_id(s, "{\"name\":\"Item " + std::to_string(i) +
                                   "\",\"price\":1,\"published\":" + (i % 2 ? "false" : "true") +
                                   "}"));
  }
  int64_t foreign = create_id(other, R"({"name":"Item foreign","price":1})");

  // The page after a product: the next ones in the list's order (newest
  // first); the total is the whole list's, and the position is not reported.
  HttpResponse r =
      http("GET", std::string(kBase) + "?per_page=2&after_id=" + to_string(ids[5]), s.call());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(ids_of(r), (Ids{ids[4], ids[3]}));
  EXPECT_TRUE(cJSON_IsNull(json_get(r["data"], "current_page")));
  EXPECT_EQ(int_of(r["data"], "last_page"), 4);
  EXPECT_EQ(int_of(r["data"], "per_page"), 2);
  EXPECT_EQ(int_of(r["data"], "total"), 7);
  // Walking with the last id of each page visits every product once.
  Ids seen;
  std::string cursor = to_string(ids[6] + 1);
  for (int guard = 0; guard < 10; ++guard) {
    Ids page = page_ids(s, "?per_page=3&after_id=" + cursor);
    if (page.empty()) break;
    seen.insert(seen.end(), page.begin(), page.end());
    cursor = to_string(page.back());
  }
  EXPECT_EQ(seen, (Ids(ids.rbegin(), ids.rend())));
  // With filters, the cursor narrows the page and the total counts the filter.
  HttpResponse published =
      http("GET", std::string(kBase) + "?published=true&after_id=" + to_string(ids[4]), s.call());
  EXPECT_EQ(ids_of(published), (Ids{ids[2], ids[0]}));
  EXPECT_EQ(int_of(published["data"], "total"), 4);
  // Past the oldest product the page is empty; another tenant's id is just a
  // position, and never brings that tenant's rows.
  expect_body(http("GET", std::string(kBase) + "?after_id=" + to_string(ids[0]), s.call()), 200,
              R"({"success":true,"data":{"data":[],"current_page":null,"last_page":1,)"
              R"("per_page":15,"total":7,"total_relation":"eq"}})");
  EXPECT_EQ(page_ids(other, "?after_id=" + to_string(foreign + 1)), (Ids{foreign}));
  EXPECT_EQ(page_ids(other, "?after_id=" + to_string(foreign)), Ids{});

  expect_invalid(http("GET", std::string(kBase) + "?after_id=0", s.call()),
                 R"({"after_id":["The after_id field must be a positive integer."]})");
  expect_invalid(http("GET", std::string(kBase) + "?after_id=x&page=2", s.call()),
                 R"({"page":["The page field cannot be combined with after_id."],)"
                 R"("after_id":["The after_id field must be a positive integer."]})");
}

// A name search counts its matches exactly up to 10,000; past that, the
// total is 10,000 with total_relation "gte" and last_page follows it, while
// after_id still reaches every match
// (docs/decisions/0340-capped-totals-for-name-searches.md). Real rows, inserted directly: 10,001
// "Capped nnnnn".
TEST(Products, ANameSearchCountsUpTo10000MatchesThenAnswersGte) {
  using Ids = std::vector<int64_t>;
  Scope s = fresh_scope(admin_token());
  sql("INSERT INTO products (tenant_id, name, price) SELECT " + s.tid() +
      ", 'Capped ' || lpad(g::text, 5, '0'), 1 FROM generate_series(1, 10001) g");
  sql("SELECT ca_recount(" + s.tid() + ")");  // written by hand (sql/032)
  std::vector<std::string> oldest =
      sql("SELECT id FROM products WHERE tenant_id = " + s.tid() + " ORDER BY id LIMIT 2");
  ASSERT_EQ(oldest.size(), 2u);
  int64_t newest = std::stoll(sql_one("SELECT max(id) FROM products WHERE tenant_id = " + s.tid()));

  HttpResponse broad = http("GET", std::string(kBase) + "?q=capped", s.call());
  ASSERT_EQ(broad.status, 200) << broad.body;
  const cJSON* meta = broad["data"];
  EXPECT_EQ(int_of(meta, "total"), 10000);
  EXPECT_EQ(json_get_str(meta, "total_relation").value_or(""), "gte");
  EXPECT_EQ(int_of(meta, "last_page"), 667);
  Ids first = ids_of(broad);
  ASSERT_EQ(first.size(), 15u);
  EXPECT_EQ(first[0], newest);
  // last_page follows the capped total; the page past it still holds the
  // 10,001st match, and the keyset cursor reaches the oldest.
  HttpResponse past = http("GET", std::string(kBase) + "?q=capped&per_page=100&page=101", s.call());
  EXPECT_EQ(int_of(past["data"], "last_page"), 100);
  EXPECT_EQ(ids_of(past), (Ids{std::stoll(oldest[0])}));
  HttpResponse keyset =
      http("GET", std::string(kBase) + "?q=capped&after_id=" + oldest[1], s.call());
  EXPECT_EQ(ids_of(keyset), (Ids{std::stoll(oldest[0])}));
  EXPECT_EQ(int_of(keyset["data"], "total"), 10000);
  EXPECT_EQ(json_get_str(keyset["data"], "total_relation").value_or(""), "gte");

  // A selective search counts exactly: 00120 to 00129.
  expect_json_meta(
      http("GET", std::string(kBase) + "?q=Capped%200012&per_page=5", s.call()),
      R"({"current_page":1,"last_page":2,"per_page":5,"total":10,"total_relation":"eq"})");
  // Exactly 10,000 matches are still an exact count.
  sql("UPDATE products SET deleted_at = now() WHERE tenant_id = " + s.tid() +
      " AND id = " + oldest[0]);
  sql("SELECT ca_recount(" + s.tid() + ")");  // written by hand (sql/032)
  expect_json_meta(http("GET", std::string(kBase) + "?q=capped", s.call()),
                   R"({"current_page":1,"last_page":667,"per_page":15,"total":10000,)"
                   R"("total_relation":"eq"})");
  // Only name searches are capped: another filter counts every match.
  expect_json_meta(http("GET", std::string(kBase) + "?published=true&per_page=100", s.call()),
                   R"({"current_page":1,"last_page":100,"per_page":100,"total":10000,)"
                   R"("total_relation":"eq"})");
  sql("UPDATE products SET deleted_at = NULL WHERE tenant_id = " + s.tid() +
      " AND id = " + oldest[0]);
  sql("SELECT ca_recount(" + s.tid() + ")");  // written by hand (sql/032)
  expect_json_meta(http("GET", std::string(kBase) + "?published=true&per_page=100", s.call()),
                   R"({"current_page":1,"last_page":101,"per_page":100,"total":10001,)"
                   R"("total_relation":"eq"})");
}

// The ids of the name search `pattern` (an ILIKE pattern) as SQL lists them,
// newest first: what every page of the list must show.
std::vector<int64_t> expected_ids(const Scope& s, const std::string& pattern,
                                  const std::string& rest) {
  std::vector<int64_t> out;
  for (const std::string& id :
       sql("SELECT id FROM products WHERE tenant_id = " + s.tid() +
           " AND deleted_at IS NULL AND name ILIKE '" + pattern + "'" + rest))
    out.push_back(std::stoll(id));
  return out;
}

// The tenant's live counter set to its rows (inserted directly here), which
// the dense-search check reads, whoever maintains it.
void sync_product_count(const Scope& s) {
  sql("INSERT INTO product_counts (tenant_id, live) SELECT " + s.tid() +
      ", count(*) FROM products WHERE tenant_id = " + s.tid() +
      " AND deleted_at IS NULL ON CONFLICT (tenant_id) DO UPDATE SET live = EXCLUDED.live");
}

// A tenant of more than 10,000 products whose newest rows mostly match takes
// the early-stopping walk
// (docs/decisions/0341-early-stopping-name-searches.md): pages, cursor pages and totals are those
// of every match, as SQL lists them; a cursor or a page past the walk falls back to the trigram
// search with the same answer. 16,000 rows, every fourth "Other".
TEST(Products, ADenseNameSearchStopsEarlyWithTheSamePagesAndTotal) {
  using Ids = std::vector<int64_t>;
  Scope s = fresh_scope(admin_token());
  sql("INSERT INTO products (tenant_id, name, price) SELECT " + s.tid() +
      ", CASE WHEN g % 4 = 0 THEN 'Other ' ELSE 'Dense ' END || lpad(g::text, 5, '0'), 1 "
      "FROM generate_series(1, 16000) g");
  sync_product_count(s);
  const std::string base = std::string(kBase) + "?q=dense";

  HttpResponse first = http("GET", base, s.call());
  ASSERT_EQ(first.status, 200) << first.body;
  expect_json_meta(first, R"({"current_page":1,"last_page":667,"per_page":15,"total":10000,)"
                          R"("total_relation":"gte"})");
  Ids top = expected_ids(s, "%dense%", " ORDER BY id DESC LIMIT 15");
  ASSERT_EQ(top.size(), 15u);
  EXPECT_EQ(ids_of(first), top);
  EXPECT_EQ(ids_of(http("GET", base + "&per_page=50&page=3", s.call())),
            expected_ids(s, "%dense%", " ORDER BY id DESC OFFSET 100 LIMIT 50"));
  // A page past the 10,001 matches the count needs: the walk goes on to it.
  HttpResponse deep = http("GET", base + "&per_page=100&page=115", s.call());
  EXPECT_EQ(int_of(deep["data"], "total"), 10000);
  EXPECT_EQ(ids_of(deep), expected_ids(s, "%dense%", " ORDER BY id DESC OFFSET 11400 LIMIT 100"));
  // The cursor after the first page, and one below the walk's 10,001 matches.
  HttpResponse next = http("GET", base + "&after_id=" + std::to_string(top.back()), s.call());
  EXPECT_EQ(ids_of(next),
            expected_ids(s, "%dense%",
                         " AND id < " + std::to_string(top.back()) + " ORDER BY id DESC LIMIT 15"));
  expect_json_meta(next, R"({"current_page":null,"last_page":667,"per_page":15,"total":10000,)"
                         R"("total_relation":"gte"})");
  std::string below = sql_one("SELECT id FROM products WHERE tenant_id = " + s.tid() +
                              " AND name ILIKE '%dense%' ORDER BY id DESC OFFSET 11000 LIMIT 1");
  HttpResponse under = http("GET", base + "&after_id=" + below, s.call());
  EXPECT_EQ(ids_of(under),
            expected_ids(s, "%dense%", " AND id < " + below + " ORDER BY id DESC LIMIT 15"));
  EXPECT_EQ(int_of(under["data"], "total"), 10000);
  // Short patterns walk too ("en": every Dense); sparse ones (a quarter of
  // the newest rows) keep the trigram search and count exactly.
  HttpResponse short_q = http("GET", std::string(kBase) + "?q=en", s.call());
  EXPECT_EQ(json_get_str(short_q["data"], "total_relation").value_or(""), "gte");
  EXPECT_EQ(ids_of(short_q), top);
  HttpResponse other = http("GET", std::string(kBase) + "?q=other&per_page=5", s.call());
  expect_json_meta(other, R"({"current_page":1,"last_page":800,"per_page":5,"total":4000,)"
                          R"("total_relation":"eq"})");
  EXPECT_EQ(ids_of(other), expected_ids(s, "%other%", " ORDER BY id DESC LIMIT 5"));
  // With another filter the walk keeps it: unpublished rows are not matches.
  sql("UPDATE products SET published = false WHERE tenant_id = " + s.tid() + " AND id IN (" +
      std::to_string(top[0]) + ", " + std::to_string(top[2]) + ")");
  EXPECT_EQ(ids_of(http("GET", base + "&published=true&per_page=5", s.call())),
            expected_ids(s, "%dense%", " AND published ORDER BY id DESC LIMIT 5"));
}

// Dense among the newest rows only: the walk looks at 40,000 rows, finds too
// few matches to settle the total and leaves it to the trigram search, whose
// exact count and page are the answer. 1,000 newest "Dense", 40,000 older
// "Other", 5 "Dense" among the oldest.
TEST(Products, ADenseTopOverSparseRowsFallsBackToTheExactSearch) {
  Scope s = fresh_scope(admin_token());
  sql("INSERT INTO products (tenant_id, name, price) SELECT " + s.tid() +
      ", CASE WHEN g <= 5 OR g > 40005 THEN 'Dense ' ELSE 'Other ' END || lpad(g::text, 5, '0'), "
      "1 FROM generate_series(1, 41005) g");
  sync_product_count(s);
  HttpResponse r = http("GET", std::string(kBase) + "?q=dense&per_page=10&page=101", s.call());
  ASSERT_EQ(r.status, 200) << r.body;
  expect_json_meta(r, R"({"current_page":101,"last_page":101,"per_page":10,"total":1005,)"
                      R"("total_relation":"eq"})");
  EXPECT_EQ(ids_of(r), expected_ids(s, "%dense%", " ORDER BY id DESC OFFSET 1000 LIMIT 10"));
  EXPECT_EQ(ids_of(r).size(), 5u);
}

TEST(Products, EventsAreWrittenForCreateUpdateAndDelete) {
  Scope s = fresh_scope(admin_token());
  int64_t id = create_id(s, R"({"name":"Evented","price":1.5})");
  ASSERT_EQ(http("POST", item(id), s.call(R"({"price":2.25,"stock":4})")).status, 200);
  // A refused update writes no event.
  ASSERT_EQ(http("POST", item(id), s.call(R"({"price":-1})")).status, 422);
  ASSERT_EQ(http("DELETE", item(id), s.call()).status, 200);
  std::vector<std::string> events =
      sql("SELECT type || '|' || (payload->>'id') || '|' || (payload->>'name') || '|' || "
          "(payload->>'price') || '|' || (payload->>'stock') || '|' || "
          "(payload ? 'created_at') FROM events WHERE tenant_id = " +
          s.tid() + " ORDER BY id");
  std::string sid = to_string(id);
  EXPECT_EQ(events, (std::vector<std::string>{
                        "product.created|" + sid + "|Evented|1.5|0|true",
                        "product.updated|" + sid + "|Evented|2.25|4|true",
                        "product.deleted|" + sid + "|Evented|2.25|4|true",
                    }));
  // The event payload is the product as the API returned it.
  HttpResponse again = create(s, R"({"name":"Second","price":3})");
  ASSERT_EQ(again.body.find('\''), std::string::npos);  // safe to quote below
  EXPECT_EQ(sql_one("SELECT payload = '" + again.body + "'::jsonb FROM events WHERE tenant_id = " +
                    s.tid() + " AND type = 'product.created' AND payload->>'id' = '" +
                    to_string(again.integer("id")) + "'"),
            "t");
}

TEST(Products, AMemberCanUseEveryProductEndpoint) {
  std::string admin = admin_token();
  Scope s = fresh_scope(admin);
  TestUser member = add_user(admin, s.tenant, "MEMBER");
  Scope m{.token = member.token, .tenant = s.tenant};
  int64_t id = create_id(m, R"({"name":"By member","price":9.99})");
  HttpResponse read = http("GET", item(id), m.call());
  EXPECT_EQ(read.status, 200) << read.body;
  expect_product(read.json.get(), {.name = "By member", .price = 9.99});
  HttpResponse updated = http("POST", item(id), m.call(R"({"stock":3})"));
  EXPECT_EQ(updated.status, 200) << updated.body;
  expect_product(updated.json.get(), {.name = "By member", .price = 9.99, .stock = 3});
  EXPECT_EQ(list_ids(m, ""), std::vector<int64_t>{id});
  expect_body(http("DELETE", item(id), m.call()), 200, R"({"message":"Product deleted"})");
}

TEST(Products, EveryEndpointChecksTokenThenTenantHeader) {
  std::string admin = admin_token();
  Scope s = fresh_scope(admin);
  Scope stranger_tenant = fresh_scope(admin);
  TestUser outsider = add_user(admin, stranger_tenant.tenant, "ADMIN");
  int64_t id = create_id(s, R"({"name":"Guarded","price":1})");
  std::string before = catalog_snapshot(s.tenant);
  std::vector<GuardedCall> endpoints = {
      {"GET", kBase, std::nullopt},
      {"POST", kBase, R"({"name":"Intruder","price":1})"},
      {"GET", item(id), std::nullopt},
      {"POST", item(id), R"({"name":"Intruder"})"},
      {"DELETE", item(id), std::nullopt},
      // A list with bad filters is still refused for access first: the list
      // is read in the same round trip as the access check.
      {"GET", std::string(kBase) + "?page=0&published=x", std::nullopt},
  };
  for (const GuardedCall& e : endpoints) {
    expect_tenant_guards(e.method, e.path, e.body, s, outsider.token);
  }
  // The tenant check comes before validation.
  expect_body(http("POST", kBase, {.token = outsider.token, .tenant = s.tid(), .body = "{}"}), 403,
              R"({"error":"You are not a member of this tenant"})");
  EXPECT_EQ(catalog_snapshot(s.tenant), before);
}

TEST(Products, UnknownMethodsAndNonIntegerIdsAreRoutedAway) {
  Scope s = fresh_scope(admin_token());
  HttpResponse wrong = http("PATCH", item(1), s.call("{}"));
  EXPECT_EQ(wrong.status, 405) << wrong.body;
  EXPECT_EQ(wrong.headers["allow"], "GET, POST, DELETE");
  expect_body(http("GET", std::string(kBase) + "/abc", s.call()), 404, R"({"error":"Not found"})");
  expect_body(http("GET", std::string(kBase) + "/0", s.call()), 404, R"({"error":"Not found"})");
}

}  // namespace
}  // namespace ca::test
