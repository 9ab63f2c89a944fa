// Categories (docs/design/api-conventions.md) through nginx: every endpoint's
// body field by field, every validation error, tenant isolation, auth and
// tenant-header checks, and the atomic publish toggle under concurrency.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "stack.h"

namespace ca::test {
namespace {

constexpr const char* kBase = "/api/v2/admin/category";

// Checks every field of a Category and that there are no others.
void expect_category(const cJSON* c, int64_t tenant, const std::string& name,
                     const std::optional<std::string>& description, bool published) {
  ASSERT_TRUE(cJSON_IsObject(c)) << json_dump(c);
  EXPECT_EQ(cJSON_GetArraySize(c), 7) << json_dump(c);
  EXPECT_GT(int_of(c, "id"), 0);
  EXPECT_EQ(int_of(c, "tenant_id"), tenant);
  EXPECT_EQ(json_get_str(c, "name").value_or("<not a string>"), name);
  if (description) {
    EXPECT_EQ(json_get_str(c, "description").value_or("<not a string>"), *description);
  } else {
    EXPECT_TRUE(cJSON_IsNull(json_get(c, "description"))) << json_dump(c);
  }
  EXPECT_TRUE(cJSON_IsBool(json_get(c, "is_published")));
  EXPECT_EQ(cJSON_IsTrue(json_get(c, "is_published")), published) << json_dump(c);
  EXPECT_TRUE(is_timestamp(json_get(c, "created_at"))) << json_dump(c);
  EXPECT_TRUE(is_timestamp(json_get(c, "updated_at"))) << json_dump(c);
}

// `{success:true, message, data}` with exactly those keys.
const cJSON* expect_success(const HttpResponse& r, long status, const std::string& message) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(cJSON_GetArraySize(r.json.get()), 3) << r.body;
  EXPECT_TRUE(cJSON_IsTrue(r["success"])) << r.body;
  EXPECT_EQ(r.str("message"), message);
  return r["data"];
}

int64_t create_category(const Scope& s, const std::string& name,
                        const std::string& extra_fields = "") {
  HttpResponse r = http("POST", std::string(kBase) + "/create",
                        s.call("{\"name\":" + json_text(name) + extra_fields + "}"));
  EXPECT_EQ(r.status, 201) << r.body;
  return int_of(r["data"], "id");
}

TEST(Categories, CreateReturns201WithTheTrimmedCategoryAndWritesCategoryCreatedEvent) {
  Scope s = fresh_scope(admin_token());
  HttpResponse r = http("POST", std::string(kBase) + "/create",
                        s.call(R"({"name":"  Shoes \t","description":"All kinds of shoes"})"));
  const cJSON* data = expect_success(r, 201, "Category created");
  expect_category(data, s.tenant, "Shoes", "All kinds of shoes", true);
  EXPECT_EQ(json_dump(json_get(data, "created_at")), json_dump(json_get(data, "updated_at")));
  std::string id = to_string(int_of(data, "id"));

  EXPECT_EQ(sql_one("SELECT name || '|' || description || '|' || is_published FROM categories "
                    "WHERE tenant_id = " +
                    s.tid() + " AND id = " + id),
            "Shoes|All kinds of shoes|true");
  // The outbox row carries the category as returned.
  EXPECT_EQ(sql_one("SELECT count(*) FROM events WHERE tenant_id = " + s.tid() +
                    " AND type = 'category.created'"),
            "1");
  EXPECT_EQ(sql_one("SELECT payload->>'id' || '|' || (payload->>'tenant_id') || '|' || "
                    "(payload->>'name') FROM events WHERE tenant_id = " +
                    s.tid() + " AND type = 'category.created'"),
            id + "|" + s.tid() + "|Shoes");
}

TEST(Categories, CreateWithoutOrWithNullDescriptionStoresNull) {
  Scope s = fresh_scope(admin_token());
  HttpResponse absent = http("POST", std::string(kBase) + "/create", s.call(R"({"name":"Hats"})"));
  expect_category(expect_success(absent, 201, "Category created"), s.tenant, "Hats", std::nullopt,
                  true);
  HttpResponse null =
      http("POST", std::string(kBase) + "/create", s.call(R"({"name":"Bags","description":null})"));
  expect_category(expect_success(null, 201, "Category created"), s.tenant, "Bags", std::nullopt,
                  true);
  HttpResponse empty =
      http("POST", std::string(kBase) + "/create", s.call(R"({"name":"Belts","description":""})"));
  expect_category(expect_success(empty, 201, "Category created"), s.tenant, "Belts", "", true);
  EXPECT_EQ(sql_one("SELECT count(*) FROM categories WHERE tenant_id = " + s.tid() +
                    " AND description IS NULL"),
            "2");
}

TEST(Categories, CreateValidationErrorsAreAllReportedAndNothingIsStored) {
  Scope s = fresh_scope(admin_token());
  std::string path = std::string(kBase) + "/create";
  expect_body(http("POST", path, s.call("{}")), 422,
              R"({"success":false,"errors":{"name":["The name field is required."]}})");
  expect_body(http("POST", path, s.call(R"({"name":null})")), 422,
              R"({"success":false,"errors":{"name":["The name field is required."]}})");
  expect_body(http("POST", path, s.call(R"({"name":" \t\n "})")), 422,
              R"({"success":false,"errors":{"name":["The name field is required."]}})");
  expect_body(http("POST", path, s.call(R"({"name":123,"description":true})")), 422,
              R"({"success":false,"errors":{"name":["The name field must be a string."],)"
              R"("description":["The description field must be a string."]}})");
  expect_body(
      http("POST", path,
           s.call("{\"name\":\"" + repeat("a", 256) + "\",\"description\":\"" + repeat("d", 10001) +
                  "\"}")),
      422,
      R"({"success":false,"errors":{)"
      R"("name":["The name field must not be greater than 255 characters."],)"
      R"("description":["The description field must not be greater than 10000 characters."]}})");
  // 256 two-byte characters are 256 characters, not 512 bytes.
  expect_body(http("POST", path, s.call("{\"name\":\"" + repeat("é", 256) + "\"}")), 422,
              R"({"success":false,"errors":{)"
              R"("name":["The name field must not be greater than 255 characters."]}})");
  expect_body(http("POST", path, s.call("[]")), 400,
              R"({"error":"Request body must be a JSON object"})");
  expect_body(http("POST", path, s.call("{\"name\":")), 400,
              R"({"error":"Request body must be a JSON object"})");
  EXPECT_EQ(sql_one("SELECT count(*) FROM categories WHERE tenant_id = " + s.tid()), "0");
  EXPECT_EQ(sql_one("SELECT count(*) FROM events WHERE tenant_id = " + s.tid()), "0");

  // The limits themselves are accepted: 255 multi-byte characters, 10000 of description.
  std::string name = repeat("é", 255);
  std::string description = repeat("d", 10000);
  HttpResponse ok = http(
      "POST", path,
      s.call("{\"name\":" + json_text(name) + ",\"description\":" + json_text(description) + "}"));
  expect_category(expect_success(ok, 201, "Category created"), s.tenant, name, description, true);
}

TEST(Categories, DuplicateNameIsCaseInsensitivePerTenant) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  create_category(s, "Shoes");
  for (const char* dup : {R"({"name":"shoes"})", R"({"name":" SHOES "})"}) {
    expect_body(http("POST", std::string(kBase) + "/create", s.call(dup)), 422,
                R"({"success":false,"errors":{"name":["The name has already been taken."]}})");
  }
  EXPECT_EQ(sql_one("SELECT count(*) FROM categories WHERE tenant_id = " + s.tid()), "1");
  EXPECT_EQ(sql_one("SELECT count(*) FROM events WHERE tenant_id = " + s.tid()), "1");
  // The same name in another tenant is a different category.
  HttpResponse r = http("POST", std::string(kBase) + "/create", other.call(R"({"name":"SHOES"})"));
  expect_category(expect_success(r, 201, "Category created"), other.tenant, "SHOES", std::nullopt,
                  true);
}

