// API keys (issue 40; docs/decisions/0105-api-key-format.md): what a key
// looks like, what is stored of it, and its scopes.
//
// A key is `cak_<tenant id>_<key id>_<creator id>_<64 hex digits>`: the
// prefix tells it from a session token (a JWT starts with "eyJ"); the ids
// say, before any database work, which tenant's shard holds it (the lookup
// is a primary-key probe of api_keys on that shard, sql/053), which key it
// is (the request's Principal::api_key_id) and whom it acts for (its
// creator, Principal::user_id), as a JWT's `sub` says it; the 256 random
// bits are the secret. Only the BLAKE2b-256 hash of the secret is stored,
// and the check (common/auth.cc) compares every part: a key with any id
// changed is refused like a wrong secret.
//
// Scopes name what a key may do: `<resource>:read|write`, `:write`
// implying `:read`. A route declares the one scope it needs in its route
// table (router.h); a route that declares none refuses every key.
//
// Pure functions (libsodium only, crypto_init() first); thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ca {

// The scope a route needs (Route::scope); kNone: keys are refused there.
enum class Scope : uint8_t {
  kNone = 0,
  kProductsRead,
  kProductsWrite,
  kCategoriesRead,
  kCategoriesWrite,
  kOrdersRead,
  kOrdersWrite,
  kAnnouncementsRead,
  kAnnouncementsWrite,
  kWebhooksRead,
  kWebhooksWrite,
  kEventsRead,
  kAuditRead,
};

// "products:read"; "" for kNone.
std::string_view scope_name(Scope scope);
// The scope named `name`, or nullopt for an unknown name (and for "").
std::optional<Scope> scope_parse(std::string_view name);
// Every grantable scope's name, in declaration order (for docs and errors).
std::vector<std::string_view> scope_names();
// The scopes of which a key needs one to pass a route needing `required`:
// itself and, for a `:read` scope, its `:write`. Empty for kNone.
std::vector<Scope> scopes_granting(Scope required);
// scopes_granting() as a PostgreSQL text[] literal: {products:read,products:write}.
std::string scopes_granting_literal(Scope required);

// The prefix every key starts with.
inline constexpr std::string_view kApiKeyPrefix = "cak_";
// Hex digits of the secret (32 random bytes).
inline constexpr size_t kApiKeySecretHexLength = 64;
// Hex digits of the secret kept in clear (api_keys.secret_head) for the
// `key_prefix` lists name a key by.
inline constexpr size_t kApiKeyShownSecretLength = 6;

struct ApiKeyParts {
  int64_t tenant_id = 0;
  int64_t key_id = 0;
  int64_t creator_id = 0;
  std::string secret;  // the 64 hex digits
};

// True when a bearer credential is meant as an API key (starts with
// kApiKeyPrefix), well-formed or not.
bool api_key_like(std::string_view credential);
// The parts of a well-formed key; nullopt otherwise (a wrong prefix, an id
// that is not a positive decimal without leading zeros, a secret that is
// not exactly 64 lower-case hex digits, anything more).
std::optional<ApiKeyParts> api_key_parse(std::string_view key);
// The key's text for its parts (ca_api_key_text(), sql/053, writes the same
// for the key_prefix of lists).
std::string api_key_format(const ApiKeyParts& parts);
// 64 fresh random hex digits.
std::string api_key_secret_generate();
// The stored hash of a secret: BLAKE2b-256 (crypto_generichash), as a
// PostgreSQL bytea literal ("\x" + 64 hex digits).
std::string api_key_secret_hash(std::string_view secret);

}  // namespace ca
