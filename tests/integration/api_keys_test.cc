// API keys (issue 40; docs/openapi.yaml "API keys") through nginx: create,
// list and revoke; the key shown once and only its hash stored; a revoked
// key refused on the very next request; scopes (`:write` implies `:read`,
// outside them 403), the endpoints no key reaches, another tenant's data,
// bad keys; every 422; the cap per tenant; last_used_at without a write per
// request; /metrics by outcome.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "api_key.h"
#include "stack.h"

namespace ca::test {
namespace {

std::string keys_path(int64_t tenant) { return "/api/v2/admin/api-keys/" + to_string(tenant); }

void expect_invalid(const HttpResponse& r, const std::string& errors) {
  expect_body(r, 422, R"({"message":"The given data was invalid.","errors":)" + errors + "}");
}

constexpr const char* kRefusesKeys = R"({"error":"API keys cannot be used for this endpoint"})";
constexpr const char* kOtherTenant = R"({"error":"This API key belongs to another tenant"})";
std::string outside(const std::string& scope) {
  return R"({"error":"This API key does not have the )" + scope + R"( scope"})";
}

struct Key {
  int64_t id = 0;
  std::string key;
  HttpResponse created;
};

// POST /api-keys/{tenant} as `token` (asserts 201).
Key create_key(const std::string& token, int64_t tenant, const std::string& scopes,
               const std::string& name = "ERP sync") {
  Key k;
  k.created = http(
      "POST", keys_path(tenant),
      {.token = token, .body = R"({"name":)" + json_text(name) + R"(,"scopes":)" + scopes + "}"});
  EXPECT_EQ(k.created.status, 201) << k.created.body;
  k.id = k.created.integer("id");
  k.key = k.created.str("key");
  return k;
}

// A call with the key on the X-Tenant-ID tenant `tenant`.
Call with_key(const std::string& key, int64_t tenant, std::optional<std::string> body = {}) {
  return {.token = key, .tenant = to_string(tenant), .body = std::move(body)};
}

std::string last_used(int64_t tenant, int64_t id) {
  return sql_one("SELECT last_used_at FROM api_keys WHERE tenant_id = " + to_string(tenant) +
                 " AND id = " + to_string(id));
}

int64_t create_product(const Call& call, const std::string& name = "Shirt") {
  Call c = call;
  c.body = R"({"name":)" + json_text(name) + R"(,"price":4.5})";
  HttpResponse r = http("POST", "/api/v2/admin/products", c);
  EXPECT_EQ(r.status, 201) << r.body;
  return r.integer("id");
}

TEST(ApiKeys, CreateShowsTheKeyOnceAndTheListNever) {
  Scope s = fresh_scope(admin_token());
  const int64_t admin_id = token_user_id(s.token);
  Key k = create_key(s.token, s.tenant, R"(["products:read","orders:write"])");
  const cJSON* body = k.created.json.get();
  EXPECT_EQ(json_keys(body),
            (std::vector<std::string>{"created_at", "created_by", "id", "key", "key_prefix",
                                      "last_used_at", "name", "scopes"}))
      << k.created.body;
  EXPECT_GT(k.id, 0);
  EXPECT_EQ(k.created.str("name"), "ERP sync");
  EXPECT_TRUE(json_eq(json_get(body, "scopes"), R"(["products:read","orders:write"])"));
  EXPECT_EQ(k.created.integer("created_by"), admin_id);
  EXPECT_TRUE(is_timestamp(json_get(body, "created_at")));
  EXPECT_TRUE(cJSON_IsNull(json_get(body, "last_used_at")));
  // cak_<tenant>_<id>_<creator>_<64 hex>; key_prefix is its start.
  auto parts = api_key_parse(k.key);
  ASSERT_TRUE(parts.has_value()) << k.key;
  EXPECT_EQ(parts->tenant_id, s.tenant);
  EXPECT_EQ(parts->key_id, k.id);
  EXPECT_EQ(parts->creator_id, admin_id);
  const std::string prefix = k.created.str("key_prefix");
  EXPECT_EQ(prefix, "cak_" + s.tid() + "_" + to_string(k.id) + "_" + to_string(admin_id) + "_" +
                        parts->secret.substr(0, 6));
  EXPECT_EQ(k.key.rfind(prefix, 0), 0u);

  Key second = create_key(s.token, s.tenant, R"(["events:read"])", "  Storefront  ");
  EXPECT_EQ(second.created.str("name"), "Storefront");  // trimmed
  EXPECT_NE(second.key, k.key);

  // The list: the keys without `key`, oldest first, paginated.
  HttpResponse list = http("GET", keys_path(s.tenant), {.token = s.token});
  ASSERT_EQ(list.status, 200) << list.body;
  std::string first = k.created.body;
  first.erase(first.find(R"(,"key":")"), std::string(R"(,"key":")").size() + k.key.size() + 1);
  std::string other = second.created.body;
  other.erase(other.find(R"(,"key":")"), std::string(R"(,"key":")").size() + second.key.size() + 1);
  expect_body(list, 200,
              R"({"data":[)" + first + "," + other +
                  R"(],"current_page":1,"last_page":1,"per_page":15,"total":2})");
  EXPECT_EQ(list.body.find(k.key), std::string::npos);
  expect_body(
      http("GET", keys_path(s.tenant) + "?per_page=1&page=2", {.token = s.token}), 200,
      R"({"data":[)" + other + R"(],"current_page":2,"last_page":2,"per_page":1,"total":2})");
}

TEST(ApiKeys, OnlyTheHashOfTheSecretIsStoredAndNoLogHoldsIt) {
  Scope s = fresh_scope(admin_token());
  Key k = create_key(s.token, s.tenant, R"(["products:read"])");
  auto parts = api_key_parse(k.key);
  ASSERT_TRUE(parts.has_value());
  const std::string where = " FROM api_keys WHERE tenant_id = " + s.tid();
  EXPECT_EQ(sql_one("SELECT '\\x' || encode(key_hash, 'hex')" + where),
            api_key_secret_hash(parts->secret));
  // No column holds the secret (beyond the six digits of key_prefix), nor
  // does a stored idempotent answer of the tenant. (Compared here: a
  // statement holding the secret would put it in the coordinator's log.)
  const std::string row = sql_one(
      "SELECT concat_ws('|', id, name, scopes, encode(key_hash, 'hex'), "
      "secret_head, created_by, created_at, last_used_at, revoked_at)" +
      where);
  EXPECT_EQ(row.find(parts->secret.substr(6)), std::string::npos) << row;
  EXPECT_EQ(sql_one("SELECT secret_head" + where), parts->secret.substr(0, 6));
  const std::string stored = sql_one(
      "SELECT coalesce(string_agg(body, '|'), '') FROM idempotency_keys WHERE tenant_id = " +
      s.tid());
  EXPECT_EQ(stored.find(parts->secret), std::string::npos);
  // Used, accepted and refused: no log of the stack (handlers, nginx's
  // access log, PostgreSQL) holds the secret.
  EXPECT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant)).status, 200);
  EXPECT_EQ(http("GET", "/api/v2/admin/orders", with_key(k.key, s.tenant)).status, 403);
  EXPECT_EQ(http("GET", "/api/v2/admin/tenants", with_key(k.key, s.tenant)).status, 403);
  int logs = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(state_dir() + "/log")) {
    if (!entry.is_regular_file()) continue;
    ++logs;
    EXPECT_EQ(file_text(entry.path().string()).find(parts->secret), std::string::npos)
        << entry.path();
  }
  EXPECT_GT(logs, 3);
}

