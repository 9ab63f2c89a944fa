// conninfo_at(): DATABASE_URL's settings at another node's address
// (common/tenant_read_nodes.h).
#include "tenant_read_nodes.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <map>
#include <string>

namespace ca {
namespace {

// The settings a conninfo gives, as libpq reads them back.
std::map<std::string, std::string> settings(const std::string& conninfo) {
  std::map<std::string, std::string> out;
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  EXPECT_NE(options, nullptr) << conninfo << ": " << (error != nullptr ? error : "");
  PQfreemem(error);
  for (PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
    if (o->val != nullptr && *o->val != '\0') out[o->keyword] = o->val;
  }
  PQconninfoFree(options);
  return out;
}

TEST(ConninfoAt, AKeywordConninfoKeepsItsSettingsAndTakesTheNodesHostAndPort) {
  EXPECT_EQ(settings(conninfo_at("host=/run/postgresql port=5432 dbname=commerce_admin "
                                 "user=commerce_admin_app sslmode=require",
                                 "10.0.0.7", "6432")),
            (std::map<std::string, std::string>{{"host", "10.0.0.7"},
                                                {"port", "6432"},
                                                {"dbname", "commerce_admin"},
                                                {"user", "commerce_admin_app"},
                                                {"sslmode", "require"}}));
}

TEST(ConninfoAt, AUriConninfoBecomesKeywordsAndItsHostaddrIsDropped) {
  std::string at = conninfo_at(
      "postgresql://app:s3cret@db.internal:5432/commerce_admin?hostaddr=10.0.0.1&connect_timeout=5",
      "worker-2.internal", "5433");
  EXPECT_EQ(at.rfind("host='worker-2.internal' port='5433' ", 0), 0u) << at;
  EXPECT_EQ(settings(at), (std::map<std::string, std::string>{{"host", "worker-2.internal"},
                                                              {"port", "5433"},
                                                              {"user", "app"},
                                                              {"password", "s3cret"},
                                                              {"dbname", "commerce_admin"},
                                                              {"connect_timeout", "5"}}));
}

TEST(ConninfoAt, QuotesAndBackslashesInValuesSurviveTheRoundTrip) {
  EXPECT_EQ(
      settings(conninfo_at(R"(dbname=shop password='it\'s a \\ secret')", "h", "1")),
      (std::map<std::string, std::string>{
          {"host", "h"}, {"port", "1"}, {"dbname", "shop"}, {"password", R"(it's a \ secret)"}}));
}

// TenantNodeCache: a tenant's pool until its time; at the bound, one more
// tenant empties it first.
TEST(TenantNodeCache, ATenantIsKnownUntilItsTimeAndOnePastTheBoundStartsOver) {
  using Clock = TenantNodeCache::Clock;
  const Clock::time_point t0 = Clock::now();
  DbPool* a = reinterpret_cast<DbPool*>(0x10);
  DbPool* found = nullptr;
  TenantNodeCache cache(3);
  cache.put(1, a, t0 + std::chrono::seconds(30));
  cache.put(2, nullptr, t0 + std::chrono::seconds(1));  // not found: no routing for a second
  cache.put(3, a, t0 + std::chrono::seconds(30));
  ASSERT_TRUE(cache.find(1, t0, &found));
  EXPECT_EQ(found, a);
  ASSERT_TRUE(cache.find(2, t0, &found));
  EXPECT_EQ(found, nullptr);
  EXPECT_FALSE(cache.find(2, t0 + std::chrono::seconds(1), &found));
  EXPECT_FALSE(cache.find(1, t0 + std::chrono::seconds(30), &found));
  EXPECT_FALSE(cache.find(4, t0, &found));
  // Refreshing a tenant it holds does not empty it.
  cache.put(3, a, t0 + std::chrono::seconds(60));
  EXPECT_EQ(cache.size(), 3u);
  // One tenant past the bound: only the new one is known.
  cache.put(4, a, t0 + std::chrono::seconds(30));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(cache.find(4, t0, &found));
  EXPECT_FALSE(cache.find(1, t0, &found));
  EXPECT_FALSE(cache.find(3, t0, &found));
}

}  // namespace
}  // namespace ca
