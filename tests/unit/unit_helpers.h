// Pieces the unit tests share: a fixture for the suites that need
// libsodium, and a table check for functions from text to text.
// Header-only.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

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

}  // namespace ca