TEST(ApiKeys, AKeyWorksOnItsTenantWithinItsScopesAndWriteImpliesRead) {
  Scope s = fresh_scope(admin_token());
  Key writer = create_key(s.token, s.tenant, R"(["products:write"])");
  Key reader = create_key(s.token, s.tenant, R"(["products:read"])");
  // products:write reads and writes.
  int64_t product = create_product(with_key(writer.key, s.tenant));
  const std::string item = "/api/v2/admin/products/" + to_string(product);
  EXPECT_EQ(http("GET", item, with_key(writer.key, s.tenant)).status, 200);
  EXPECT_EQ(http("POST", item, with_key(writer.key, s.tenant, R"({"stock":3})")).integer("stock"),
            3);
  // products:read reads (one product, the list) but does not write.
  HttpResponse read = http("GET", item, with_key(reader.key, s.tenant));
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.integer("id"), product);
  HttpResponse list = http("GET", "/api/v2/admin/products", with_key(reader.key, s.tenant));
  EXPECT_EQ(list.status, 200) << list.body;
  expect_body(http("POST", "/api/v2/admin/products",
                   with_key(reader.key, s.tenant, R"({"name":"x","price":1})")),
              403, outside("products:write"));
  expect_body(http("POST", item, with_key(reader.key, s.tenant, R"({"stock":1})")), 403,
              outside("products:write"));
  expect_body(http("DELETE", item, with_key(reader.key, s.tenant)), 403, outside("products:write"));
  EXPECT_EQ(sql_one("SELECT stock FROM products WHERE tenant_id = " + s.tid() +
                    " AND id = " + to_string(product)),
            "3");
  // Other resources need their own scope, in each endpoint's error style
  // (403 is {error} in every one).
  expect_body(http("GET", "/api/v2/admin/category", with_key(writer.key, s.tenant)), 403,
              outside("categories:read"));
  expect_body(http("GET", "/api/v2/admin/orders", with_key(writer.key, s.tenant)), 403,
              outside("orders:read"));
  expect_body(http("GET", "/api/v2/admin/announcements", with_key(writer.key, s.tenant)), 403,
              outside("announcements:read"));
  expect_body(http("GET", "/api/v2/admin/webhooks/" + s.tid(), {.token = writer.key}), 403,
              outside("webhooks:read"));
  expect_body(http("GET", "/api/v2/admin/events/" + s.tid(), {.token = writer.key}), 403,
              outside("events:read"));
  // A delete with products:write: the soft delete goes through.
  expect_body(http("DELETE", item, with_key(writer.key, s.tenant)), 200,
              R"({"message":"Product deleted"})");
}

