// Argon2id password hashing (common/password.h).
#include "password.h"

#include <gtest/gtest.h>

#include <string>

#include "jwt.h"

namespace ca {
namespace {

class PasswordTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { crypto_init(); }
};

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

}  // namespace
}  // namespace ca
