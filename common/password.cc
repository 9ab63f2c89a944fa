#include "password.h"

#include <sodium.h>

#include <atomic>
#include <climits>
#include <mutex>

namespace ca {
namespace {

std::atomic<int> slots_max{INT_MAX};
std::atomic<int> slots_taken{0};

}  // namespace

void password_limit_concurrency(int max) { slots_max.store(max < 1 ? 1 : max); }

std::optional<PasswordSlot> PasswordSlot::try_take() {
  int max = slots_max.load();
  int taken = slots_taken.load();
  do {
    if (taken >= max) return std::nullopt;
  } while (!slots_taken.compare_exchange_weak(taken, taken + 1));
  return PasswordSlot();
}

PasswordSlot::~PasswordSlot() {
  if (held_) slots_taken.fetch_sub(1);
}

std::optional<std::string> password_hash(std::string_view password) {
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(),
                            crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE,
                            crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return std::nullopt;
  }
  return std::string(out);
}

bool password_verify(std::string_view hash, std::string_view password) {
  std::string h(hash);  // needs NUL termination
  return crypto_pwhash_str_verify(h.c_str(), password.data(), password.size()) == 0;
}

bool password_verify_dummy(std::string_view password) {
  static std::once_flag once;
  static std::string dummy;
  std::call_once(once, [] {
    unsigned char random[16];
    randombytes_buf(random, sizeof random);
    dummy = password_hash(std::string_view(reinterpret_cast<char*>(random), sizeof random))
                .value_or("");
  });
  password_verify(dummy, password);
  return false;
}

}  // namespace ca