TEST(Categories, ListIsPaginatedNewestFirstAndOnlyHoldsTheTenantsCategories) {
  std::string token = admin_token();
  Scope s = fresh_scope(token);
  Scope other = fresh_scope(token);
  create_category(other, "Elsewhere");

  expect_body(http("GET", kBase, s.call()), 200,
              R"({"success":true,"data":{"data":[],"current_page":1,"last_page":1,)"
              R"("per_page":15,"total":0}})");

  std::vector<int64_t> ids;
  for (int i = 0; i < 17; ++i) ids.push_back(create_category(s, "Category " + std::to_string(i)));

  HttpResponse first = http("GET", kBase, s.call());
  EXPECT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(cJSON_GetArraySize(first.json.get()), 2);
  EXPECT_TRUE(cJSON_IsTrue(first["success"]));
  const cJSON* page = first["data"];
  EXPECT_EQ(cJSON_GetArraySize(page), 5);
  EXPECT_EQ(int_of(page, "current_page"), 1);
  EXPECT_EQ(int_of(page, "last_page"), 2);
  EXPECT_EQ(int_of(page, "per_page"), 15);
  EXPECT_EQ(int_of(page, "total"), 17);
  const cJSON* rows = json_get(page, "data");
  ASSERT_EQ(cJSON_GetArraySize(rows), 15);
  for (int i = 0; i < 15; ++i) {
    const cJSON* c = cJSON_GetArrayItem(rows, i);
    int64_t want = ids[static_cast<size_t>(16 - i)];
    EXPECT_EQ(int_of(c, "id"), want);
    expect_category(c, s.tenant, "Category " + std::to_string(16 - i), std::nullopt, true);
  }

  HttpResponse second = http("GET", std::string(kBase) + "?page=2", s.call());
  const cJSON* rows2 = json_get(second["data"], "data");
  ASSERT_EQ(cJSON_GetArraySize(rows2), 2) << second.body;
  EXPECT_EQ(int_of(cJSON_GetArrayItem(rows2, 0), "id"), ids[1]);
  EXPECT_EQ(int_of(cJSON_GetArrayItem(rows2, 1), "id"), ids[0]);
  EXPECT_EQ(int_of(second["data"], "current_page"), 2);

  expect_body(http("GET", std::string(kBase) + "?page=3", s.call()), 200,
              R"({"success":true,"data":{"data":[],"current_page":3,"last_page":2,)"
              R"("per_page":15,"total":17}})");

  HttpResponse small = http("GET", std::string(kBase) + "?per_page=5&page=4", s.call());
  EXPECT_EQ(int_of(small["data"], "last_page"), 4);
  EXPECT_EQ(int_of(small["data"], "per_page"), 5);
  ASSERT_EQ(cJSON_GetArraySize(json_get(small["data"], "data")), 2) << small.body;

  HttpResponse clamped = http("GET", std::string(kBase) + "?per_page=1000", s.call());
  EXPECT_EQ(int_of(clamped["data"], "per_page"), 100);
  EXPECT_EQ(int_of(clamped["data"], "last_page"), 1);
  EXPECT_EQ(cJSON_GetArraySize(json_get(clamped["data"], "data")), 17);
}

