// The request id a handler accepts (common/request_id.h): nginx's rule,
// 1 to 64 characters of [A-Za-z0-9._-], else a fresh 32-hex-digit id.
#include "request_id.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <string>

namespace ca {
namespace {

bool is_fresh_id(const std::string& id) {
  if (id.size() != 32) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

TEST(RequestId, ACleanIdIsKept) {
  ASSERT_GE(sodium_init(), 0);
  for (const std::string& id :
       {std::string("a"), std::string("0f3c2d9a-1b2c-4d5e-8f90-a1b2c3d4e5f6"),
        std::string("trace.id_1-2"), std::string(64, 'Z'), std::string("...---___")}) {
    EXPECT_TRUE(request_id_is_clean(id)) << id;
    EXPECT_EQ(clean_request_id(id), id);
  }
}

TEST(RequestId, AnythingElseIsReplacedByAFreshId) {
  ASSERT_GE(sodium_init(), 0);
  for (const std::string& id :
       {std::string(""), std::string(65, 'a'), std::string("a b"), std::string("a\nlevel=error"),
        std::string("a\"}"), std::string("a\r"), std::string("id\\x"), std::string("caf\xc3\xa9"),
        std::string("a\0b", 3), std::string("a/b"), std::string("a=b")}) {
    EXPECT_FALSE(request_id_is_clean(id)) << id;
    std::string fresh = clean_request_id(id);
    EXPECT_TRUE(is_fresh_id(fresh)) << fresh;
    EXPECT_NE(fresh, id);
  }
  // Fresh each time.
  EXPECT_NE(clean_request_id(""), clean_request_id(""));
}

}  // namespace
}  // namespace ca
