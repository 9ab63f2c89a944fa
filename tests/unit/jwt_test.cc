// JWT HS256 (common/jwt.h): what a token must look like to be accepted, and
// every way a forged, broken or stale token is refused.
#include "jwt.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <regex>
#include <set>
#include <string>

#include "unit_helpers.h"

namespace ca {
namespace {

constexpr std::string_view kSecret = "0123456789abcdef0123456789abcdef-test-secret";
constexpr int64_t kNow = 1'800'000'000;

class JwtTest : public CryptoTest {};

TokenClaims claims() {
  TokenClaims c;
  c.sub = 42;
  c.jti = "5f0c7a52-3d1b-4c8e-9a6f-0123456789ab";
  c.iat = kNow - 10;
  c.exp = kNow + 3600;
  return c;
}

std::string hmac(std::string_view key, std::string_view message) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(message.data()),
                                message.size());
  crypto_auth_hmacsha256_final(&st, mac);
  return std::string(reinterpret_cast<char*>(mac), sizeof mac);
}

// A token with exactly this header and payload text, correctly signed with
// HMAC-SHA256 under `secret`: lets a test forge anything but the signature.
std::string forge(std::string_view header, std::string_view payload,
                  std::string_view secret = kSecret) {
  std::string input = base64url_encode(header) + "." + base64url_encode(payload);
  return input + "." + base64url_encode(hmac(secret, input));
}

constexpr std::string_view kHs256 = R"({"alg":"HS256","typ":"JWT"})";
constexpr std::string_view kGoodPayload =
    R"({"sub":42,"jti":"5f0c7a52-3d1b-4c8e-9a6f-0123456789ab","iat":1799999990,"exp":1800003600})";

struct Parts {
  std::string header, payload, signature;
};
Parts split(const std::string& token) {
  size_t d1 = token.find('.');
  size_t d2 = token.find('.', d1 + 1);
  return {token.substr(0, d1), token.substr(d1 + 1, d2 - d1 - 1), token.substr(d2 + 1)};
}

TEST_F(JwtTest, SignThenVerifyReturnsTheSameClaims) {
  std::string token = jwt_sign(claims(), kSecret);
  auto got = jwt_verify(token, kSecret, kNow);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->sub, 42);
  EXPECT_EQ(got->jti, "5f0c7a52-3d1b-4c8e-9a6f-0123456789ab");
  EXPECT_EQ(got->iat, kNow - 10);
  EXPECT_EQ(got->exp, kNow + 3600);
}

TEST_F(JwtTest, SignedTokenHasHs256HeaderAndTheClaimsAsPayload) {
  Parts p = split(jwt_sign(claims(), kSecret));
  EXPECT_EQ(base64url_decode(p.header).value_or(""), R"({"alg":"HS256","typ":"JWT"})");
  EXPECT_EQ(base64url_decode(p.payload).value_or(""),
            R"({"sub":42,"jti":"5f0c7a52-3d1b-4c8e-9a6f-0123456789ab","iat":1799999990,)"
            R"("exp":1800003600})");
  EXPECT_EQ(base64url_decode(p.signature).value_or("").size(), 32u);
  // The JWT alphabet: no padding, no '+' or '/'.
  EXPECT_EQ(p.signature.find_first_of("=+/"), std::string::npos);
}

TEST_F(JwtTest, ForgedButCorrectlySignedTokenIsAccepted) {
  // Sanity check of the forge() helper the refusal tests rely on.
  auto got = jwt_verify(forge(kHs256, kGoodPayload), kSecret, kNow);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->sub, 42);
}

TEST_F(JwtTest, TamperedPayloadIsRefused) {
  std::string token = jwt_sign(claims(), kSecret);
  Parts p = split(token);
  TokenClaims other = claims();
  other.sub = 1;  // privilege escalation attempt: someone else's id
  Parts q = split(jwt_sign(other, "another secret of sufficient length!!"));
  EXPECT_FALSE(jwt_verify(p.header + "." + q.payload + "." + p.signature, kSecret, kNow));
}

TEST_F(JwtTest, TamperedSignatureIsRefused) {
  std::string token = jwt_sign(claims(), kSecret);
  Parts p = split(token);
  std::string sig = *base64url_decode(p.signature);
  sig[0] = static_cast<char>(sig[0] ^ 0x01);
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + "." + base64url_encode(sig), kSecret, kNow));
  // A truncated signature (31 bytes) and an empty one.
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + "." + base64url_encode(sig.substr(1)),
                          kSecret, kNow));
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + ".", kSecret, kNow));
}

TEST_F(JwtTest, WrongSecretIsRefused) {
  std::string token = jwt_sign(claims(), "another secret of sufficient length!!");
  EXPECT_FALSE(jwt_verify(token, kSecret, kNow));
}

