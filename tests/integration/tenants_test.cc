// Tenants: create, list only mine, read (404 vs 403), ADMIN-only update with
// settings (docs/design/api-conventions.md "Tenants").
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "stack.h"

namespace ca::test {
namespace {

const char* kTenants = "/api/v2/admin/tenants";

std::string tenant_path(int64_t id) { return std::string(kTenants) + "/" + to_string(id); }

HttpResponse update(const std::string& token, int64_t id, const std::string& body) {
  return http("POST", tenant_path(id), {.token = token, .body = body});
}

const std::vector<std::string> kTenantKeys{"created_at", "id", "name", "settings", "updated_at"};

std::string invalid(const std::string& errors) {
  return R"({"message":"The given data was invalid.","errors":)" + errors + "}";
}

// --- create ------------------------------------------------------------------------------

TEST(TenantsTest, CreateReturns201TenantWithTrimmedName) {
  std::string token = admin_token();
  std::string name = unique("Acme Store");
  HttpResponse r =
      http("POST", kTenants, {.token = token, .body = R"({"name":"  )" + name + R"( "})"});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.headers["content-type"], "application/json; charset=utf-8");
  EXPECT_EQ(json_keys(r.json.get()), kTenantKeys);
  EXPECT_GT(r.integer("id"), 0);
  EXPECT_EQ(r.str("name"), name);
  EXPECT_TRUE(json_eq(r["settings"], "{}"));
  EXPECT_TRUE(is_timestamp(r["created_at"])) << r.body;
  EXPECT_TRUE(is_timestamp(r["updated_at"])) << r.body;
  EXPECT_EQ(r.str("created_at"), r.str("updated_at"));

  // The creator is its ADMIN, and it becomes their current tenant.
  int64_t id = r.integer("id");
  EXPECT_EQ(sql("SELECT role FROM memberships WHERE tenant_id = " + to_string(id)),
            (std::vector<std::string>{"ADMIN"}));
  HttpResponse me = login_response(admin_email(), admin_password());
  EXPECT_EQ(json_get_int(me["user"], "tenant_id"), id);
}

TEST(TenantsTest, CreatedTenantIsListedWithRoleAdminAndReadsTheSame) {
  std::string token = admin_token();
  HttpResponse created =
      http("POST", kTenants, {.token = token, .body = R"({"name":")" + unique("Listed") + R"("})"});
  ASSERT_EQ(created.status, 201) << created.body;
  int64_t id = created.integer("id");

  HttpResponse list = http("GET", kTenants, {.token = token});
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(json_keys(list.json.get()), (std::vector<std::string>{"tenants"}));
  const cJSON* found = nullptr;
  int64_t previous = 0;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, list["tenants"]) {
    int64_t tid = json_get_int(item, "id").value_or(0);
    EXPECT_GT(tid, previous) << "ordered by id";
    previous = tid;
    if (tid == id) found = item;
  }
  ASSERT_NE(found, nullptr) << list.body;
  EXPECT_EQ(json_keys(found), (std::vector<std::string>{"created_at", "id", "name", "role",
                                                        "settings", "updated_at"}));
  EXPECT_EQ(json_get_str(found, "role").value_or(""), "ADMIN");
  EXPECT_EQ(json_get_str(found, "name").value_or(""), created.str("name"));

  HttpResponse read = http("GET", tenant_path(id), {.token = token});
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_TRUE(json_eq(read.json.get(), created.body));
}

TEST(TenantsTest, CreateNameLengthIsCountedInCharacters) {
  std::string token = admin_token();
  std::string name255;
  for (int i = 0; i < 255; ++i) name255 += "é";  // 510 bytes, 255 characters
  HttpResponse ok =
      http("POST", kTenants, {.token = token, .body = R"({"name":")" + name255 + R"("})"});
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(ok.str("name"), name255);

  HttpResponse too_long =
      http("POST", kTenants, {.token = token, .body = R"({"name":")" + name255 + R"(x"})"});
  EXPECT_EQ(too_long.status, 422);
  EXPECT_TRUE(
      json_eq(too_long.json.get(),
              invalid(R"({"name":["The name field must not be greater than 255 characters."]})")));
}