TEST(ApiKeys, EachScopeOpensItsResource) {
  Scope s = fresh_scope(admin_token());
  Key k = create_key(s.token, s.tenant,
                     R"(["categories:write","orders:write","announcements:write",)"
                     R"("webhooks:write","events:read"])");
  HttpResponse category = http("POST", "/api/v2/admin/category/create",
                               with_key(k.key, s.tenant, R"({"name":"Hats"})"));
  EXPECT_EQ(category.status, 201) << category.body;
  EXPECT_EQ(http("GET", "/api/v2/admin/category", with_key(k.key, s.tenant)).status, 200);
  EXPECT_EQ(http("GET", "/api/v2/admin/orders", with_key(k.key, s.tenant)).status, 200);
  HttpResponse announcement =
      http("POST", "/api/v2/admin/announcements",
           with_key(k.key, s.tenant, R"({"title":"Sale","type":"info","status":"draft"})"));
  EXPECT_EQ(announcement.status, 201) << announcement.body;
  // A record that keeps its writer names the key's creator.
  EXPECT_EQ(sql_one("SELECT created_by FROM announcements WHERE tenant_id = " + s.tid()),
            to_string(token_user_id(s.token)));
  EXPECT_EQ(http("GET", "/api/v2/admin/announcements", with_key(k.key, s.tenant)).status, 200);
  EXPECT_EQ(http("GET", "/api/v2/admin/webhooks/" + s.tid(), {.token = k.key}).status, 200);
  EXPECT_EQ(
      http("GET", "/api/v2/admin/webhooks/" + s.tid() + "/deliveries", {.token = k.key}).status,
      200);
  HttpResponse feed = http("GET", "/api/v2/admin/events/" + s.tid(), {.token = k.key});
  EXPECT_EQ(feed.status, 200) << feed.body;
  // orders:write changes an order's status (the order placed by a person).
  HttpResponse address = http("POST", "/api/v2/admin/addresses",
                              {.token = s.token,
                               .body = R"({"street":"Main Street 1","city":"Berlin",)"
                                       R"("country":"DE","postal_code":"10115"})"});
  ASSERT_EQ(address.status, 201) << address.body;
  int64_t product = create_product(s.call());
  HttpResponse order =
      http("POST", "/api/v2/admin/orders",
           s.call(R"({"address_id":)" + to_string(address.integer("id")) +
                  R"(,"payment_type":1,"total_amount":4.5,"order_items":[{"product_id":)" +
                  to_string(product) + R"(,"qty":1,"amount":4.5}]})"));
  ASSERT_EQ(order.status, 201) << order.body;
  const std::string order_path =
      "/api/v2/admin/orders/" + to_string(json_get_int(order["data"], "id").value_or(0));
  HttpResponse status =
      http("POST", order_path + "/status", with_key(k.key, s.tenant, R"({"status":"processing"})"));
  EXPECT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(http("GET", order_path, with_key(k.key, s.tenant)).status, 200);
  // ... but never places one: an order belongs to the user who places it.
  expect_body(http("POST", "/api/v2/admin/orders",
                   with_key(k.key, s.tenant,
                            R"({"address_id":)" + to_string(address.integer("id")) +
                                R"(,"payment_type":1,"total_amount":4.5,"order_items":[]})")),
              403, kRefusesKeys);
}