TEST(Categories, ListRejectsBadPageParameters) {
  Scope s = fresh_scope(admin_token());
  expect_body(http("GET", std::string(kBase) + "?page=0&per_page=abc", s.call()), 422,
              R"({"success":false,"errors":{)"
              R"("page":["The page field must be an integer of at least 1."],)"
              R"("per_page":["The per_page field must be an integer of at least 1."]}})");
  expect_body(http("GET", std::string(kBase) + "?page=-1", s.call()), 422,
              R"({"success":false,"errors":{)"
              R"("page":["The page field must be an integer of at least 1."]}})");
  expect_body(http("GET", std::string(kBase) + "?per_page=0", s.call()), 422,
              R"({"success":false,"errors":{)"
              R"("per_page":["The per_page field must be an integer of at least 1."]}})");
  expect_body(http("GET", std::string(kBase) + "?page=1.5", s.call()), 422,
              R"({"success":false,"errors":{)"
              R"("page":["The page field must be an integer of at least 1."]}})");
}

TEST(Categories, ToggleFlipsThePublishStatusAndSaysWhichWay) {
  Scope s = fresh_scope(admin_token());
  int64_t id = create_category(s, "Toggled", R"(,"description":"kept")");
  std::string path = std::string(kBase) + "/" + to_string(id);

  HttpResponse hide = http("PATCH", path, s.call());
  const cJSON* hidden = expect_success(hide, 200, "Category hidden");
  expect_category(hidden, s.tenant, "Toggled", "kept", false);
  EXPECT_EQ(int_of(hidden, "id"), id);
  EXPECT_EQ(sql_one("SELECT is_published FROM categories WHERE tenant_id = " + s.tid() +
                    " AND id = " + to_string(id)),
            "f");
  EXPECT_EQ(sql_one("SELECT updated_at > created_at FROM categories WHERE tenant_id = " + s.tid() +
                    " AND id = " + to_string(id)),
            "t");

  HttpResponse show = http("PATCH", path, s.call());
  expect_category(expect_success(show, 200, "Category published"), s.tenant, "Toggled", "kept",
                  true);
  EXPECT_EQ(sql_one("SELECT is_published FROM categories WHERE tenant_id = " + s.tid() +
                    " AND id = " + to_string(id)),
            "t");

  // A body is ignored: the toggle takes none.
  HttpResponse with_body = http("PATCH", path, s.call(R"({"is_published":true})"));
  expect_category(expect_success(with_body, 200, "Category hidden"), s.tenant, "Toggled", "kept",
                  false);
}

