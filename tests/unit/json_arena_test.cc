#include "json_arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "json.h"

namespace ca {
namespace {

class JsonArena : public ::testing::Test {
 protected:
  void SetUp() override {
    json_arena_install();
    json_arena_release();  // each test starts from an empty arena
  }
};

// A list page's worth of objects, as the list handlers build them.
Json sample_page(int rows) {
  Json data = json_array();
  for (int i = 0; i < rows; ++i) {
    Json row = json_object();
    json_add_int(row.get(), "id", i);
    json_add_str(row.get(), "title", "Announcement " + std::to_string(i));
    json_add_bool(row.get(), "is_read", i % 2 == 0);
    json_add_null(row.get(), "topic");
    json_append(data.get(), std::move(row));
  }
  return data;
}

TEST_F(JsonArena, OutsideAScopeNothingIsTakenFromTheArena) {
  size_t before = json_arena_reserved();
  Json page = sample_page(10);
  EXPECT_EQ(json_arena_reserved(), before);
}

TEST_F(JsonArena, AScopeServesTheTreeAndKeepsOneBlockAfterwards) {
  std::string inside;
  {
    JsonArenaScope scope;
    Json page = sample_page(40);
    EXPECT_GT(json_arena_reserved(), 0u);
    inside = json_dump(page.get());
  }
  EXPECT_EQ(json_arena_reserved(), 64u * 1024);
  // The same tree built with malloc prints the same text.
  EXPECT_EQ(json_dump(sample_page(40).get()), inside);
}

TEST_F(JsonArena, ALargerRequestLeavesOneBlockThatFitsTheNextOneLikeIt) {
  size_t kept = 0;
  {
    JsonArenaScope scope;
    Json page = sample_page(300);  // more than one 64 KiB block
    EXPECT_GT(json_arena_reserved(), 64u * 1024);
    Json parsed = json_parse(json_dump(page.get()));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(cJSON_GetArraySize(parsed.get()), 300);
  }
  kept = json_arena_reserved();
  EXPECT_GT(kept, 64u * 1024);
  EXPECT_LE(kept, 512u * 1024);
  EXPECT_EQ(kept & (kept - 1), 0u);  // a power of two
  {
    // The same request again is served from that one block: nothing is
    // allocated from the system, nothing given back.
    JsonArenaScope scope;
    Json page = sample_page(300);
    std::string text = json_dump(page.get());
    EXPECT_EQ(json_arena_reserved(), kept);
  }
  EXPECT_EQ(json_arena_reserved(), kept);
}

TEST_F(JsonArena, BlocksDoubleSoAHugeTreeTakesAFewOfThemAndAtMost512KiBIsKept) {
  {
    JsonArenaScope scope;
    Json page = sample_page(100000);  // tens of MiB of nodes and strings
    size_t reserved = json_arena_reserved();
    // Doubling up to the size needed: at most twice what is used, and a
    // dozen blocks rather than hundreds.
    EXPECT_GT(reserved, 8u * 1024 * 1024);
    EXPECT_LT(reserved, 64u * 1024 * 1024);
  }
  EXPECT_EQ(json_arena_reserved(), 512u * 1024);
}

TEST_F(JsonArena, OneAllocationLargerThanABlockGetsItsOwnBlock) {
  JsonArenaScope scope;
  std::string big(200 * 1024, 'x');
  Json value(cJSON_CreateString(big.c_str()));
  ASSERT_TRUE(value);
  EXPECT_EQ(std::string(cJSON_GetStringValue(value.get())), big);
  EXPECT_GE(json_arena_reserved(), 64u * 1024 + big.size());
}

TEST_F(JsonArena, AHugeFirstAllocationIsNotKeptPastTheLimit) {
  {
    JsonArenaScope scope;
    ASSERT_NE(json_arena_alloc(1024 * 1024), nullptr);
    EXPECT_GE(json_arena_reserved(), 1024u * 1024);
  }
  EXPECT_EQ(json_arena_reserved(), 512u * 1024);
}

TEST_F(JsonArena, ImpossibleSizesFailAsMallocWould) {
  JsonArenaScope scope;
  EXPECT_EQ(json_arena_alloc(SIZE_MAX), nullptr);
  EXPECT_EQ(json_arena_alloc(SIZE_MAX - 8), nullptr);
  EXPECT_NE(json_arena_alloc(16), nullptr);
}

TEST_F(JsonArena, AllocationsAreAlignedForAnyType) {
  JsonArenaScope scope;
  for (size_t size : {1u, 3u, 17u, 64u, 100u}) {
    auto p = reinterpret_cast<uintptr_t>(json_arena_alloc(size));
    EXPECT_EQ(p % alignof(std::max_align_t), 0u) << size;
  }
}

TEST_F(JsonArena, ValuesMadeBeforeTheScopeAreFreedNormallyInsideIt) {
  // Made with malloc; deleted while a scope is active, it must go to free()
  // (a sanitizer build reports a leak or a bad free otherwise).
  Json outside = sample_page(3);
  {
    JsonArenaScope scope;
    outside.reset();
    Json inside = sample_page(3);
  }
  EXPECT_FALSE(outside);
}

}  // namespace
}  // namespace ca