TEST_F(JwtTest, SignatureWithOtherUnusedBitsIsRefused) {
  // 32 bytes take 43 characters; the last one carries 4 bits of the MAC and
  // 2 unused ones. Setting an unused bit encodes the same MAC differently.
  Parts p = split(jwt_sign(claims(), kSecret));
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  ASSERT_EQ(p.signature.size(), 43u);
  size_t last = alphabet.find(p.signature.back());
  ASSERT_EQ(last % 4, 0u) << "a canonical last character has its unused bits clear";
  std::string variant = p.signature;
  variant.back() = alphabet[last | 1];
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + "." + variant, kSecret, kNow));
}

TEST_F(JwtTest, EachVerifyUsesTheSecretItIsGiven) {
  // The keyed HMAC state is kept per thread: a different secret must not
  // reuse it, in either order.
  const std::string other = "another secret of sufficient length!!";
  std::string ours = jwt_sign(claims(), kSecret);
  std::string theirs = jwt_sign(claims(), other);
  EXPECT_TRUE(jwt_verify(ours, kSecret, kNow));
  EXPECT_FALSE(jwt_verify(theirs, kSecret, kNow));
  EXPECT_TRUE(jwt_verify(theirs, other, kNow));
  EXPECT_FALSE(jwt_verify(ours, other, kNow));
  EXPECT_TRUE(jwt_verify(ours, kSecret, kNow));
}

TEST_F(JwtTest, AlgNoneIsRefused) {
  // Unsigned, as an attacker would send it...
  std::string unsigned_token = base64url_encode(R"({"alg":"none","typ":"JWT"})") + "." +
                               base64url_encode(kGoodPayload) + ".";
  EXPECT_FALSE(jwt_verify(unsigned_token, kSecret, kNow));
  // ...and even with a valid HMAC: the header never picks the algorithm.
  EXPECT_FALSE(jwt_verify(forge(R"({"alg":"none","typ":"JWT"})", kGoodPayload), kSecret, kNow));
  EXPECT_FALSE(jwt_verify(forge(R"({"alg":"None"})", kGoodPayload), kSecret, kNow));
}

TEST_F(JwtTest, OtherAlgorithmsAreRefused) {
  EXPECT_FALSE(jwt_verify(forge(R"({"alg":"HS512","typ":"JWT"})", kGoodPayload), kSecret, kNow));
  EXPECT_FALSE(jwt_verify(forge(R"({"alg":"RS256","typ":"JWT"})", kGoodPayload), kSecret, kNow));
  EXPECT_FALSE(jwt_verify(forge(R"({"alg":"hs256"})", kGoodPayload), kSecret, kNow));
}

TEST_F(JwtTest, MissingOrNonStringAlgIsRefused) {
  EXPECT_FALSE(jwt_verify(forge(R"({"typ":"JWT"})", kGoodPayload), kSecret, kNow));
  EXPECT_FALSE(jwt_verify(forge(R"({"alg":null})", kGoodPayload), kSecret, kNow));
  EXPECT_FALSE(jwt_verify(forge(R"({"alg":256})", kGoodPayload), kSecret, kNow));
  EXPECT_FALSE(jwt_verify(forge(R"(["HS256"])", kGoodPayload), kSecret, kNow));
  EXPECT_FALSE(jwt_verify(forge("not json", kGoodPayload), kSecret, kNow));
}

TEST_F(JwtTest, ExpiredTokenIsRefused) {
  TokenClaims c = claims();
  c.exp = kNow - 1;
  EXPECT_FALSE(jwt_verify(jwt_sign(c, kSecret), kSecret, kNow));
  // `exp` is the first second at which the token is no longer valid.
  c.exp = kNow;
  EXPECT_FALSE(jwt_verify(jwt_sign(c, kSecret), kSecret, kNow));
  c.exp = kNow + 1;
  EXPECT_TRUE(jwt_verify(jwt_sign(c, kSecret), kSecret, kNow));
}

TEST_F(JwtTest, WrongNumberOfPartsIsRefused) {
  Parts p = split(jwt_sign(claims(), kSecret));
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload, kSecret, kNow));
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + "." + p.signature + "." + p.signature,
                          kSecret, kNow));
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + "." + p.signature + ".", kSecret, kNow));
  EXPECT_FALSE(jwt_verify("", kSecret, kNow));
  EXPECT_FALSE(jwt_verify("..", kSecret, kNow));
  EXPECT_FALSE(jwt_verify("garbage", kSecret, kNow));
}

TEST_F(JwtTest, BadBase64IsRefused) {
  Parts p = split(jwt_sign(claims(), kSecret));
  // Padding and the standard (non-URL) alphabet are not base64url.
  EXPECT_FALSE(jwt_verify(p.header + "=." + p.payload + "." + p.signature, kSecret, kNow));
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + "." + p.signature + "=", kSecret, kNow));
  EXPECT_FALSE(jwt_verify("!!!." + p.payload + "." + p.signature, kSecret, kNow));
  EXPECT_FALSE(jwt_verify(p.header + ".%%%." + p.signature, kSecret, kNow));
  EXPECT_FALSE(jwt_verify(p.header + "." + p.payload + ".+/+/", kSecret, kNow));
}

