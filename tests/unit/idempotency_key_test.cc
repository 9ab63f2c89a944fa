// What an Idempotency-Key may be (common/idempotency.h): 1 to 255
// printable ASCII characters.
#include <gtest/gtest.h>

#include <string>

#include "idempotency.h"

namespace ca {
namespace {

TEST(IdempotencyKey, OneTo255PrintableAsciiCharacters) {
  EXPECT_TRUE(idempotency_key_valid("k"));
  EXPECT_TRUE(idempotency_key_valid("550e8400-e29b-41d4-a716-446655440000"));
  EXPECT_TRUE(idempotency_key_valid(" ~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}"));
  EXPECT_TRUE(idempotency_key_valid(std::string(255, 'x')));
}

TEST(IdempotencyKey, EmptyTooLongControlAndNonAsciiAreRefused) {
  EXPECT_FALSE(idempotency_key_valid(""));
  EXPECT_FALSE(idempotency_key_valid(std::string(256, 'x')));
  EXPECT_FALSE(idempotency_key_valid("tab\there"));
  EXPECT_FALSE(idempotency_key_valid(std::string("nul\0x", 5)));
  EXPECT_FALSE(idempotency_key_valid("line\nbreak"));
  EXPECT_FALSE(idempotency_key_valid("del\x7f"));
  EXPECT_FALSE(idempotency_key_valid("caf\xc3\xa9"));
}

}  // namespace
}  // namespace ca