// N concurrent toggles from 8 threads: all succeed and the final state is
// the initial one flipped N times, so no toggle was lost or applied twice.
void concurrent_toggles(int n) {
  Scope s = fresh_scope(admin_token());
  int64_t id = create_category(s, "Contended");
  std::string path = std::string(kBase) + "/" + to_string(id);
  std::atomic<int> next{0};
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      while (next.fetch_add(1) < n) {
        HttpResponse r = http("PATCH", path, s.call());
        if (r.status == 200) {
          ok.fetch_add(1);
        } else {
          ADD_FAILURE() << r.status << " " << r.body;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), n);
  bool expected = n % 2 == 0;  // created published; an odd number of toggles hides it
  EXPECT_EQ(sql_one("SELECT is_published FROM categories WHERE tenant_id = " + s.tid() +
                    " AND id = " + to_string(id)),
            expected ? "t" : "f");
  HttpResponse list = http("GET", kBase, s.call());
  expect_category(cJSON_GetArrayItem(json_get(list["data"], "data"), 0), s.tenant, "Contended",
                  std::nullopt, expected);
}

TEST(Categories, FortyConcurrentTogglesLeaveThePublishStatusAsItWas) { concurrent_toggles(40); }

TEST(Categories, FortyOneConcurrentTogglesFlipThePublishStatus) { concurrent_toggles(41); }

TEST(Categories, UpdateChangesOnlyTheSentFields) {
  Scope s = fresh_scope(admin_token());
  int64_t id = create_category(s, "Original", R"(,"description":"first")");
  std::string path = std::string(kBase) + "/" + to_string(id);
  std::string where =
      " FROM categories WHERE tenant_id = " + s.tid() + " AND id = " + to_string(id);
  http("PATCH", path, s.call());  // hidden: the update must keep that too
  std::string created = sql_one("SELECT ca_ts(created_at)" + where);

  HttpResponse renamed = http("POST", path, s.call(R"({"name":"  Renamed  "})"));
  const cJSON* data = expect_success(renamed, 200, "Category updated");
  expect_category(data, s.tenant, "Renamed", "first", false);
  EXPECT_EQ(int_of(data, "id"), id);
  EXPECT_EQ(json_get_str(data, "created_at").value_or(""), created);

  HttpResponse described = http("POST", path, s.call(R"({"description":"second"})"));
  expect_category(expect_success(described, 200, "Category updated"), s.tenant, "Renamed", "second",
                  false);

  HttpResponse cleared = http("POST", path, s.call(R"({"description":null})"));
  expect_category(expect_success(cleared, 200, "Category updated"), s.tenant, "Renamed",
                  std::nullopt, false);
  EXPECT_EQ(sql_one("SELECT description IS NULL" + where), "t");

  HttpResponse both = http("POST", path, s.call(R"({"name":"Both","description":"third"})"));
  expect_category(expect_success(both, 200, "Category updated"), s.tenant, "Both", "third", false);

  // Its own name in another case is not a duplicate of itself.
  HttpResponse recased = http("POST", path, s.call(R"({"name":"BOTH"})"));
  expect_category(expect_success(recased, 200, "Category updated"), s.tenant, "BOTH", "third",
                  false);
  EXPECT_EQ(sql_one("SELECT name || '|' || description || '|' || is_published || '|' || "
                    "(updated_at > created_at)" +
                    where),
            "BOTH|third|false|true");
  // Updates emit no category.created.
  EXPECT_EQ(sql_one("SELECT count(*) FROM events WHERE tenant_id = " + s.tid()), "1");
}

