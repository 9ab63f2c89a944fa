#include "api_key.h"

#include <sodium.h>

#include <array>

#include "router.h"

namespace ca {
namespace {

struct ScopeName {
  Scope scope;
  std::string_view name;
};

constexpr std::array<ScopeName, 12> kScopes{{
    {Scope::kProductsRead, "products:read"},
    {Scope::kProductsWrite, "products:write"},
    {Scope::kCategoriesRead, "categories:read"},
    {Scope::kCategoriesWrite, "categories:write"},
    {Scope::kOrdersRead, "orders:read"},
    {Scope::kOrdersWrite, "orders:write"},
    {Scope::kAnnouncementsRead, "announcements:read"},
    {Scope::kAnnouncementsWrite, "announcements:write"},
    {Scope::kWebhooksRead, "webhooks:read"},
    {Scope::kWebhooksWrite, "webhooks:write"},
    {Scope::kEventsRead, "events:read"},
    {Scope::kAuditRead, "audit:read"},
}};

// The `:write` scope that implies a `:read` one (kNone when there is none:
// events:read and audit:read have no write).
Scope write_of(Scope read) {
  switch (read) {
    case Scope::kProductsRead:
      return Scope::kProductsWrite;
    case Scope::kCategoriesRead:
      return Scope::kCategoriesWrite;
    case Scope::kOrdersRead:
      return Scope::kOrdersWrite;
    case Scope::kAnnouncementsRead:
      return Scope::kAnnouncementsWrite;
    case Scope::kWebhooksRead:
      return Scope::kWebhooksWrite;
    default:
      return Scope::kNone;
  }
}

// Takes a positive decimal id and the '_' after it off the front of `text`.
bool take_id(std::string_view& text, int64_t* id) {
  size_t end = text.find('_');
  if (end == std::string_view::npos) return false;
  *id = parse_id(text.substr(0, end));
  text.remove_prefix(end + 1);
  return *id != 0;
}

}  // namespace

std::string_view scope_name(Scope scope) {
  for (const ScopeName& s : kScopes) {
    if (s.scope == scope) return s.name;
  }
  return "";
}

std::optional<Scope> scope_parse(std::string_view name) {
  for (const ScopeName& s : kScopes) {
    if (s.name == name) return s.scope;
  }
  return std::nullopt;
}

std::vector<std::string_view> scope_names() {
  std::vector<std::string_view> out;
  for (const ScopeName& s : kScopes) out.push_back(s.name);
  return out;
}

std::vector<Scope> scopes_granting(Scope required) {
  if (required == Scope::kNone) return {};
  std::vector<Scope> out{required};
  if (Scope write = write_of(required); write != Scope::kNone) out.push_back(write);
  return out;
}

std::string scopes_granting_literal(Scope required) {
  std::string out = "{";
  for (Scope s : scopes_granting(required)) {
    if (out.size() > 1) out += ',';
    out += scope_name(s);
  }
  return out + "}";
}

bool api_key_like(std::string_view credential) {
  return credential.substr(0, kApiKeyPrefix.size()) == kApiKeyPrefix;
}

std::optional<ApiKeyParts> api_key_parse(std::string_view key) {
  if (!api_key_like(key)) return std::nullopt;
  key.remove_prefix(kApiKeyPrefix.size());
  ApiKeyParts parts;
  if (!take_id(key, &parts.tenant_id) || !take_id(key, &parts.key_id) ||
      !take_id(key, &parts.creator_id) || key.size() != kApiKeySecretHexLength) {
    return std::nullopt;
  }
  for (char c : key) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  parts.secret = std::string(key);
  return parts;
}

std::string api_key_format(const ApiKeyParts& parts) {
  return std::string(kApiKeyPrefix) + std::to_string(parts.tenant_id) + "_" +
         std::to_string(parts.key_id) + "_" + std::to_string(parts.creator_id) + "_" + parts.secret;
}

std::string api_key_secret_generate() {
  unsigned char bytes[kApiKeySecretHexLength / 2];
  randombytes_buf(bytes, sizeof bytes);
  char hex[kApiKeySecretHexLength + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  return std::string(hex, kApiKeySecretHexLength);
}

std::string api_key_secret_hash(std::string_view secret) {
  unsigned char digest[crypto_generichash_BYTES];  // 32: BLAKE2b-256
  crypto_generichash(digest, sizeof digest, reinterpret_cast<const unsigned char*>(secret.data()),
                     secret.size(), nullptr, 0);
  char hex[sizeof digest * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string("\\x") + hex;
}

}  // namespace ca