TEST(TenantsTest, CreateValidationErrors) {
  std::string token = admin_token();
  const std::string required = invalid(R"({"name":["The name field is required."]})");
  for (const char* body : {"{}", R"({"name":null})", R"({"name":""})", R"({"name":"  \t "})"}) {
    HttpResponse r = http("POST", kTenants, {.token = token, .body = body});
    EXPECT_EQ(r.status, 422) << body;
    EXPECT_TRUE(json_eq(r.json.get(), required)) << body;
  }
  HttpResponse number = http("POST", kTenants, {.token = token, .body = R"({"name":42})"});
  EXPECT_EQ(number.status, 422);
  EXPECT_TRUE(
      json_eq(number.json.get(), invalid(R"({"name":["The name field must be a string."]})")));

  HttpResponse not_object = http("POST", kTenants, {.token = token, .body = R"(["name"])"});
  EXPECT_EQ(not_object.status, 400);
  EXPECT_EQ(not_object.body, R"({"error":"Request body must be a JSON object"})");
}

TEST(TenantsTest, CreateChecksTheTokenBeforeTheBody) {
  EXPECT_TRUE(is_unauthenticated(http("POST", kTenants, {.body = "not json"})));
  EXPECT_TRUE(is_unauthenticated(http("POST", kTenants, {.token = "bad", .body = "{}"})));
}

// --- list ---------------------------------------------------------------------------------

TEST(TenantsTest, ListShowsOnlyMyTenantsWithMyRole) {
  std::string admin = admin_token();
  int64_t shared = create_tenant(admin, unique("Shared"));
  int64_t admin_only = create_tenant(admin, unique("Admin only"));
  TestUser u = add_user(admin, shared, "MEMBER");
  int64_t own = create_tenant(u.token, unique("User own"));

  HttpResponse list = http("GET", kTenants, {.token = u.token});
  ASSERT_EQ(list.status, 200) << list.body;
  std::vector<std::pair<int64_t, std::string>> got;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, list["tenants"]) {
    got.emplace_back(json_get_int(item, "id").value_or(0),
                     std::string(json_get_str(item, "role").value_or("")));
  }
  EXPECT_EQ(got,
            (std::vector<std::pair<int64_t, std::string>>{{shared, "MEMBER"}, {own, "ADMIN"}}));
  (void)admin_only;

  // The admin does not see the user's own tenant.
  HttpResponse admin_list = http("GET", kTenants, {.token = admin});
  ASSERT_EQ(admin_list.status, 200);
  cJSON_ArrayForEach(item, admin_list["tenants"]) {
    EXPECT_NE(json_get_int(item, "id").value_or(0), own);
  }
}

TEST(TenantsTest, ListOfAUserWithoutTenantsIsEmpty) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Temporary"));
  TestUser u = add_user(admin, t, "MEMBER");
  ASSERT_EQ(http("DELETE", "/api/v2/admin/team-members/" + to_string(t) + "/" + to_string(u.id),
                 {.token = admin})
                .status,
            200);
  HttpResponse list = http("GET", kTenants, {.token = u.token});
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.body, R"({"tenants":[]})");
}

// --- read ---------------------------------------------------------------------------------

TEST(TenantsTest, ReadNonexistentIs404AndNotAMemberIs403) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Private"));
  TestUser outsider = add_user(admin, create_tenant(admin, unique("Other")), "MEMBER");

  HttpResponse missing = http("GET", tenant_path(9223372036854775807), {.token = admin});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"Tenant not found"})");

  HttpResponse forbidden = http("GET", tenant_path(t), {.token = outsider.token});
  EXPECT_EQ(forbidden.status, 403);
  EXPECT_EQ(forbidden.body, R"({"error":"You are not a member of this tenant"})");

  // No token comes first, whether or not the tenant exists.
  EXPECT_TRUE(is_unauthenticated(http("GET", tenant_path(t))));
  EXPECT_TRUE(is_unauthenticated(http("GET", tenant_path(9223372036854775807))));
}