TEST(Categories, UpdateValidationErrorsChangeNothing) {
  Scope s = fresh_scope(admin_token());
  create_category(s, "Taken");
  int64_t id = create_category(s, "Mine", R"(,"description":"as is")");
  std::string path = std::string(kBase) + "/" + to_string(id);
  std::string before = catalog_snapshot(s.tenant);

  expect_body(http("POST", path, s.call("{}")), 422,
              R"({"success":false,"errors":{)"
              R"("name":["The name field is required when description is not present."]}})");
  expect_body(http("POST", path, s.call(R"({"name":"  "})")), 422,
              R"({"success":false,"errors":{"name":["The name field must not be empty."]}})");
  expect_body(http("POST", path, s.call(R"({"name":null,"description":5})")), 422,
              R"({"success":false,"errors":{"name":["The name field must not be null."],)"
              R"("description":["The description field must be a string."]}})");
  expect_body(
      http("POST", path,
           s.call("{\"name\":\"" + repeat("n", 256) + "\",\"description\":\"" + repeat("d", 10001) +
                  "\"}")),
      422,
      R"({"success":false,"errors":{)"
      R"("name":["The name field must not be greater than 255 characters."],)"
      R"("description":["The description field must not be greater than 10000 characters."]}})");
  expect_body(http("POST", path, s.call(R"({"name":"taken"})")), 422,
              R"({"success":false,"errors":{"name":["The name has already been taken."]}})");
  expect_body(http("POST", path, s.call("null")), 400,
              R"({"error":"Request body must be a JSON object"})");
  // Validation comes before existence.
  expect_body(http("POST", std::string(kBase) + "/999999999", s.call("{}")), 422,
              R"({"success":false,"errors":{)"
              R"("name":["The name field is required when description is not present."]}})");
  EXPECT_EQ(catalog_snapshot(s.tenant), before);
}

TEST(Categories, DeleteRemovesTheCategoryAndDetachesItsProducts) {
  Scope s = fresh_scope(admin_token());
  int64_t id = create_category(s, "Doomed");
  int64_t kept = create_category(s, "Kept");
  std::vector<int64_t> products;
  for (const std::string& body :
       {"{\"name\":\"A\",\"price\":1,\"category_id\":" + to_string(id) + "}",
        "{\"name\":\"B\",\"price\":2,\"category_id\":" + to_string(id) + "}",
        "{\"name\":\"C\",\"price\":3,\"category_id\":" + to_string(kept) + "}"}) {
    HttpResponse r = http("POST", "/api/v2/admin/products", s.call(body));
    ASSERT_EQ(r.status, 201) << r.body;
    products.push_back(r.integer("id"));
  }
  std::string path = std::string(kBase) + "/" + to_string(id);

  expect_body(http("DELETE", path, s.call()), 200,
              R"({"success":true,"message":"Category deleted"})");
  EXPECT_EQ(sql_one("SELECT count(*) FROM categories WHERE tenant_id = " + s.tid() +
                    " AND id = " + to_string(id)),
            "0");
  // The products stay, without a category; the other category's product is untouched.
  for (size_t i = 0; i < 2; ++i) {
    HttpResponse p = http("GET", "/api/v2/admin/products/" + to_string(products[i]), s.call());
    EXPECT_EQ(p.status, 200) << p.body;
    EXPECT_TRUE(cJSON_IsNull(p["category_id"])) << p.body;
  }
  EXPECT_EQ(sql_one("SELECT string_agg(coalesce(category_id::text, 'null'), ',' ORDER BY id) "
                    "FROM products WHERE tenant_id = " +
                    s.tid()),
            "null,null," + to_string(kept));

  HttpResponse list = http("GET", kBase, s.call());
  const cJSON* rows = json_get(list["data"], "data");
  ASSERT_EQ(cJSON_GetArraySize(rows), 1) << list.body;
  EXPECT_EQ(int_of(cJSON_GetArrayItem(rows, 0), "id"), kept);

  const char* not_found = R"({"success":false,"message":"Category not found"})";
  expect_body(http("DELETE", path, s.call()), 404, not_found);
  expect_body(http("PATCH", path, s.call()), 404, not_found);
  expect_body(http("POST", path, s.call(R"({"name":"Back"})")), 404, not_found);
  // The name is free again.
  create_category(s, "doomed");
}