TEST(ApiKeys, NoKeyReachesTheEndpointsOfPeople) {
  Scope s = fresh_scope(admin_token());
  // Every scope there is: the refusal is the route's, not the key's.
  Key k = create_key(s.token, s.tenant,
                     R"(["products:write","categories:write","orders:write",)"
                     R"("announcements:write","webhooks:write","events:read","audit:read"])");
  const std::string t = s.tid();
  struct Case {
    const char* method;
    std::string path;
    std::optional<std::string> body;
  };
  const std::vector<Case> cases = {
      {"POST", "/api/v2/admin/login", R"({"email":"a@b.c","password":"x"})"},
      {"POST", "/api/v2/admin/logout", std::nullopt},
      {"GET", "/api/v2/admin/tenants", std::nullopt},
      {"POST", "/api/v2/admin/tenants", R"({"name":"Mine"})"},
      {"GET", "/api/v2/admin/tenants/" + t, std::nullopt},
      {"POST", "/api/v2/admin/tenants/" + t, R"({"name":"Renamed"})"},
      {"GET", "/api/v2/admin/team-members/" + t, std::nullopt},
      {"POST", "/api/v2/admin/team-members/" + t, R"({"email":"x@example.com","role":"MEMBER"})"},
      {"GET", "/api/v2/admin/team-members/" + t + "/invitations", std::nullopt},
      {"DELETE", "/api/v2/admin/team-members/" + t + "/invitations/1", std::nullopt},
      {"POST", "/api/v2/admin/team-members/" + t + "/1", R"({"role":"ADMIN"})"},
      {"DELETE", "/api/v2/admin/team-members/" + t + "/1", std::nullopt},
      {"POST", "/api/v2/admin/invitations/accept", R"({"token":"x"})"},
      {"POST", keys_path(s.tenant), R"({"name":"n","scopes":["products:read"]})"},
      {"GET", keys_path(s.tenant), std::nullopt},
      {"DELETE", keys_path(s.tenant) + "/" + to_string(k.id), std::nullopt},
      {"GET", "/api/v2/admin/addresses", std::nullopt},
      {"POST", "/api/v2/admin/addresses",
       R"({"street":"s","city":"c","country":"DE","postal_code":"1"})"},
      {"DELETE", "/api/v2/admin/addresses/1", std::nullopt},
      {"POST", "/api/v2/admin/orders", R"({"order_items":[]})"},
      {"POST", "/api/v2/admin/announcements/1/read", std::nullopt},
      {"POST", "/api/v2/admin/announcements/1/dismiss", std::nullopt},
  };
  for (const Case& c : cases) {
    HttpResponse r = http(c.method, c.path, with_key(k.key, s.tenant, c.body));
    expect_body(r, 403, kRefusesKeys);
    EXPECT_EQ(r.status, 403) << c.method << " " << c.path;
  }
  // Nothing was written: the tenant's name, its keys (only this one, live).
  EXPECT_EQ(sql_one("SELECT name LIKE 'Scoped tenant%' FROM tenants WHERE id = " + t), "t");
  EXPECT_EQ(
      sql_one("SELECT count(*) FROM api_keys WHERE tenant_id = " + t + " AND revoked_at IS NULL"),
      "1");
  // The key still works where it may.
  EXPECT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant)).status, 200);
}