TEST(TenantsTest, ReadByAMemberWorks) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Readable"));
  TestUser member = add_user(admin, t, "MEMBER");
  HttpResponse r = http("GET", tenant_path(t), {.token = member.token});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.integer("id"), t);
  EXPECT_EQ(json_keys(r.json.get()), kTenantKeys);
}

TEST(TenantsTest, NonIntegerIdsAreUnknownRoutes) {
  std::string token = admin_token();
  for (const char* id : {"abc", "0", "-1", "01", "1.5", "99999999999999999999"}) {
    HttpResponse r = http("GET", std::string(kTenants) + "/" + id, {.token = token});
    EXPECT_EQ(r.status, 404) << id;
    EXPECT_EQ(r.body, R"({"error":"Not found"})") << id;
  }
}

// --- update -------------------------------------------------------------------------------

TEST(TenantsTest, AdminRenamesTheTenant) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Before"));
  HttpResponse before = http("GET", tenant_path(t), {.token = admin});
  std::string name = unique("After");
  HttpResponse r = update(admin, t, R"({"name":"  )" + name + R"(  "})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_keys(r.json.get()), kTenantKeys);
  EXPECT_EQ(r.integer("id"), t);
  EXPECT_EQ(r.str("name"), name);
  EXPECT_TRUE(json_eq(r["settings"], "{}"));
  EXPECT_EQ(r.str("created_at"), before.str("created_at"));
  EXPECT_TRUE(is_timestamp(r["updated_at"]));
  EXPECT_GT(r.str("updated_at"), before.str("updated_at"));
  EXPECT_TRUE(json_eq(http("GET", tenant_path(t), {.token = admin}).json.get(), r.body));
}

TEST(TenantsTest, SettingsAreShallowMergedAndNullRemovesAKey) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Settings"));
  std::string name = http("GET", tenant_path(t), {.token = admin}).str("name");

  HttpResponse first = update(admin, t,
                              R"({"settings":{"currency":"EUR","timezone":"Europe/Paris",
                                  "locale":"pt-BR","banner":{"text":"hi"},"limit":5}})");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.str("name"), name);  // untouched
  EXPECT_TRUE(json_eq(first["settings"], R"({"currency":"EUR","timezone":"Europe/Paris",
                                             "locale":"pt-BR","banner":{"text":"hi"},"limit":5})"));

  HttpResponse second =
      update(admin, t, R"({"settings":{"banner":null,"currency":"USD","absent":null,"new":true}})");
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_TRUE(json_eq(second["settings"], R"({"currency":"USD","timezone":"Europe/Paris",
                                              "locale":"pt-BR","limit":5,"new":true})"));

  // Name and settings together; an empty settings object changes nothing.
  HttpResponse both = update(admin, t, R"({"name":"Renamed","settings":{}})");
  ASSERT_EQ(both.status, 200) << both.body;
  EXPECT_EQ(both.str("name"), "Renamed");
  EXPECT_TRUE(json_eq(both["settings"], json_dump(second["settings"])));

  // Every member sees the settings in list and read.
  HttpResponse read = http("GET", tenant_path(t), {.token = admin});
  EXPECT_TRUE(json_eq(read.json.get(), both.body));
}

