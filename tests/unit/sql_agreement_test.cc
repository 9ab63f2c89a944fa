// Numbers and lists that live both in C++ and in the SQL of sql/: the
// code's constant must be what the migrations' constraint says. The tree is
// read from CA_SOURCE_DIR; the newest migration naming a constraint wins.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "../../handlers/orders/orders.h"
#include "unit_helpers.h"
#include "validate.h"

namespace ca {
namespace {

// The first group of the last match of `pattern` over every migration.
std::string last_match(const std::regex& pattern) {
  std::string found;
  for (const std::string& text : migration_texts()) {
    for (std::sregex_iterator m(text.begin(), text.end(), pattern), end; m != end; ++m) {
      found = (*m)[1];
    }
  }
  return found;
}

TEST(SqlAgreement, OrderStatusesAreTheOrdersStatusCheck) {
  // sql/003: CREATE TABLE orders (... status text NOT NULL DEFAULT 'pending'
  // CHECK (status IN (...)), ...); other tables have statuses of their own.
  std::string orders = last_match(std::regex(R"(CREATE TABLE orders \(([^;]*)\);)"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      orders, m, std::regex(R"(status\s+text[^,]*CHECK \(status IN \(([^)]*)\)\))")));
  std::string list = m[1];
  ASSERT_FALSE(list.empty());
  std::string expected;
  for (std::string_view s : kOrderStatuses) {
    expected += (expected.empty() ? "'" : ", '") + std::string(s) + "'";
  }
  EXPECT_EQ(list, expected);
  EXPECT_EQ(order_statuses_text(), "pending, processing, completed or cancelled");
}

TEST(SqlAgreement, SettingsLimitIsTheTenantsSettingsSizeCheck) {
  // sql/018: CONSTRAINT tenants_settings_size CHECK (ca_json_compact_size(settings) <= N).
  std::string limit = last_match(
      std::regex(R"(tenants_settings_size\s+CHECK \(ca_json_compact_size\(settings\) <= (\d+)\))"));
  ASSERT_FALSE(limit.empty());
  EXPECT_EQ(limit, std::to_string(kMaxSettingsBytes));
  EXPECT_EQ(settings_too_large_message(),
            "The settings field must not be larger than 16384 bytes.");
}

}  // namespace
}  // namespace ca