TEST(ApiKeys, AnotherTenantsDataIs403AndItsKeys404) {
  std::string admin = admin_token();
  Scope mine = fresh_scope(admin), theirs = fresh_scope(admin);  // the same ADMIN in both
  Key k = create_key(mine.token, mine.tenant, R"(["products:write","webhooks:read"])");
  // X-Tenant-ID of another tenant (one the creator belongs to, and one that
  // does not exist): 403, not 401.
  expect_body(http("GET", "/api/v2/admin/products", with_key(k.key, theirs.tenant)), 403,
              kOtherTenant);
  expect_body(http("POST", "/api/v2/admin/products",
                   with_key(k.key, theirs.tenant, R"({"name":"x","price":1})")),
              403, kOtherTenant);
  expect_body(http("GET", "/api/v2/admin/products", with_key(k.key, 9000000000000000000)), 403,
              kOtherTenant);
  EXPECT_EQ(sql_one("SELECT count(*) FROM products WHERE tenant_id = " + theirs.tid()), "0");
  // The tenant in the path.
  expect_body(http("GET", "/api/v2/admin/webhooks/" + theirs.tid(), {.token = k.key}), 403,
              kOtherTenant);
  expect_body(http("GET", "/api/v2/admin/webhooks/9000000000000000000", {.token = k.key}), 403,
              kOtherTenant);
  EXPECT_EQ(http("GET", "/api/v2/admin/webhooks/" + mine.tid(), {.token = k.key}).status, 200);
  // Without X-Tenant-ID, the usual 400 once the key has passed.
  expect_body(http("GET", "/api/v2/admin/products", {.token = k.key}), 400,
              R"({"error":"The X-Tenant-ID header is required"})");
  // A key id of another tenant through this one's path: 404, not revoked.
  expect_body(
      http("DELETE", keys_path(theirs.tenant) + "/" + to_string(k.id), {.token = theirs.token}),
      404, R"({"error":"API key not found"})");
  EXPECT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, mine.tenant)).status, 200);
  // Not an ADMIN of the tenant: 403; a tenant that does not exist: 404.
  TestUser member = add_user(mine.token, mine.tenant, "MEMBER");
  expect_body(http("POST", keys_path(mine.tenant),
                   {.token = member.token, .body = R"({"name":"n","scopes":["products:read"]})"}),
              403, R"({"error":"This action requires the ADMIN role"})");
  expect_body(http("GET", keys_path(mine.tenant), {.token = member.token}), 403,
              R"({"error":"This action requires the ADMIN role"})");
  expect_body(
      http("DELETE", keys_path(mine.tenant) + "/" + to_string(k.id), {.token = member.token}), 403,
      R"({"error":"This action requires the ADMIN role"})");
  expect_body(http("GET", keys_path(9000000000000000000), {.token = mine.token}), 404,
              R"({"error":"Tenant not found"})");
  EXPECT_TRUE(is_unauthenticated(http("GET", keys_path(mine.tenant))));
}

