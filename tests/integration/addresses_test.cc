// Addresses (docs/design/api-conventions.md "Addresses"): per user, no tenant header; each user
// sees and uses only their own.
#include <gtest/gtest.h>

#include <string>

#include "stack.h"

namespace ca::test {
namespace {

const std::string kPath = "/api/v2/admin/addresses";

std::string created_at(int64_t id) {
  auto rows = sql("SELECT ca_ts(created_at) FROM addresses WHERE id = " + to_string(id));
  return rows.empty() ? "<no row>" : rows[0];
}

TEST(Addresses, CreateReturnsTheAddressAndListShowsOnlyTheCallersOwn) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("addr"));
  TestUser a = add_user(admin, tenant);
  TestUser b = add_user(admin, tenant);

  HttpResponse first = http("POST", kPath,
                            {.token = a.token,
                             .body = R"({"street":"  Main Street 1 ","city":"Berlin",)"
                                     R"("country":"DE","postal_code":"10115"})"});
  ASSERT_EQ(first.status, 201) << first.body;
  int64_t id1 = first.integer("id");
  // Values are trimmed.
  expect_json(first, R"({"id":)" + to_string(id1) +
                         R"(,"street":"Main Street 1","city":"Berlin","country":"DE",)"
                         R"("postal_code":"10115","created_at":")" +
                         created_at(id1) + R"("})");
  HttpResponse second = http("POST", kPath,
                             {.token = a.token,
                              .body = R"({"street":"Rue de Rivoli 5","city":"Paris",)"
                                      R"("country":"France","postal_code":"75001"})"});
  ASSERT_EQ(second.status, 201) << second.body;
  int64_t id2 = second.integer("id");
  HttpResponse other = http("POST", kPath,
                            {.token = b.token,
                             .body = R"({"street":"Elm 2","city":"Oslo","country":"NO",)"
                                     R"("postal_code":"0150"})"});
  ASSERT_EQ(other.status, 201) << other.body;
  int64_t id3 = other.integer("id");

  HttpResponse list_a = http("GET", kPath, {.token = a.token});
  ASSERT_EQ(list_a.status, 200) << list_a.body;
  expect_json(list_a, R"({"data":[{"id":)" + to_string(id1) +
                          R"(,"street":"Main Street 1","city":"Berlin","country":"DE",)"
                          R"("postal_code":"10115","created_at":")" +
                          created_at(id1) + R"("},{"id":)" + to_string(id2) +
                          R"(,"street":"Rue de Rivoli 5","city":"Paris","country":"France",)"
                          R"("postal_code":"75001","created_at":")" +
                          created_at(id2) + R"("}]})");
  HttpResponse list_b = http("GET", kPath, {.token = b.token});
  ASSERT_EQ(list_b.status, 200) << list_b.body;
  expect_json(list_b, R"({"data":[{"id":)" + to_string(id3) +
                          R"(,"street":"Elm 2","city":"Oslo","country":"NO",)"
                          R"("postal_code":"0150","created_at":")" +
                          created_at(id3) + R"("}]})");
}

TEST(Addresses, NeedNoTenantHeaderAndIgnoreOne) {
  std::string admin = admin_token();
  int64_t tenant = create_tenant(admin, unique("addr"));
  TestUser a = add_user(admin, tenant);
  HttpResponse r = http("POST", kPath,
                        {.token = a.token,
                         .tenant = "garbage",
                         .body = R"({"street":"S","city":"C","country":"DE","postal_code":"1"})"});
  EXPECT_EQ(r.status, 201) << r.body;
}

TEST(Addresses, ValidationReportsEveryFailingField) {
  std::string token = admin_token();
  HttpResponse empty = http("POST", kPath, {.token = token, .body = "{}"});
  EXPECT_EQ(empty.status, 422);
  expect_json(empty, R"({"message":"The given data was invalid.","errors":{)"
                     R"("street":["The street field is required."],)"
                     R"("city":["The city field is required."],)"
                     R"("country":["The country field is required."],)"
                     R"("postal_code":["The postal_code field is required."]}})");

  std::string long_street(256, 's');
  std::string long_country(101, 'c');
  HttpResponse bounds =
      http("POST", kPath,
           {.token = token,
            .body = R"({"street":")" + long_street + R"(","city":"   ","country":")" +
                    long_country + R"(","postal_code":"123456789012345678901"})"});
  EXPECT_EQ(bounds.status, 422);
  expect_json(
      bounds,
      R"({"message":"The given data was invalid.","errors":{)"
      R"("street":["The street field must not be greater than 255 characters."],)"
      R"("city":["The city field is required."],)"
      R"("country":["The country field must not be greater than 100 characters."],)"
      R"("postal_code":["The postal_code field must not be greater than 20 characters."]}})");

  HttpResponse types =
      http("POST", kPath,
           {.token = token, .body = R"({"street":1,"city":null,"country":"D","postal_code":[]})"});
  EXPECT_EQ(types.status, 422);
  expect_json(types, R"({"message":"The given data was invalid.","errors":{)"
                     R"("street":["The street field must be a string."],)"
                     R"("city":["The city field is required."],)"
                     R"("country":["The country field must be at least 2 characters."],)"
                     R"("postal_code":["The postal_code field must be a string."]}})");

  HttpResponse not_object = http("POST", kPath, {.token = token, .body = "[1]"});
  EXPECT_EQ(not_object.status, 400);
  expect_json(not_object, R"({"error":"Request body must be a JSON object"})");
}

TEST(Addresses, NeedAToken) {
  HttpResponse list = http("GET", kPath);
  EXPECT_EQ(list.status, 401);
  expect_json(list, R"({"error":"Unauthenticated"})");
  HttpResponse create =
      http("POST", kPath,
           {.token = "not-a-token",
            .body = R"({"street":"S","city":"C","country":"DE","postal_code":"1"})"});
  EXPECT_EQ(create.status, 401);
  expect_json(create, R"({"error":"Unauthenticated"})");
}

}  // namespace
}  // namespace ca::test
