// Invitation tokens: format, parse, hash (handlers/team_members/invitation_token.h).
#include "../../handlers/team_members/invitation_token.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "jwt.h"
#include "unit_helpers.h"

namespace ca {
namespace {

class InvitationTokenTest : public CryptoTest {};

TEST_F(InvitationTokenTest, SecretsAre43Base64UrlCharactersAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string s = invitation_secret_generate();
    ASSERT_EQ(s.size(), 43u) << s;
    EXPECT_EQ(
        s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        std::string::npos)
        << s;
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST_F(InvitationTokenTest, FormatThenParseGivesThePartsBack) {
  std::string secret = invitation_secret_generate();
  std::string token = invitation_token_format(12, 9223372036854775807, secret);
  EXPECT_EQ(token, "inv_12_9223372036854775807_" + secret);
  auto parsed = invitation_token_parse(token);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->tenant_id, 12);
  EXPECT_EQ(parsed->invitation_id, 9223372036854775807);
  EXPECT_EQ(parsed->secret, secret);
}

TEST_F(InvitationTokenTest, MalformedTokensAreRefused) {
  const std::string secret(43, 'A');
  for (const std::string& bad : {
           std::string(""),
           "inv_1_2_" + secret.substr(1),           // short secret
           "inv_1_2_" + secret + "A",               // long secret
           "inv_1_2_" + secret.substr(1) + "=",     // padding
           "inv_1_2_" + secret.substr(1) + "+",     // not url-safe
           "inv_0_2_" + secret,                     // id 0
           "inv_01_2_" + secret,                    // leading zero
           "inv_-1_2_" + secret,                    // sign
           "inv_1__" + secret,                      // empty id
           "inv_1_" + secret,                       // one id
           "INV_1_2_" + secret,                     // prefix case
           "inv_9223372036854775808_2_" + secret,   // over int64
           "x" + std::string("inv_1_2_") + secret,  // leading junk
       }) {
    EXPECT_FALSE(invitation_token_parse(bad)) << bad;
  }
}

TEST_F(InvitationTokenTest, HashIsSha256OfTheSecretAsByteaText) {
  // SHA-256("abc"), FIPS 180-2 appendix B.1.
  EXPECT_EQ(invitation_secret_hash("abc"),
            "\\xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_NE(invitation_secret_hash(std::string(43, 'A')),
            invitation_secret_hash(std::string(43, 'B')));
}

}  // namespace
}  // namespace ca
