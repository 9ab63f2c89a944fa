// Invitation tokens: `inv_<tenant id>_<invitation id>_<secret>`.
//
// The secret is 32 random bytes (libsodium), base64url without padding (43
// characters). Only SHA-256 of the secret is stored; the ids say which row
// to compare it with, so the accept reads one row by its key, like every
// other tenant statement. Pure functions; thread-safe after crypto_init().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ca {

struct InvitationToken {
  int64_t tenant_id = 0;
  int64_t invitation_id = 0;
  std::string secret;  // the base64url text, as in the token
};

// A new random secret (43 base64url characters).
std::string invitation_secret_generate();

// The token handed to the inviting client.
std::string invitation_token_format(int64_t tenant_id, int64_t invitation_id,
                                    std::string_view secret);

// The parts of a well-formed token; nullopt for anything else (wrong
// prefix, ids that are not positive integers without leading zeros, a
// secret that is not 43 base64url characters).
std::optional<InvitationToken> invitation_token_parse(std::string_view token);

// SHA-256 of the secret as a bytea parameter in text form ("\x" + 64 hex digits).
std::string invitation_secret_hash(std::string_view secret);

}  // namespace ca