TEST(ApiKeys, BadUnknownAlteredAndRevokedKeysAre401) {
  Scope s = fresh_scope(admin_token());
  Key k = create_key(s.token, s.tenant, R"(["products:read"])");
  auto parts = api_key_parse(k.key);
  ASSERT_TRUE(parts.has_value());
  std::string flipped = parts->secret;
  flipped[10] = flipped[10] == 'a' ? 'b' : 'a';
  ApiKeyParts other_id = *parts, other_creator = *parts, wrong_secret = *parts;
  other_id.key_id += 1000;
  other_creator.creator_id += 1;
  wrong_secret.secret = flipped;
  ApiKeyParts other_tenant = *parts;
  other_tenant.tenant_id = create_tenant(s.token, "Other");
  for (const std::string& bad : {
           std::string("cak_"),
           std::string("cak_garbage"),
           k.key + "0",
           k.key.substr(0, k.key.size() - 1),
           api_key_format(other_id),
           api_key_format(other_creator),
           api_key_format(wrong_secret),
           api_key_format(other_tenant),
       }) {
    EXPECT_TRUE(is_unauthenticated(http("GET", "/api/v2/admin/products", with_key(bad, s.tenant))))
        << bad;
    EXPECT_TRUE(is_unauthenticated(
        http("GET", "/api/v2/admin/products", with_key(bad, other_tenant.tenant_id))))
        << bad;
  }
  // Revoked: 401 from the very next request on, on every process of every
  // group (the stack runs two processes per group; no cache anywhere).
  EXPECT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant)).status, 200);
  expect_body(http("DELETE", keys_path(s.tenant) + "/" + to_string(k.id), {.token = s.token}), 200,
              R"({"message":"API key revoked"})");
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(
        is_unauthenticated(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant))));
    EXPECT_TRUE(
        is_unauthenticated(http("GET", "/api/v2/admin/webhooks/" + s.tid(), {.token = k.key})));
  }
  // Revoking again: 200, the first revocation's time kept; the list no longer shows it.
  const std::string revoked_at =
      sql_one("SELECT revoked_at FROM api_keys WHERE tenant_id = " + s.tid() +
              " AND id = " + to_string(k.id));
  expect_body(http("DELETE", keys_path(s.tenant) + "/" + to_string(k.id), {.token = s.token}), 200,
              R"({"message":"API key revoked"})");
  EXPECT_EQ(sql_one("SELECT revoked_at FROM api_keys WHERE tenant_id = " + s.tid() +
                    " AND id = " + to_string(k.id)),
            revoked_at);
  expect_body(http("GET", keys_path(s.tenant), {.token = s.token}), 200,
              R"({"data":[],"current_page":1,"last_page":1,"per_page":15,"total":0})");
  expect_body(http("DELETE", keys_path(s.tenant) + "/999999999", {.token = s.token}), 404,
              R"({"error":"API key not found"})");
}

TEST(ApiKeys, EveryInvalidBodyIs422WithEachError) {
  Scope s = fresh_scope(admin_token());
  auto post = [&](const std::string& body) {
    return http("POST", keys_path(s.tenant), {.token = s.token, .body = body});
  };
  expect_invalid(post("{}"), R"({"name":["The name field is required."],)"
                             R"("scopes":["The scopes field is required."]})");
  expect_invalid(post(R"({"name":")" + repeat("x", 256) + R"(","scopes":["products:read"]})"),
                 R"({"name":["The name field must not be greater than 255 characters."]})");
  EXPECT_EQ(post(R"({"name":")" + repeat("é", 255) + R"(","scopes":["products:read"]})").status,
            201);
  expect_invalid(post(R"({"name":"   ","scopes":[]})"),
                 R"({"name":["The name field is required."],)"
                 R"("scopes":["The scopes field must contain at least 1 item."]})");
  expect_invalid(post(R"({"name":"n","scopes":["products:read","products:delete","audit:write"]})"),
                 R"({"scopes.1":["The selected scopes.1 is invalid."],)"
                 R"("scopes.2":["The selected scopes.2 is invalid."]})");
  std::string thirteen = "[";
  for (int i = 0; i < 13; ++i) thirteen += std::string(i ? "," : "") + R"("products:read")";
  expect_invalid(post(R"({"name":"n","scopes":)" + thirteen + "]}"),
                 R"({"scopes":["The scopes field must not have more than 12 items."]})");
  expect_invalid(post(R"({"name":5,"scopes":"products:read"})"),
                 R"({"name":["The name field must be a string."],)"
                 R"("scopes":["The scopes field must be an array."]})");
  expect_invalid(post(R"({"name":null,"scopes":[1,null,"products:read","products:read"]})"),
                 R"({"name":["The name field is required."],)"
                 R"("scopes.0":["The scopes.0 field must be a string."],)"
                 R"("scopes.1":["The scopes.1 field must be a string."],)"
                 R"("scopes.3":["The scopes.3 field has a duplicate value."]})");
  // A body that is not text is refused as a body, as everywhere (400).
  expect_body(post("{\"name\":\"caf\xC3\x28\",\"scopes\":[\"products:read\"]}"), 400,
              R"({"error":"Request body is not valid UTF-8"})");
  expect_body(post(R"({"name":"\ud800","scopes":["products:read"]})"), 400,
              R"({"error":"Request body must be a JSON object"})");
  expect_body(post("[]"), 400, R"({"error":"Request body must be a JSON object"})");
  // 401 and 403 come before the body's 422.
  EXPECT_TRUE(is_unauthenticated(http("POST", keys_path(s.tenant), {.body = "{}"})));
  EXPECT_EQ(sql_one("SELECT count(*) FROM api_keys WHERE tenant_id = " + s.tid()), "1");
}

