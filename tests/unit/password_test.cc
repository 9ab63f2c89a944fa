// Argon2id password hashing (common/password.h).
#include "password.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jwt.h"
#include "unit_helpers.h"

namespace ca {
namespace {

class PasswordTest : public CryptoTest {};

TEST_F(PasswordTest, HashIsArgon2idAndVerifiesOnlyTheSamePassword) {
  auto hash = password_hash("correct horse battery staple");
  ASSERT_TRUE(hash.has_value());
  EXPECT_EQ(hash->rfind("$argon2id$", 0), 0u) << *hash;
  EXPECT_TRUE(password_verify(*hash, "correct horse battery staple"));
  EXPECT_FALSE(password_verify(*hash, "correct horse battery stapl"));
  EXPECT_FALSE(password_verify(*hash, "Correct horse battery staple"));
  EXPECT_FALSE(password_verify(*hash, ""));
}

TEST_F(PasswordTest, SamePasswordHashesDifferentlyEachTime) {
  auto a = password_hash("s3cret-password");
  auto b = password_hash("s3cret-password");
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);  // a fresh salt per hash
  EXPECT_TRUE(password_verify(*a, "s3cret-password"));
  EXPECT_TRUE(password_verify(*b, "s3cret-password"));
}

TEST_F(PasswordTest, PasswordsWithNulAndMultibyteBytesAreHashedWhole) {
  std::string with_nul("abc\0def", 7);
  auto hash = password_hash(with_nul);
  ASSERT_TRUE(hash.has_value());
  EXPECT_TRUE(password_verify(*hash, with_nul));
  EXPECT_FALSE(password_verify(*hash, "abc"));  // not cut at the NUL

  auto utf8 = password_hash("пароль-密码-🔑");
  ASSERT_TRUE(utf8.has_value());
  EXPECT_TRUE(password_verify(*utf8, "пароль-密码-🔑"));
  EXPECT_FALSE(password_verify(*utf8, "пароль-密码-"));
}

TEST_F(PasswordTest, VerifyRefusesMalformedHashes) {
  EXPECT_FALSE(password_verify("", "anything"));
  EXPECT_FALSE(password_verify("not a hash", "not a hash"));
  EXPECT_FALSE(password_verify("$argon2id$v=19$m=65536,t=2,p=1$garbage", "x"));
}

TEST_F(PasswordTest, DummyVerifyAlwaysFails) {
  EXPECT_FALSE(password_verify_dummy("anything"));
  EXPECT_FALSE(password_verify_dummy(""));
  EXPECT_FALSE(password_verify_dummy("anything"));  // the cached dummy hash, second call
}

// The process-wide bound on password checks at once: try_take() never
// waits, refuses beyond the bound, and a released (or moved-from) slot
// counts once.
TEST(PasswordSlotTest, AtMostTheBoundAtOnceAndReleasedOnDestruction) {
  password_limit_concurrency(2);
  {
    std::optional<PasswordSlot> a = PasswordSlot::try_take();
    std::optional<PasswordSlot> b = PasswordSlot::try_take();
    ASSERT_TRUE(a.has_value());
    ASSERT_TRUE(b.has_value());
    EXPECT_FALSE(PasswordSlot::try_take().has_value());
    std::optional<PasswordSlot> moved(std::move(a));  // `a` keeps an empty shell
    a.reset();
    EXPECT_FALSE(PasswordSlot::try_take().has_value());
    moved.reset();
    std::optional<PasswordSlot> c = PasswordSlot::try_take();
    EXPECT_TRUE(c.has_value());
    EXPECT_FALSE(PasswordSlot::try_take().has_value());
  }
  // All released: the whole bound is free again.
  std::vector<PasswordSlot> all;
  for (int i = 0; i < 2; ++i) {
    std::optional<PasswordSlot> s = PasswordSlot::try_take();
    ASSERT_TRUE(s.has_value()) << i;
    all.push_back(std::move(*s));
  }
  EXPECT_FALSE(PasswordSlot::try_take().has_value());
  all.clear();
  // A bound below 1 is taken as 1.
  password_limit_concurrency(0);
  std::optional<PasswordSlot> one = PasswordSlot::try_take();
  EXPECT_TRUE(one.has_value());
  EXPECT_FALSE(PasswordSlot::try_take().has_value());
}

}  // namespace
}  // namespace ca