TEST_F(JwtTest, MissingOrInvalidClaimsAreRefused) {
  const char* kBad[] = {
      R"({"jti":"j","iat":1,"exp":1900000000})",                    // no sub
      R"({"sub":42,"iat":1,"exp":1900000000})",                     // no jti
      R"({"sub":42,"jti":"j","exp":1900000000})",                   // no iat
      R"({"sub":42,"jti":"j","iat":1})",                            // no exp
      R"({"sub":"42","jti":"j","iat":1,"exp":1900000000})",         // sub as a string
      R"({"sub":0,"jti":"j","iat":1,"exp":1900000000})",            // sub not positive
      R"({"sub":-5,"jti":"j","iat":1,"exp":1900000000})",           // negative sub
      R"({"sub":4.5,"jti":"j","iat":1,"exp":1900000000})",          // fractional sub
      R"({"sub":42,"jti":7,"iat":1,"exp":1900000000})",             // jti not a string
      R"({"sub":42,"jti":"j","iat":1,"exp":"1900000000"})",         // exp as a string
      R"({"sub":42,"jti":"j","iat":1,"exp":1e300})",                // exp beyond int64
      R"([42])",                                                    // not an object
      R"(not json)",                                                // not JSON
      R"({"sub":42,"jti":"j","iat":1,"exp":1900000000} trailing)",  // trailing garbage
  };
  for (const char* payload : kBad) {
    EXPECT_FALSE(jwt_verify(forge(kHs256, payload), kSecret, kNow)) << payload;
  }
}

TEST_F(JwtTest, Base64urlRoundTripsEveryByteWithoutPadding) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= all.size(); n += 1 + n / 4) {
    std::string in = all.substr(0, n);
    std::string enc = base64url_encode(in);
    EXPECT_EQ(enc.find_first_of("=+/"), std::string::npos) << enc;
    EXPECT_EQ(base64url_decode(enc).value_or("<fail>"), in) << n;
  }
}

TEST_F(JwtTest, Base64urlKnownVectors) {
  expect_each(base64url_encode,
              {{"", ""}, {"f", "Zg"}, {"fo", "Zm8"}, {"foo", "Zm9v"}, {"\xfb\xff", "-_8"}});
  EXPECT_EQ(base64url_decode("-_8").value_or(""), "\xfb\xff");
  EXPECT_EQ(base64url_decode("").value_or("<fail>"), "");
}

TEST_F(JwtTest, Base64urlDecodeRefusesMalformedInput) {
  EXPECT_FALSE(base64url_decode("Zg=="));   // padding
  EXPECT_FALSE(base64url_decode("+/8"));    // standard alphabet
  EXPECT_FALSE(base64url_decode("Zm9v!"));  // not in the alphabet
  EXPECT_FALSE(base64url_decode("Z"));      // a lone 6-bit group is not a byte
  EXPECT_FALSE(base64url_decode("Zm 9v"));  // whitespace
  EXPECT_FALSE(base64url_decode(std::string("Zm\0v", 4)));
}

// Found by tests/fuzz/jwt_fuzz.cc: libsodium alone reads every byte of 0x80
// or more as '_', so "Zm\xff\xff" decoded as "Zm__" does ("fo\xff"): a
// token had several spellings.
TEST_F(JwtTest, Base64urlRefusesBytesOutsideTheAlphabet) {
  EXPECT_EQ(base64url_decode("Zm__").value_or("?"), "fo\xff");
  EXPECT_FALSE(base64url_decode("Zm\xff\xff"));
  EXPECT_FALSE(base64url_decode("Zm_\x80"));
  EXPECT_FALSE(base64url_decode("\xf4"));
  // A token whose payload is spelled with such a byte, even correctly
  // signed over that spelling, is refused.
  // ("???" encodes as "Pz8_".)
  std::string payload =
      base64url_encode(R"({"sub":42,"jti":"5f0c7a52-3d1b-4c8e-9a6f-0123456789ab","iat":1799999990,)"
                       R"("exp":1800003600,"p":"???"})");
  std::string input = base64url_encode(kHs256) + "." + payload;
  ASSERT_TRUE(jwt_verify(input + "." + base64url_encode(hmac(kSecret, input)), kSecret, kNow));
  ASSERT_NE(payload.find('_'), std::string::npos);
  payload[payload.find('_')] = '\xff';
  input = base64url_encode(kHs256) + "." + payload;
  EXPECT_FALSE(jwt_verify(input + "." + base64url_encode(hmac(kSecret, input)), kSecret, kNow));
}

TEST_F(JwtTest, RandomUuidIsVersion4TextAndUnique) {
  const std::regex kUuid("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string u = random_uuid();
    EXPECT_TRUE(std::regex_match(u, kUuid)) << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace ca
