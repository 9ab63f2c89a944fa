// JWT (RFC 7519) with HS256 only, on libsodium's HMAC-SHA256.
//
// Pure functions: no I/O, no global state beyond libsodium (call
// crypto_init() once before use). Any `alg` other than "HS256" is refused,
// "none" included, so a token cannot choose how it is checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ca {

struct TokenClaims {
  int64_t sub = 0;  // user id
  std::string jti;  // session id (a UUID)
  int64_t iat = 0;  // issued at, unix seconds
  int64_t exp = 0;  // expires at, unix seconds
};

// Initialises libsodium; aborts the process if it cannot.
void crypto_init();

std::string jwt_sign(const TokenClaims& claims, std::string_view secret);

// The claims of a token with a valid HS256 signature that has not expired at
// `now` (unix seconds); nullopt otherwise.
std::optional<TokenClaims> jwt_verify(std::string_view token, std::string_view secret, int64_t now);

// Base64url without padding (the JWT alphabet).
std::string base64url_encode(std::string_view bytes);
std::optional<std::string> base64url_decode(std::string_view text);

// A random version-4 UUID in its text form.
std::string random_uuid();

}  // namespace ca