TEST(ApiKeys, ATenantsLiveKeysStopAtTheCapAndARevokedOneFreesItsSlot) {
  Scope s = fresh_scope(admin_token());
  const int64_t max = std::stoll(stack_env("API_KEYS_MAX_PER_TENANT").value_or("100"));
  const int64_t admin_id = token_user_id(s.token);
  // max - 1 keys written directly (their secrets unknown: never used), and
  // one revoked key, which does not count.
  sql("INSERT INTO api_keys (tenant_id, name, scopes, key_hash, secret_head, created_by, "
      "revoked_at) SELECT " +
      s.tid() + ", 'k' || i, '{products:read}', sha256(('" + s.tid() +
      "-' || i)::bytea), 'abcdef', " + to_string(admin_id) +
      ", CASE WHEN i = 0 THEN now() END FROM generate_series(0, " + to_string(max - 1) + ") i");
  Key last = create_key(s.token, s.tenant, R"(["products:read"])");
  const std::string refused =
      R"({"message":"The given data was invalid.","errors":{"limit":["The limit of )" +
      to_string(max) + R"( API keys per tenant is reached (API_KEYS_MAX_PER_TENANT)."]}})";
  expect_body(http("POST", keys_path(s.tenant),
                   {.token = s.token, .body = R"({"name":"one more","scopes":["orders:read"]})"}),
              422, refused);
  EXPECT_EQ(sql_one("SELECT count(*) FROM api_keys WHERE tenant_id = " + s.tid() +
                    " AND revoked_at IS NULL"),
            to_string(max));
  EXPECT_EQ(
      http("DELETE", keys_path(s.tenant) + "/" + to_string(last.id), {.token = s.token}).status,
      200);
  create_key(s.token, s.tenant, R"(["orders:read"])", "one more");
}

// Creates at once for the last slot take the tenant's turn at its keys (a
// row of cap_locks on its shard, in ca_api_key_create(): sql/064, decision
// 0140) before counting, so exactly one gets it.
TEST(ApiKeys, ConcurrentCreatesTakeTheLastSlotOnce) {
  Scope s = fresh_scope(admin_token());
  const int64_t max = std::stoll(stack_env("API_KEYS_MAX_PER_TENANT").value_or("100"));
  sql("INSERT INTO api_keys (tenant_id, name, scopes, key_hash, secret_head, created_by) "
      "SELECT " +
      s.tid() + ", 'k' || i, '{products:read}', sha256(('" + s.tid() +
      "-race-' || i)::bytea), 'abcdef', " + to_string(token_user_id(s.token)) +
      " FROM generate_series(1, " + to_string(max - 1) + ") i");
  const std::string refused =
      R"({"message":"The given data was invalid.","errors":{"limit":["The limit of )" +
      to_string(max) + R"( API keys per tenant is reached (API_KEYS_MAX_PER_TENANT)."]}})";
  auto results = http_concurrent(8, 8, [&](int i) {
    return http("POST", keys_path(s.tenant),
                {.token = s.token,
                 .body = R"({"name":"race )" + to_string(i) + R"(","scopes":["orders:read"]})"});
  });
  int created = 0;
  for (const HttpResponse& r : results) {
    if (r.status == 201) {
      ++created;
    } else {
      expect_body(r, 422, refused);
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(sql_one("SELECT count(*) FROM api_keys WHERE tenant_id = " + s.tid() +
                    " AND revoked_at IS NULL"),
            to_string(max));
}

TEST(ApiKeys, LastUsedAtIsStampedAtMostOnceAMinuteWithoutAWritePerRequest) {
  Scope s = fresh_scope(admin_token());
  Key k = create_key(s.token, s.tenant, R"(["products:read"])");
  EXPECT_EQ(last_used(s.tenant, k.id), "<null>");
  // A refused request is no use: not stamped.
  EXPECT_EQ(
      http("POST", "/api/v2/admin/products", with_key(k.key, s.tenant, R"({"name":"x","price":1})"))
          .status,
      403);
  EXPECT_EQ(last_used(s.tenant, k.id), "<null>");
  ASSERT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant)).status, 200);
  const std::string first = last_used(s.tenant, k.id);
  EXPECT_NE(first, "<null>");
  // Twenty more within the minute: no new row version (the stamp would
  // change with each: now() is each transaction's own time).
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant)).status, 200);
  }
  EXPECT_EQ(last_used(s.tenant, k.id), first);
  // Over a minute old: the next request stamps it again.
  sql("UPDATE api_keys SET last_used_at = now() - interval '61 seconds' WHERE tenant_id = " +
      s.tid() + " AND id = " + to_string(k.id));
  const std::string old = last_used(s.tenant, k.id);
  ASSERT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant)).status, 200);
  const std::string fresh = last_used(s.tenant, k.id);
  EXPECT_NE(fresh, old);
  EXPECT_EQ(sql_one("SELECT last_used_at > now() - interval '10 seconds' FROM api_keys "
                    "WHERE tenant_id = " +
                    s.tid() + " AND id = " + to_string(k.id)),
            "t");
  // The list shows it.
  HttpResponse list = http("GET", keys_path(s.tenant), {.token = s.token});
  EXPECT_TRUE(is_timestamp(
      json_get(cJSON_GetArrayItem(json_get(list.json.get(), "data"), 0), "last_used_at")))
      << list.body;
}

