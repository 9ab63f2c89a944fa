// Standard Webhooks signing (common/webhook_signature.h): the published test
// vector, secrets, and the exact bytes that are signed.
#include "webhook_signature.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <set>
#include <string>

#include "jwt.h"
#include "unit_helpers.h"

namespace ca {
namespace {

class WebhookSignatureTest : public CryptoTest {};

// The example of the Standard Webhooks specification and its reference libraries.
TEST_F(WebhookSignatureTest, MatchesTheStandardWebhooksTestVector) {
  auto key = webhook_secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(webhook_signature(*key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                              R"({"test": 2432232314})"),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
}

TEST_F(WebhookSignatureTest, SignsIdDotTimestampDotBodyWithTheDecodedKey) {
  std::string key = "0123456789abcdef0123456789abcdef";
  std::string message = "msg_1_2.1700000000.{\"a\":1}";
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256(mac, reinterpret_cast<const unsigned char*>(message.data()),
                         message.size(), reinterpret_cast<const unsigned char*>(key.data()));
  std::string expected =
      "v1," + base64_encode(std::string_view(reinterpret_cast<char*>(mac), sizeof mac));
  EXPECT_EQ(webhook_signature(key, "msg_1_2", 1700000000, R"({"a":1})"), expected);
  // Any change to id, timestamp or body changes the signature.
  EXPECT_NE(webhook_signature(key, "msg_1_3", 1700000000, R"({"a":1})"), expected);
  EXPECT_NE(webhook_signature(key, "msg_1_2", 1700000001, R"({"a":1})"), expected);
  EXPECT_NE(webhook_signature(key, "msg_1_2", 1700000000, R"({"a":2})"), expected);
}

TEST_F(WebhookSignatureTest, GeneratedSecretsAreWhsecAndBase64Of32RandomBytes) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    std::string secret = webhook_secret_generate();
    ASSERT_EQ(secret.rfind("whsec_", 0), 0u) << secret;
    EXPECT_EQ(secret.size(), 6u + 44u) << secret;
    auto key = webhook_secret_key(secret);
    ASSERT_TRUE(key.has_value()) << secret;
    EXPECT_EQ(key->size(), kWebhookSecretBytes);
    seen.insert(secret);
  }
  EXPECT_EQ(seen.size(), 50u);
}

TEST_F(WebhookSignatureTest, MalformedSecretsAreRefused) {
  EXPECT_FALSE(webhook_secret_key("whsec_").has_value());
  EXPECT_FALSE(webhook_secret_key("whsec_not base64!").has_value());
  EXPECT_FALSE(webhook_secret_key("whsec_QUJD=").has_value());
  EXPECT_TRUE(webhook_secret_key("QUJD").has_value());  // the prefix is optional
}

TEST_F(WebhookSignatureTest, Base64IsStandardWithPadding) {
  expect_each(base64_encode,
              {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"\xfb\xff", "+/8="}});
  EXPECT_EQ(base64_decode("+/8="), std::string("\xfb\xff"));
  EXPECT_FALSE(base64_decode("-_8=").has_value());  // url-safe alphabet is not this one
  EXPECT_FALSE(base64_decode("Zg").has_value());    // padding is required
  // libsodium alone reads every byte of 0x80 or more as '/'.
  EXPECT_FALSE(base64_decode("+/\xff=").has_value());
  EXPECT_FALSE(base64_decode("\x80\x80\x80\x80").has_value());
}

TEST_F(WebhookSignatureTest, MessageIdIsStablePerDelivery) {
  EXPECT_EQ(webhook_message_id(7, 42), "msg_7_42");
}

}  // namespace
}  // namespace ca
