// Pieces the unit tests share: a fixture for the suites that need
// libsodium, a table check for functions from text to text, and the tree's
// own files (CA_SOURCE_DIR) for the tests that compare code with them.
// Header-only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jwt.h"

namespace ca {

// A suite whose tests use libsodium: crypto_init() once before them.
class CryptoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { crypto_init(); }
};

// `f(in)` is `out` for each {in, out}; a failure names its `in`. `Out` is
// what f answers when not text (expect_each<bool>(...)).
template <class Out = std::string_view, class F>
void expect_each(F f, std::initializer_list<std::pair<std::string_view, Out>> cases) {
  for (const auto& [in, out] : cases) EXPECT_EQ(f(std::string(in)), out) << in;
}

#ifdef CA_SOURCE_DIR
// A file of the source tree, by its path in the tree ("sql/001_foundation.sql").
inline std::string source_text(const std::filesystem::path& relative) {
  std::ifstream in(std::filesystem::path(CA_SOURCE_DIR) / relative, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The migrations' text (sql/*.sql), oldest first.
inline std::vector<std::string> migration_texts() {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(CA_SOURCE_DIR) / "sql")) {
    if (entry.path().extension() == ".sql") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> out;
  for (const auto& p : paths)
    out.push_back(source_text(std::filesystem::relative(p, CA_SOURCE_DIR)));
  return out;
}
#endif

}  // namespace ca