TEST(ApiKeys, AnIdempotentCreateWithAKeyReplaysItsAnswer) {
  Scope s = fresh_scope(admin_token());
  Key k = create_key(s.token, s.tenant, R"(["products:write"])");
  Call c = with_key(k.key, s.tenant, R"({"name":"Once","price":2})");
  c.headers = {"Idempotency-Key: " + unique("once")};
  HttpResponse first = http("POST", "/api/v2/admin/products", c);
  HttpResponse again = http("POST", "/api/v2/admin/products", c);
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(again.status, 201);
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(again.headers["idempotent-replayed"], "true");
  EXPECT_EQ(sql_one("SELECT count(*) FROM products WHERE tenant_id = " + s.tid()), "1");
}

TEST(ApiKeys, MetricsCountKeyedRequestsByOutcome) {
  Scope s = fresh_scope(admin_token());
  Key k = create_key(s.token, s.tenant, R"(["products:read"])");
  const std::vector<std::string> outcomes = {"accepted", "unauthenticated", "other_tenant",
                                             "outside_scope", "route_refuses_keys"};
  auto counts = [&] {
    HttpResponse m = http("GET", "/metrics");
    EXPECT_EQ(m.status, 200);
    std::vector<double> out;
    for (const std::string& o : outcomes) {
      out.push_back(metrics_sample(
          m.body, R"(commerce_admin_api_key_requests_total{outcome=")" + o + R"("})"));
    }
    return out;
  };
  std::vector<double> before = counts();
  for (double v : before) EXPECT_GE(v, 0);
  EXPECT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant)).status, 200);
  EXPECT_EQ(http("GET", "/api/v2/admin/products/1", with_key(k.key, s.tenant)).status, 404);
  EXPECT_EQ(http("GET", "/api/v2/admin/products", with_key("cak_nope", s.tenant)).status, 401);
  EXPECT_EQ(http("GET", "/api/v2/admin/products", with_key(k.key, s.tenant + 1)).status, 403);
  EXPECT_EQ(http("GET", "/api/v2/admin/orders", with_key(k.key, s.tenant)).status, 403);
  EXPECT_EQ(http("GET", "/api/v2/admin/tenants", with_key(k.key, s.tenant)).status, 403);
  std::vector<double> after = counts();
  EXPECT_EQ(after[0] - before[0], 2);
  EXPECT_EQ(after[1] - before[1], 1);
  EXPECT_EQ(after[2] - before[2], 1);
  EXPECT_EQ(after[3] - before[3], 1);
  EXPECT_EQ(after[4] - before[4], 1);
}

}  // namespace
}  // namespace ca::test
