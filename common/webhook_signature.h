// Standard Webhooks signing (https://www.standardwebhooks.com/).
//
// A subscription's secret is "whsec_" followed by the standard base64 of 32
// random bytes; those decoded bytes are the HMAC-SHA256 key. A delivery is
// signed over "{webhook-id}.{webhook-timestamp}.{body}" and the
// `webhook-signature` header carries "v1,<standard base64 of the MAC>".
// Receivers verify with any Standard Webhooks library, or by recomputing the
// MAC and comparing in constant time.
//
// Pure functions on libsodium (crypto_init() first); thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ca {

inline constexpr std::string_view kWebhookSecretPrefix = "whsec_";
inline constexpr size_t kWebhookSecretBytes = 32;

// A new random secret: "whsec_" + base64 of kWebhookSecretBytes random bytes.
std::string webhook_secret_generate();

// The key bytes of a "whsec_<base64>" secret; nullopt when malformed.
// The prefix is optional, as in the Standard Webhooks libraries.
std::optional<std::string> webhook_secret_key(std::string_view secret);

// "v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>".
std::string webhook_signature(std::string_view key, std::string_view msg_id, int64_t timestamp,
                              std::string_view body);

// The `webhook-id` of a delivery: "msg_<tenant id>_<delivery id>". One
// delivery row is one message to one subscription, so the id is the same on
// every retry of it (receivers deduplicate on it) and unique across tenants.
// The delivery records show it too, rendered by ca_delivery_json() (sql/030):
// a change of format changes both.
std::string webhook_message_id(int64_t tenant_id, int64_t delivery_id);

// Standard base64 with padding (RFC 4648 §4), as Standard Webhooks uses.
std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace ca