// Settings are stored as jsonb, which keeps a number as a numeric and writes
// it out in full (1e300 as 301 digits, 0.00001 as such); they come back as
// the API has always printed them (cJSON's form, sql/030 ca_json_number):
// the exponent form below 1e-4 and from 1e15, 17 digits where 15 do not
// keep the double, members in jsonb's order (by length, then bytes), no spaces.
TEST(TenantsTest, SettingsNumbersComeBackInTheirJsonForm) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Numbers"));
  HttpResponse r = update(admin, t,
                          R"({"settings":{"big":1e300,"small":0.00001,"third":0.3333333333333333,
                              "x":1.5e15,"n":-42,"i":2147483648,"neg":-2.5e-7,"half":2.50,
                              "list":[1e-5,{"deep":1e21}]}})");
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string settings =
      R"("settings":{"i":2147483648,"n":-42,"x":1.5e+15,"big":1e+300,"neg":-2.5e-07,"half":2.5,)"
      R"("list":[1e-05,{"deep":1e+21}],"small":1e-05,"third":0.33333333333333331})";
  EXPECT_NE(r.body.find(settings), std::string::npos) << r.body;
  HttpResponse read = http("GET", tenant_path(t), {.token = admin});
  EXPECT_NE(read.body.find(settings), std::string::npos) << read.body;
}

TEST(TenantsTest, KnownSettingsAreValidated) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Validated"));
  ASSERT_EQ(update(admin, t, R"({"settings":{"currency":"EUR"}})").status, 200);

  struct Case {
    const char* settings;
    const char* key;
    const char* message;
  };
  const char* kCurrency = "The settings.currency field must be an ISO 4217 code such as EUR.";
  const char* kTimezone =
      "The settings.timezone field must be an IANA time zone such as Europe/Paris.";
  const char* kLocale = "The settings.locale field must be a locale such as en or pt-BR.";
  for (const Case& c : std::vector<Case>{
           {R"({"currency":"eur"})", "settings.currency", kCurrency},
           {R"({"currency":"EURO"})", "settings.currency", kCurrency},
           {R"({"currency":"E1R"})", "settings.currency", kCurrency},
           {R"({"currency":978})", "settings.currency", kCurrency},
           {R"({"timezone":"Mars/Olympus_Mons"})", "settings.timezone", kTimezone},
           {R"({"timezone":""})", "settings.timezone", kTimezone},
           {R"({"timezone":3})", "settings.timezone", kTimezone},
           {R"({"locale":"english"})", "settings.locale", kLocale},
           {R"({"locale":"EN"})", "settings.locale", kLocale},
           {R"({"locale":"en_US"})", "settings.locale", kLocale},
           {R"({"locale":"en-us"})", "settings.locale", kLocale},
       }) {
    HttpResponse r = update(admin, t, std::string(R"({"settings":)") + c.settings + "}");
    EXPECT_EQ(r.status, 422) << c.settings;
    EXPECT_TRUE(json_eq(r.json.get(),
                        invalid(std::string(R"({")") + c.key + R"(":[")" + c.message + R"("]})")))
        << c.settings;
  }
  // Valid forms of each.
  HttpResponse ok = update(admin, t, R"({"settings":{"timezone":"America/Argentina/Buenos_Aires",
                                                     "locale":"zh-Hant","currency":"JPY"}})");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(update(admin, t, R"({"settings":{"locale":"en"}})").status, 200);
  EXPECT_EQ(update(admin, t, R"({"settings":{"timezone":"UTC"}})").status, 200);
}

TEST(TenantsTest, EveryInvalidFieldIsReportedAndNothingChanges) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Atomic"));
  ASSERT_EQ(update(admin, t, R"({"settings":{"currency":"EUR"}})").status, 200);
  HttpResponse before = http("GET", tenant_path(t), {.token = admin});

  HttpResponse r = update(admin, t,
                          R"({"name":")" + std::string(256, 'n') +
                              R"(","settings":{"currency":"x","timezone":"Nowhere/City",
                                        "locale":"??","fine":1}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(json_eq(r.json.get(), invalid(R"({
      "name":["The name field must not be greater than 255 characters."],
      "settings.currency":["The settings.currency field must be an ISO 4217 code such as EUR."],
      "settings.timezone":["The settings.timezone field must be an IANA time zone such as Europe/Paris."],
      "settings.locale":["The settings.locale field must be a locale such as en or pt-BR."]})")));
  EXPECT_TRUE(json_eq(http("GET", tenant_path(t), {.token = admin}).json.get(), before.body));
}