// A detached product has changed like any update: category_id null, a later
// updated_at, a product.updated event with the product as GET now shows it,
// fanned out to subscriptions. Deleted products and other categories'
// products get no event.
TEST(Categories, DeleteWritesProductUpdatedForEachDetachedProduct) {
  Scope s = fresh_scope(admin_token());
  HttpResponse hook =
      http("POST", "/api/v2/admin/webhooks/" + s.tid(),
           s.call(R"({"url":"http://127.0.0.1:1024/hook","events":["product.updated"]})"));
  ASSERT_EQ(hook.status, 201) << hook.body;
  int64_t id = create_category(s, "Doomed");
  int64_t kept = create_category(s, "Kept");
  auto product = [&](const std::string& name, int64_t category) {
    HttpResponse r = http("POST", "/api/v2/admin/products",
                          s.call("{\"name\":\"" + name +
                                 "\",\"price\":1,\"category_id\":" + to_string(category) + "}"));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.integer("id");
  };
  int64_t a = product("A", id), b = product("B", id);
  product("C", kept);
  int64_t gone = product("Gone", id);
  ASSERT_EQ(http("DELETE", "/api/v2/admin/products/" + to_string(gone), s.call()).status, 200);
  std::string before = sql_one("SELECT max(id) FROM events");
  // Written in the past, so that a moved updated_at shows at any clock
  // resolution. A constant: Citus refuses updated_at - interval (a STABLE
  // operator on a column) in an UPDATE.
  sql("UPDATE products SET updated_at = '2020-01-01T00:00:00Z' WHERE tenant_id = " + s.tid());
  std::string rows =
      "SELECT updated_at::text || ' ' || coalesce(category_id::text, 'null') "
      "FROM products WHERE tenant_id = " +
      s.tid() + " ORDER BY id";
  std::vector<std::string> was = sql(rows);
  ASSERT_EQ(was.size(), 4u);

  expect_body(http("DELETE", std::string(kBase) + "/" + to_string(id), s.call()), 200,
              R"({"success":true,"message":"Category deleted"})");

  std::vector<std::string> bodies;
  for (int64_t p : {a, b}) {
    HttpResponse r = http("GET", "/api/v2/admin/products/" + to_string(p), s.call());
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(cJSON_IsNull(r["category_id"])) << r.body;
    ASSERT_EQ(r.body.find('\''), std::string::npos);  // safe to quote below
    bodies.push_back(r.body);
  }
  // One event per live detached product, in id order, each the product as GET shows it.
  std::string mine = " FROM events WHERE tenant_id = " + s.tid() + " AND id > " + before;
  EXPECT_EQ(sql("SELECT type || '|' || (payload->>'id') || '|' || "
                "coalesce(payload->>'category_id', 'null')" +
                mine + " ORDER BY id"),
            (std::vector<std::string>{"product.updated|" + to_string(a) + "|null",
                                      "product.updated|" + to_string(b) + "|null"}));
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sql_one("SELECT payload = '" + bodies[i] + "'::jsonb" + mine +
                      " AND payload->>'id' = '" + to_string(i == 0 ? a : b) + "'"),
              "t");
  }
  EXPECT_EQ(sql_one("SELECT count(*) FROM webhook_deliveries WHERE tenant_id = " + s.tid() +
                    " AND webhook_id = " + to_string(hook.integer("id")) +
                    " AND event = 'product.updated' AND event_id > " + before),
            "2");
  // updated_at moved for the two detached products only; the deleted one lost
  // its category too (the foreign key), without an event.
  std::vector<std::string> now = sql(rows);
  ASSERT_EQ(now.size(), 4u);
  auto stamp = [](const std::string& row) { return row.substr(0, row.rfind(' ')); };
  auto category = [](const std::string& row) { return row.substr(row.rfind(' ') + 1); };
  EXPECT_NE(stamp(now[0]), stamp(was[0]));
  EXPECT_NE(stamp(now[1]), stamp(was[1]));
  EXPECT_EQ(now[2], was[2]);
  EXPECT_EQ(stamp(now[3]), stamp(was[3]));
  EXPECT_EQ(
      category(now[0]) + "," + category(now[1]) + "," + category(now[2]) + "," + category(now[3]),
      "null,null," + to_string(kept) + ",null");
  // The receiver does not exist: stop the worker retrying for the rest of the run.
  EXPECT_EQ(
      http("DELETE", "/api/v2/admin/webhooks/" + s.tid() + "?id=" + to_string(hook.integer("id")),
           s.call())
          .status,
      200);
}

