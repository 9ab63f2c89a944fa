// API keys' pure parts (common/api_key.h): the key's form, its hash, and
// scopes with `:write` implying `:read`; and the scope a route declares
// (common/router.h).
#include "api_key.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <string>
#include <vector>

#include "jwt.h"
#include "router.h"
#include "unit_helpers.h"

namespace ca {
namespace {

const std::string kSecret(64, 'a');

TEST(ApiKey, AWellFormedKeyGivesItsTenantIdCreatorAndSecret) {
  auto parts = api_key_parse("cak_12_345_6_" + kSecret);
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->tenant_id, 12);
  EXPECT_EQ(parts->key_id, 345);
  EXPECT_EQ(parts->creator_id, 6);
  EXPECT_EQ(parts->secret, kSecret);
  EXPECT_EQ(api_key_format(*parts), "cak_12_345_6_" + kSecret);
}

TEST(ApiKey, FormatThenParseGivesThePartsBack) {
  ApiKeyParts parts{9223372036854775807, 1, 42, api_key_secret_generate()};
  auto back = api_key_parse(api_key_format(parts));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->tenant_id, parts.tenant_id);
  EXPECT_EQ(back->key_id, 1);
  EXPECT_EQ(back->creator_id, 42);
  EXPECT_EQ(back->secret, parts.secret);
}

TEST(ApiKey, MalformedKeysAreRefused) {
  for (const std::string& bad : std::vector<std::string>{
           "", "cak_",
           "cak_12_345_" + kSecret,                       // no creator
           "cak_12_345_6_" + kSecret.substr(1),           // 63 digits
           "cak_12_345_6_" + kSecret + "a",               // 65 digits
           "cak_12_345_6_" + std::string(64, 'A'),        // upper case
           "cak_12_345_6_" + std::string(63, 'a') + "g",  // not hex
           "cak_012_345_6_" + kSecret,                    // leading zero
           "cak_0_345_6_" + kSecret,                      // id 0
           "cak_-1_345_6_" + kSecret,                     // sign
           "cak_12_345_6__" + kSecret.substr(1),          // an empty part
           "cak_99999999999999999999_1_1_" + kSecret,     // over int64
           "CAK_12_345_6_" + kSecret,                     // the prefix is lower case
           "xak_12_345_6_" + kSecret,
           "eyJhbGciOiJIUzI1NiJ9.e30.sig",  // a session token
       }) {
    EXPECT_FALSE(api_key_parse(bad).has_value()) << bad;
  }
}

TEST(ApiKey, OnlyTheCakPrefixMarksAKey) {
  expect_each<bool>(api_key_like, {{"cak_", true},
                                   {"cak_garbage", true},
                                   {"cak", false},
                                   {"eyJhbGciOiJIUzI1NiJ9.e30.sig", false},
                                   {"", false}});
}

TEST(ApiKey, SecretsAre64HexDigitsAndDiffer) {
  crypto_init();
  std::string a = api_key_secret_generate(), b = api_key_secret_generate();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, b);
  EXPECT_TRUE(api_key_parse("cak_1_1_1_" + a).has_value());
}

TEST(ApiKey, TheHashIsBlake2b256AsAByteaLiteral) {
  crypto_init();
  // BLAKE2b-256 of "abc" (RFC 7693 vectors are for BLAKE2b-512; this is
  // libsodium's crypto_generichash with a 32-byte output).
  unsigned char digest[32];
  crypto_generichash(digest, sizeof digest, reinterpret_cast<const unsigned char*>("abc"), 3,
                     nullptr, 0);
  char hex[65];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  EXPECT_EQ(api_key_secret_hash("abc"), std::string("\\x") + hex);
  EXPECT_EQ(api_key_secret_hash("abc"),
            "\\xbddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
  EXPECT_NE(api_key_secret_hash("abc"), api_key_secret_hash("abd"));
}

TEST(ApiKeyScopes, EveryNameParsesBackAndUnknownNamesDoNot) {
  EXPECT_EQ(scope_names().size(), 12u);
  for (std::string_view name : scope_names()) {
    auto scope = scope_parse(name);
    ASSERT_TRUE(scope.has_value()) << name;
    EXPECT_EQ(scope_name(*scope), name);
  }
  for (const char* bad : {"", "products", "products:delete", "PRODUCTS:READ", "events:write",
                          "audit:write", "products:read "}) {
    EXPECT_FALSE(scope_parse(bad).has_value()) << bad;
  }
  EXPECT_EQ(scope_name(Scope::kNone), "");
}

TEST(ApiKeyScopes, WriteImpliesReadAndNotTheOtherWay) {
  EXPECT_EQ(scopes_granting_literal(Scope::kProductsRead), "{products:read,products:write}");
  EXPECT_EQ(scopes_granting_literal(Scope::kProductsWrite), "{products:write}");
  EXPECT_EQ(scopes_granting_literal(Scope::kOrdersRead), "{orders:read,orders:write}");
  EXPECT_EQ(scopes_granting_literal(Scope::kCategoriesRead), "{categories:read,categories:write}");
  EXPECT_EQ(scopes_granting_literal(Scope::kAnnouncementsRead),
            "{announcements:read,announcements:write}");
  EXPECT_EQ(scopes_granting_literal(Scope::kWebhooksRead), "{webhooks:read,webhooks:write}");
  EXPECT_EQ(scopes_granting_literal(Scope::kEventsRead), "{events:read}");
  EXPECT_EQ(scopes_granting_literal(Scope::kAuditRead), "{audit:read}");
  // A route with no scope: nothing grants it (the key check then refuses).
  EXPECT_EQ(scopes_granting_literal(Scope::kNone), "{}");
  EXPECT_TRUE(scopes_granting(Scope::kNone).empty());
}

Result<Response> h(Ctx&) { return Response{}; }

TEST(ApiKeyScopes, ARouteCarriesItsDeclaredScopeAndNoneByDefault) {
  Router router({
      {"GET", "/p/{id}", h, Scope::kProductsRead},
      {"POST", "/p", h, Scope::kProductsWrite, kIdempotent},
      {"POST", "/login", h},
      {"POST", "/o", h, kIdempotent, ErrorStyle::kSuccess},
  });
  EXPECT_EQ(router.match("GET", "/p/7").scope, Scope::kProductsRead);
  RouteMatch keyed = router.match("POST", "/p");
  EXPECT_EQ(keyed.scope, Scope::kProductsWrite);
  EXPECT_TRUE(keyed.idempotent.has_value());
  EXPECT_EQ(router.match("POST", "/login").scope, Scope::kNone);
  EXPECT_EQ(router.match("POST", "/o").scope, Scope::kNone);
}

}  // namespace
}  // namespace ca
