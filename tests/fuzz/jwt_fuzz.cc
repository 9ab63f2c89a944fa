// libFuzzer target: the JWT parser and verifier (common/jwt.h).
//
// Each input is tried twice: as a token as it stands (whose signature will
// almost never match, so this covers the splitting, the header's decoding
// and parsing, and the comparison), and split at its first newline into a
// header and a payload that are encoded and signed with the key (HMAC-SHA256
// computed here with libsodium, independently of jwt.cc), so that the
// payload's parsing and the claim checks are reached too.
// Properties: an accepted token has sub > 0 and an exp after `now`, and
// jwt_sign() of its claims verifies to the same claims; the same token is
// refused under another key and once it has expired.
#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "jwt.h"

namespace {

constexpr std::string_view kSecret = "fuzzing-secret-of-at-least-32-bytes!!";
constexpr std::string_view kOtherSecret = "another-secret-of-at-least-32-bytes!!";
constexpr int64_t kNow = 1'800'000'000;

std::string hmac(std::string_view key, std::string_view message) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(message.data()),
                                message.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&st, mac);
  return std::string(reinterpret_cast<char*>(mac), sizeof mac);
}

void check_accepted(std::string_view token, const ca::TokenClaims& c) {
  FUZZ_CHECK(c.sub > 0);
  FUZZ_CHECK(c.exp > kNow);
  FUZZ_CHECK(!ca::jwt_verify(token, kOtherSecret, kNow));
  FUZZ_CHECK(!ca::jwt_verify(token, kSecret, c.exp));
  auto again = ca::jwt_verify(ca::jwt_sign(c, kSecret), kSecret, kNow);
  FUZZ_CHECK(again && again->sub == c.sub && again->jti == c.jti && again->iat == c.iat &&
             again->exp == c.exp);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ca::crypto_init();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto c = ca::jwt_verify(input, kSecret, kNow)) check_accepted(input, *c);
  if (auto decoded = ca::base64url_decode(input)) {
    FUZZ_CHECK(ca::base64url_encode(*decoded) == input);
  }

  size_t newline = input.find('\n');
  std::string_view header = newline == std::string_view::npos ? R"({"alg":"HS256","typ":"JWT"})"
                                                              : input.substr(0, newline);
  std::string_view payload = newline == std::string_view::npos ? input : input.substr(newline + 1);
  std::string signing_input = ca::base64url_encode(header) + "." + ca::base64url_encode(payload);
  std::string token = signing_input + "." + ca::base64url_encode(hmac(kSecret, signing_input));
  if (auto c = ca::jwt_verify(token, kSecret, kNow)) check_accepted(token, *c);
  return 0;
}
