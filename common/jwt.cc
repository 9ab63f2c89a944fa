#include "jwt.h"

#include <sodium.h>

#include <cstdio>
#include <cstdlib>

#include "json.h"

namespace ca {

void crypto_init() {
  if (sodium_init() < 0) {
    std::fprintf(stderr, "commerce-admin: libsodium failed to initialise\n");
    std::abort();
  }
}

std::string base64url_encode(std::string_view bytes) {
  const int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string out(sodium_base64_encoded_len(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), variant);
  out.resize(out.size() - 1);  // the encoded length counts the NUL
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  // libsodium's decoder compares characters in constant time on their
  // sign-extended value, and reads every byte of 0x80 or more as '_'
  // ("\xff" decodes as "_"): the alphabet is checked here first, so that a
  // byte string has one encoding only (found by tests/fuzz/jwt_fuzz.cc).
  for (char c : text) {
    bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!alphabet) return std::nullopt;
  }
  std::string out(text.size(), '\0');
  size_t len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

namespace {

// HMAC-SHA256 keyed with `key`. The key's inner and outer pads are hashed
// once per thread and key, not on every token (two of the few SHA-256
// blocks a token costs).
std::string hmac_sha256(std::string_view key, std::string_view message) {
  thread_local std::string keyed_with;
  thread_local crypto_auth_hmacsha256_state keyed;
  if (keyed_with.empty() || keyed_with != key) {
    crypto_auth_hmacsha256_init(&keyed, reinterpret_cast<const unsigned char*>(key.data()),
                                key.size());
    keyed_with = key;
  }
  crypto_auth_hmacsha256_state st = keyed;
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(message.data()),
                                message.size());
  crypto_auth_hmacsha256_final(&st, mac);
  sodium_memzero(&st, sizeof st);
  return std::string(reinterpret_cast<char*>(mac), sizeof mac);
}

// The header jwt_sign() writes; a token carrying exactly it needs no
// decoding or parsing to know its alg.
const std::string& our_header() {
  static const std::string header = base64url_encode(R"({"alg":"HS256","typ":"JWT"})");
  return header;
}

bool header_is_hs256(std::string_view header_b64) {
  if (header_b64 == our_header()) return true;
  auto header_text = base64url_decode(header_b64);
  if (!header_text) return false;
  Json header = json_parse(*header_text);
  auto alg = json_get_str(header.get(), "alg");
  return alg && *alg == "HS256";
}

}  // namespace

std::string jwt_sign(const TokenClaims& claims, std::string_view secret) {
  Json payload = json_object();
  json_add_int(payload.get(), "sub", claims.sub);
  json_add_str(payload.get(), "jti", claims.jti);
  json_add_int(payload.get(), "iat", claims.iat);
  json_add_int(payload.get(), "exp", claims.exp);
  std::string signing_input = our_header() + "." + base64url_encode(json_dump(payload.get()));
  return signing_input + "." + base64url_encode(hmac_sha256(secret, signing_input));
}

std::optional<TokenClaims> jwt_verify(std::string_view token, std::string_view secret,
                                      int64_t now) {
  size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return std::nullopt;
  size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  if (!header_is_hs256(token.substr(0, dot1))) return std::nullopt;

  // Compared as text: the expected MAC encoded, against the token's last
  // part, in constant time. (Its one canonical encoding: a variant with
  // other unused low bits in the last character is refused.)
  std::string_view signature = token.substr(dot2 + 1);
  std::string expected = base64url_encode(hmac_sha256(secret, token.substr(0, dot2)));
  if (signature.size() != expected.size() ||
      sodium_memcmp(expected.data(), signature.data(), expected.size()) != 0) {
    return std::nullopt;
  }

  auto payload_text = base64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  if (!payload_text) return std::nullopt;
  Json payload = json_parse(*payload_text);
  TokenClaims c;
  auto sub = json_get_int(payload.get(), "sub");
  auto jti = json_get_str(payload.get(), "jti");
  auto iat = json_get_int(payload.get(), "iat");
  auto exp = json_get_int(payload.get(), "exp");
  if (!sub || !jti || !exp || !iat || *sub <= 0) return std::nullopt;
  if (*exp <= now) return std::nullopt;
  c.sub = *sub;
  c.jti = std::string(*jti);
  c.iat = *iat;
  c.exp = *exp;
  return c;
}

std::string random_uuid() {
  unsigned char b[16];
  randombytes_buf(b, sizeof b);
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

}  // namespace ca
