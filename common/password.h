// Password hashing with Argon2id (libsodium crypto_pwhash_str).
// Thread-safe. Each call costs ~64 MiB and tens of milliseconds by design.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ca {

// The encoded hash ("$argon2id$..."), or nullopt when out of memory.
std::optional<std::string> password_hash(std::string_view password);

// True when `password` matches `hash`.
bool password_verify(std::string_view hash, std::string_view password);

// Does the same work as password_verify against a fixed hash and returns
// false: used for unknown emails, so timing does not reveal which exist.
bool password_verify_dummy(std::string_view password);

}  // namespace ca
