#include "webhook_signature.h"

#include <sodium.h>

namespace ca {

std::string base64_encode(std::string_view bytes) {
  const int variant = sodium_base64_VARIANT_ORIGINAL;
  std::string out(sodium_base64_encoded_len(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), variant);
  out.pop_back();  // sodium counts the terminating NUL
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  // libsodium reads every byte of 0x80 or more as '/' (see base64url_decode
  // in jwt.cc): the alphabet is checked first.
  for (char c : text) {
    bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/' || c == '=';
    if (!alphabet) return std::nullopt;
  }
  std::string out(text.size() / 4 * 3 + 3, '\0');
  size_t len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

std::string webhook_secret_generate() {
  unsigned char key[kWebhookSecretBytes];
  randombytes_buf(key, sizeof key);
  std::string secret = std::string(kWebhookSecretPrefix) +
                       base64_encode(std::string_view(reinterpret_cast<char*>(key), sizeof key));
  sodium_memzero(key, sizeof key);
  return secret;
}

std::optional<std::string> webhook_secret_key(std::string_view secret) {
  if (secret.substr(0, kWebhookSecretPrefix.size()) == kWebhookSecretPrefix) {
    secret.remove_prefix(kWebhookSecretPrefix.size());
  }
  std::optional<std::string> key = base64_decode(secret);
  if (!key || key->empty()) return std::nullopt;
  return key;
}

std::string webhook_message_id(int64_t tenant_id, int64_t delivery_id) {
  return "msg_" + std::to_string(tenant_id) + "_" + std::to_string(delivery_id);
}

std::string webhook_signature(std::string_view key, std::string_view msg_id, int64_t timestamp,
                              std::string_view body) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  std::string ts = std::to_string(timestamp);
  auto feed = [&st](std::string_view part) {
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(part.data()),
                                  part.size());
  };
  feed(msg_id);
  feed(".");
  feed(ts);
  feed(".");
  feed(body);
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&st, mac);
  return "v1," + base64_encode(std::string_view(reinterpret_cast<char*>(mac), sizeof mac));
}

}  // namespace ca
