#include "invitation_token.h"

#include <sodium.h>

#include "router.h"

namespace ca {
namespace {

constexpr std::string_view kPrefix = "inv_";
constexpr size_t kSecretBytes = 32;
constexpr int kVariant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;

bool is_base64url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

std::string invitation_secret_generate() {
  unsigned char bytes[kSecretBytes];
  randombytes_buf(bytes, sizeof bytes);
  std::string out(sodium_base64_encoded_len(sizeof bytes, kVariant), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes, sizeof bytes, kVariant);
  out.pop_back();  // sodium counts the terminating NUL
  sodium_memzero(bytes, sizeof bytes);
  return out;
}

std::string invitation_token_format(int64_t tenant_id, int64_t invitation_id,
                                    std::string_view secret) {
  return std::string(kPrefix) + std::to_string(tenant_id) + "_" + std::to_string(invitation_id) +
         "_" + std::string(secret);
}

std::optional<InvitationToken> invitation_token_parse(std::string_view token) {
  if (token.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  token.remove_prefix(kPrefix.size());
  size_t first = token.find('_');
  if (first == std::string_view::npos) return std::nullopt;
  size_t second = token.find('_', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  InvitationToken out;
  out.tenant_id = parse_id(token.substr(0, first));
  out.invitation_id = parse_id(token.substr(first + 1, second - first - 1));
  std::string_view secret = token.substr(second + 1);
  // 32 bytes are 43 characters; the last one carries 4 bits and 2 zero bits.
  if (out.tenant_id == 0 || out.invitation_id == 0 || secret.size() != 43) return std::nullopt;
  for (char c : secret) {
    if (!is_base64url(c)) return std::nullopt;
  }
  out.secret = std::string(secret);
  return out;
}

std::string invitation_secret_hash(std::string_view secret) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  char hex[crypto_hash_sha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string("\\x") + hex;
}

}  // namespace ca