TEST(TenantsTest, UpdateNeedsNameOrSettings) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Empty update"));
  HttpResponse r = update(admin, t, "{}");
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(
      json_eq(r.json.get(),
              invalid(R"({"name":["The name field is required when settings is not present."]})")));

  HttpResponse other = update(admin, t, R"({"description":"not a tenant field"})");
  EXPECT_EQ(other.status, 422);

  HttpResponse blank = update(admin, t, R"({"name":"   "})");
  EXPECT_EQ(blank.status, 422);
  EXPECT_TRUE(
      json_eq(blank.json.get(), invalid(R"({"name":["The name field must not be empty."]})")));

  HttpResponse null_name = update(admin, t, R"({"name":null})");
  EXPECT_EQ(null_name.status, 422);
  EXPECT_TRUE(
      json_eq(null_name.json.get(), invalid(R"({"name":["The name field must not be null."]})")));

  HttpResponse bad_settings = update(admin, t, R"({"settings":"currency=EUR"})");
  EXPECT_EQ(bad_settings.status, 422);
  EXPECT_TRUE(json_eq(bad_settings.json.get(),
                      invalid(R"({"settings":["The settings field must be an object."]})")));

  HttpResponse array_settings = update(admin, t, R"({"settings":["EUR"]})");
  EXPECT_EQ(array_settings.status, 422);
  EXPECT_TRUE(json_eq(array_settings.json.get(),
                      invalid(R"({"settings":["The settings field must be an object."]})")));
}

TEST(TenantsTest, OversizeSettingsAre422) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Big settings"));
  const std::string message =
      invalid(R"({"settings":["The settings field must not be larger than 16384 bytes."]})");

  HttpResponse r =
      update(admin, t, R"({"settings":{"blob":")" + std::string(17000, 'x') + R"("}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(json_eq(r.json.get(), message));

  // Each half fits; merged they do not, which the database's check catches.
  ASSERT_EQ(update(admin, t, R"({"settings":{"a":")" + std::string(9000, 'x') + R"("}})").status,
            200);
  HttpResponse merged =
      update(admin, t, R"({"settings":{"b":")" + std::string(9000, 'y') + R"("}})");
  EXPECT_EQ(merged.status, 422) << merged.body.substr(0, 200);
  EXPECT_TRUE(json_eq(merged.json.get(), message));
  HttpResponse read = http("GET", tenant_path(t), {.token = admin});
  EXPECT_EQ(json_keys(read["settings"]), (std::vector<std::string>{"a"}));
}

// The limit counts compact JSON (no space after ':' and ','), sent and merged.
TEST(TenantsTest, TheSettingsLimitCountsCompactJson) {
  std::string admin = admin_token();
  // 1,500 keys: 15,001 bytes compact, 18,000 as PostgreSQL prints jsonb.
  int64_t many = create_tenant(admin, unique("Many keys"));
  std::string keys;
  for (int i = 0; i < 1500; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "\"k%04d\":1", i);
    keys += (i ? "," : "") + std::string(key);
  }
  HttpResponse r = update(admin, many, R"({"settings":{)" + keys + "}}");
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 200);
  EXPECT_EQ(json_keys(r["settings"]).size(), 1500u);

  // Merged exactly at the limit: {"a":"<8000>","b":"<8369>"} is 16384 bytes.
  int64_t t = create_tenant(admin, unique("Compact limit"));
  ASSERT_EQ(update(admin, t, R"({"settings":{"a":")" + std::string(8000, 'x') + R"("}})").status,
            200);
  HttpResponse at = update(admin, t, R"({"settings":{"b":")" + std::string(8369, 'y') + R"("}})");
  EXPECT_EQ(at.status, 200) << at.body.substr(0, 200);
  EXPECT_EQ(sql("SELECT octet_length(settings::text) FROM tenants WHERE id = " + to_string(t)),
            (std::vector<std::string>{"16387"}));
  HttpResponse over = update(admin, t, R"({"settings":{"b":")" + std::string(8370, 'y') + R"("}})");
  EXPECT_EQ(over.status, 422) << over.body.substr(0, 200);
  EXPECT_TRUE(json_eq(
      over.json.get(),
      invalid(R"({"settings":["The settings field must not be larger than 16384 bytes."]})")));
  EXPECT_EQ(sql("SELECT length(settings->>'b') FROM tenants WHERE id = " + to_string(t)),
            (std::vector<std::string>{"8369"}));
}