// The delete's events take their ids from the coordinator in its first
// send, one per live product of the category then
// (docs/decisions/0139-webhook-order-status-and-category-delete-are-calls.md).
// A product that joins the category after that send and before the delete's
// locks has no id: the call writes nothing and says how many it needs, and
// the handler takes them and calls again. The test's transaction holds the
// category's lock while the delete waits for it, and adds the product.
TEST(Categories, DeleteTakesMoreEventIdsForAProductThatJoinedAfterItsFirstSend) {
  Scope s = fresh_scope(admin_token());
  HttpResponse hook =
      http("POST", "/api/v2/admin/webhooks/" + s.tid(),
           s.call(R"({"url":"http://127.0.0.1:1024/hook","events":["product.updated"]})"));
  ASSERT_EQ(hook.status, 201) << hook.body;
  int64_t id = create_category(s, "Joined");
  HttpResponse first =
      http("POST", "/api/v2/admin/products",
           s.call(R"({"name":"First","price":1,"category_id":)" + to_string(id) + "}"));
  ASSERT_EQ(first.status, 201) << first.body;
  std::string before = sql_one("SELECT max(id) FROM events");
  PgConn conn = connect_database();
  ASSERT_TRUE(conn);
  ASSERT_TRUE(exec_ok(conn.get(), "BEGIN"));
  ASSERT_TRUE(exec_ok(conn.get(), "SELECT FROM categories WHERE tenant_id = " + s.tid() +
                                      " AND id = " + to_string(id) + " FOR UPDATE"));
  std::future<HttpResponse> deleted = std::async(std::launch::async, [&] {
    return http("DELETE", std::string(kBase) + "/" + to_string(id), s.call());
  });
  bool waiting = wait_for_lock_wait("SELECT deleted, ids_needed FROM ca_category_delete(%");
  EXPECT_TRUE(
      exec_ok(conn.get(), "INSERT INTO products (tenant_id, name, price, category_id) VALUES (" +
                              s.tid() + ", 'Late', 1, " + to_string(id) + ")"));
  // EXPECT, not ASSERT: the delete must be waited for before `conn` goes.
  EXPECT_TRUE(exec_ok(conn.get(), "COMMIT"));
  EXPECT_TRUE(waiting) << "the delete did not wait for the category's lock";
  expect_body(deleted.get(), 200, R"({"success":true,"message":"Category deleted"})");
  std::string late =
      sql_one("SELECT id FROM products WHERE tenant_id = " + s.tid() + " AND name = 'Late'");
  // Both products detached, one event each, in id order, with their deliveries.
  EXPECT_EQ(sql_one("SELECT count(*) FROM products WHERE tenant_id = " + s.tid() +
                    " AND category_id IS NOT NULL"),
            "0");
  std::string mine = " FROM events WHERE tenant_id = " + s.tid() + " AND id > " + before;
  EXPECT_EQ(sql("SELECT type || '|' || (payload->>'id') || '|' || "
                "coalesce(payload->>'category_id', 'null')" +
                mine + " ORDER BY id"),
            (std::vector<std::string>{"product.updated|" + to_string(first.integer("id")) + "|null",
                                      "product.updated|" + late + "|null"}));
  EXPECT_EQ(sql_one("SELECT count(*) FROM webhook_deliveries WHERE tenant_id = " + s.tid() +
                    " AND webhook_id = " + to_string(hook.integer("id")) +
                    " AND event = 'product.updated' AND event_id > " + before),
            "2");
  EXPECT_EQ(sql_one("SELECT count(*) FROM audit_log WHERE tenant_id = " + s.tid() +
                    " AND action = 'category.deleted' AND target_id = " + to_string(id)),
            "1");
  // The coordinator's ids: on Citus a worker's sequence starts at its group id << 48.
  EXPECT_EQ(sql_one("SELECT bool_and(id < 281474976710656)::text" + mine), "true");
  // The receiver does not exist: stop the worker retrying for the rest of the run.
  EXPECT_EQ(
      http("DELETE", "/api/v2/admin/webhooks/" + s.tid() + "?id=" + to_string(hook.integer("id")),
           s.call())
          .status,
      200);
}

TEST(Categories, AnotherTenantsCategoryIs404OnEveryVerbAndStaysUnchanged) {
  std::string token = admin_token();
  Scope mine = fresh_scope(token);
  Scope theirs = fresh_scope(token);  // the caller is a member of both
  int64_t foreign = create_category(theirs, "Foreign", R"(,"description":"theirs")");
  HttpResponse p =
      http("POST", "/api/v2/admin/products",
           theirs.call("{\"name\":\"P\",\"price\":1,\"category_id\":" + to_string(foreign) + "}"));
  ASSERT_EQ(p.status, 201) << p.body;
  std::string before = catalog_snapshot(theirs.tenant);
  std::string path = std::string(kBase) + "/" + to_string(foreign);
  const char* not_found = R"({"success":false,"message":"Category not found"})";

  expect_body(http("PATCH", path, mine.call()), 404, not_found);
  expect_body(http("POST", path, mine.call(R"({"name":"Stolen","description":null})")), 404,
              not_found);
  expect_body(http("DELETE", path, mine.call()), 404, not_found);
  HttpResponse list = http("GET", kBase, mine.call());
  EXPECT_EQ(int_of(list["data"], "total"), 0) << list.body;
  // Ids that never existed answer the same way.
  for (const char* method : {"PATCH", "DELETE"}) {
    expect_body(http(method, std::string(kBase) + "/9223372036854775807", mine.call()), 404,
                not_found);
  }
  expect_body(
      http("POST", std::string(kBase) + "/9223372036854775807", mine.call(R"({"name":"x"})")), 404,
      not_found);

  EXPECT_EQ(catalog_snapshot(theirs.tenant), before);
  EXPECT_EQ(sql_one("SELECT count(*) FROM categories WHERE tenant_id = " + mine.tid()), "0");
}

TEST(Categories, AMemberCanUseEveryCategoryEndpoint) {
  std::string admin = admin_token();
  Scope s = fresh_scope(admin);
  TestUser member = add_user(admin, s.tenant, "MEMBER");
  Scope m{.token = member.token, .tenant = s.tenant};

  HttpResponse created =
      http("POST", std::string(kBase) + "/create", m.call(R"({"name":"By member"})"));
  const cJSON* data = expect_success(created, 201, "Category created");
  expect_category(data, s.tenant, "By member", std::nullopt, true);
  std::string path = std::string(kBase) + "/" + to_string(int_of(data, "id"));

  HttpResponse list = http("GET", kBase, m.call());
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(int_of(list["data"], "total"), 1);
  expect_category(expect_success(http("PATCH", path, m.call()), 200, "Category hidden"), s.tenant,
                  "By member", std::nullopt, false);
  expect_category(
      expect_success(http("POST", path, m.call(R"({"description":"d"})")), 200, "Category updated"),
      s.tenant, "By member", "d", false);
  expect_body(http("DELETE", path, m.call()), 200,
              R"({"success":true,"message":"Category deleted"})");
}

TEST(Categories, EveryEndpointChecksTokenThenTenantHeader) {
  std::string admin = admin_token();
  Scope s = fresh_scope(admin);
  Scope stranger_tenant = fresh_scope(admin);
  TestUser outsider = add_user(admin, stranger_tenant.tenant, "ADMIN");
  int64_t id = create_category(s, "Guarded");
  std::string before = catalog_snapshot(s.tenant);
  std::string item = std::string(kBase) + "/" + to_string(id);
  std::vector<GuardedCall> endpoints = {
      {"GET", kBase, std::nullopt},
      // Bad paging is still refused for access first (the page is read in
      // the same round trip as the access check).
      {"GET", std::string(kBase) + "?page=0", std::nullopt},
      {"POST", std::string(kBase) + "/create", R"({"name":"Intruder"})"},
      {"PATCH", item, std::nullopt},
      {"POST", item, R"({"name":"Intruder"})"},
      {"DELETE", item, std::nullopt},
  };
  for (const GuardedCall& e : endpoints) {
    expect_tenant_guards(e.method, e.path, e.body, s, outsider.token);
  }
  // The tenant check comes before validation.
  expect_body(http("POST", std::string(kBase) + "/create",
                   {.token = outsider.token, .tenant = s.tid(), .body = "{}"}),
              403, R"({"error":"You are not a member of this tenant"})");
  EXPECT_EQ(catalog_snapshot(s.tenant), before);
}

TEST(Categories, UnknownMethodsAndNonIntegerIdsAreRoutedAway) {
  Scope s = fresh_scope(admin_token());
  HttpResponse wrong = http("PUT", std::string(kBase) + "/1", s.call("{}"));
  EXPECT_EQ(wrong.status, 405) << wrong.body;
  EXPECT_EQ(wrong.headers["allow"], "PATCH, POST, DELETE");
  expect_body(http("PATCH", std::string(kBase) + "/abc", s.call()), 404,
              R"({"error":"Not found"})");
}

}  // namespace
}  // namespace ca::test
