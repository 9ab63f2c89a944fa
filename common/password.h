// Password hashing with Argon2id (libsodium crypto_pwhash_str).
// Thread-safe. Each call costs ~64 MiB and tens of milliseconds by design.
//
// A handler process can bound how many of them run at once
// (password_limit_concurrency, PasswordSlot): a flood of logins then cannot
// take every serve thread (and database connection), and /healthz and cheap
// requests keep a thread. The bound is process-wide state, set once before
// the serve threads start.
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

// At most `max` PasswordSlots exist at once in this process from now on
// (>= 1). Call before any thread takes a slot. Without a call: no bound.
void password_limit_concurrency(int max);

// The right to run one password hash (verify or hash) while it lives.
// Move-only; releases the slot when destroyed.
class PasswordSlot {
 public:
  // A slot, or nullopt when the bound is reached. Never waits: a thread that
  // waited here would be a thread taken from the other requests.
  static std::optional<PasswordSlot> try_take();

  PasswordSlot(PasswordSlot&& other) noexcept : held_(other.held_) { other.held_ = false; }
  PasswordSlot(const PasswordSlot&) = delete;
  PasswordSlot& operator=(const PasswordSlot&) = delete;
  PasswordSlot& operator=(PasswordSlot&&) = delete;
  ~PasswordSlot();

 private:
  PasswordSlot() = default;
  bool held_ = true;
};

}  // namespace ca