// A number beyond a double (1e400) would be stored as null, and a nonzero one
// below its normal range (1e-400, 1e-320) as 0 or with digits lost: refused
// instead. Zero written with any exponent, and the smallest normal double, are
// numbers like any other.
TEST(TenantsTest, SettingsNumbersBeyondADoubleAre422) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Huge numbers"));
  ASSERT_EQ(update(admin, t, R"({"settings":{"keep":1}})").status, 200);
  HttpResponse r = update(admin, t,
                          R"({"settings":{"big":1e400,"deep":{"x":[1,-1e999]},)"
                          R"("fine":1e308,"tiny":1e-400,"sub":[-1e-320],)"
                          R"("zero":-0.0e-999,"least":2.2250738585072014e-308}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(json_eq(r.json.get(), invalid(R"({
      "settings.big":["The settings.big field must not hold a number beyond 1.8e308, or a nonzero one below 2.2250738585072014e-308 in magnitude."],
      "settings.deep":["The settings.deep field must not hold a number beyond 1.8e308, or a nonzero one below 2.2250738585072014e-308 in magnitude."],
      "settings.tiny":["The settings.tiny field must not hold a number beyond 1.8e308, or a nonzero one below 2.2250738585072014e-308 in magnitude."],
      "settings.sub":["The settings.sub field must not hold a number beyond 1.8e308, or a nonzero one below 2.2250738585072014e-308 in magnitude."]})")))
      << r.body;
  EXPECT_EQ(sql("SELECT settings::text FROM tenants WHERE id = " + to_string(t)),
            (std::vector<std::string>{R"({"keep": 1})"}));
}

TEST(TenantsTest, UpdateIsAdminOnly) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Guarded"));
  TestUser member = add_user(admin, t, "MEMBER");
  TestUser outsider = add_user(admin, create_tenant(admin, unique("Elsewhere")), "ADMIN");

  HttpResponse r = update(member.token, t, R"({"name":"Hijacked"})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"error":"This action requires the ADMIN role"})");
  // The role is checked before the body.
  HttpResponse invalid_body = update(member.token, t, "not json");
  EXPECT_EQ(invalid_body.status, 403);

  HttpResponse not_member = update(outsider.token, t, R"({"name":"Hijacked"})");
  EXPECT_EQ(not_member.status, 403);
  EXPECT_EQ(not_member.body, R"({"error":"You are not a member of this tenant"})");

  HttpResponse missing = update(admin, 9223372036854775807, R"({"name":"Ghost"})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"Tenant not found"})");

  EXPECT_TRUE(is_unauthenticated(update("", t, R"({"name":"Anon"})")));
  EXPECT_NE(http("GET", tenant_path(t), {.token = admin}).str("name"), "Hijacked");
}

TEST(TenantsTest, PromotedMemberCanUpdate) {
  std::string admin = admin_token();
  int64_t t = create_tenant(admin, unique("Promotion"));
  TestUser member = add_user(admin, t, "MEMBER");
  ASSERT_EQ(http("POST", "/api/v2/admin/team-members/" + to_string(t) + "/" + to_string(member.id),
                 {.token = admin, .body = R"({"role":"ADMIN"})"})
                .status,
            200);
  // The same token: roles are looked up per request, not baked into the token.
  HttpResponse r = update(member.token, t, R"({"name":"By the new admin"})");
  EXPECT_EQ(r.status, 200) << r.body;
}

}  // namespace
}  // namespace ca::test
