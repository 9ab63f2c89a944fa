#include "json_arena.h"

#include <cjson/cJSON.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
// Sanitizer builds keep released arena memory poisoned, and a redzone after
// each allocation, so a value used after its scope or written past its end is
// reported like any heap error.
#define CA_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define CA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
constexpr size_t kRedzone = 16;
#else
#define CA_POISON(p, n) ((void)(p), (void)(n))
#define CA_UNPOISON(p, n) ((void)(p), (void)(n))
constexpr size_t kRedzone = 0;
#endif

namespace ca {
namespace {

// The first block. A thread keeps one block between requests, sized to the
// most its requests have needed, up to kKeptMax: a request that outgrew it
// used to malloc its extra blocks and free them at the end, and blocks that
// large are mmap'ed, so every page of them faulted in anew on every request
// (a tenth of the active list handler's CPU, in the kernel).
constexpr size_t kBlockSize = 64 * 1024;
constexpr size_t kKeptMax = 512 * 1024;
constexpr size_t kAlign = alignof(std::max_align_t);

struct Block {
  char* data;
  size_t size;
};

struct Arena {
  bool active = false;
  std::vector<Block> blocks;  // blocks[0] is kept between scopes
  size_t used = 0;            // in blocks.back()
  size_t taken = 0;           // by this scope, in all blocks

  bool owns(const void* p) const {
    auto addr = reinterpret_cast<uintptr_t>(p);
    for (const Block& b : blocks) {
      auto start = reinterpret_cast<uintptr_t>(b.data);
      if (addr >= start && addr < start + b.size) return true;
    }
    return false;
  }

  void* take(size_t size) {
    if (size > SIZE_MAX / 2) return nullptr;  // as malloc would; keeps `step` from wrapping
    size_t step = (size + kRedzone + kAlign - 1) & ~(kAlign - 1);
    if (blocks.empty() || used + step > blocks.back().size) {
      // Each new block doubles the last, so a large body (up to 1 MiB of
      // JSON, tens of MiB of nodes) takes a handful of blocks and owns(),
      // run on every free, stays a short loop.
      size_t block = blocks.empty() ? kBlockSize : blocks.back().size * 2;
      if (block < step) block = step;
      char* data = static_cast<char*>(std::malloc(block));
      if (data == nullptr) return nullptr;
      CA_POISON(data, block);
      blocks.push_back({data, block});
      used = 0;
    }
    char* p = blocks.back().data + used;
    used += step;
    taken += step;
    CA_UNPOISON(p, size);
    return p;
  }

  // Keeps one block for the next request. When this request needed more
  // than the kept block, the extra blocks go back, and so does the first
  // one if it is smaller than what the request took: one block that large
  // (a power of two, at most kKeptMax) takes its place. A first block made
  // larger than kKeptMax for one huge first allocation is replaced too.
  void reset() {
    bool oversized = !blocks.empty() && blocks[0].size > kKeptMax;
    if (blocks.size() > 1 || oversized) {
      size_t keep = kBlockSize;
      while (keep < taken && keep < kKeptMax) keep *= 2;
      if (keep <= blocks[0].size && !oversized) {
        for (size_t i = 1; i < blocks.size(); ++i) {
          CA_UNPOISON(blocks[i].data, blocks[i].size);
          std::free(blocks[i].data);
        }
        blocks.resize(1);
      } else {
        release();
        if (char* data = static_cast<char*>(std::malloc(keep))) blocks.push_back({data, keep});
      }
    }
    if (!blocks.empty()) CA_POISON(blocks[0].data, blocks[0].size);
    used = 0;
    taken = 0;
  }

  void release() {
    for (const Block& b : blocks) {
      CA_UNPOISON(b.data, b.size);
      std::free(b.data);
    }
    blocks.clear();
  }

  ~Arena() { release(); }
};

thread_local Arena arena;

}  // namespace

void* json_arena_alloc(size_t size) {
  if (!arena.active) return std::malloc(size);
  return arena.take(size);
}

void json_arena_free(void* p) {
  // Arena memory is released by the scope; anything else was malloc'ed.
  if (p != nullptr && !arena.owns(p)) std::free(p);
}

size_t json_arena_reserved() {
  size_t total = 0;
  for (const Block& b : arena.blocks) total += b.size;
  return total;
}

void json_arena_release() {
  if (!arena.active) arena.release();
}

void json_arena_install() {
  cJSON_Hooks hooks{json_arena_alloc, json_arena_free};
  cJSON_InitHooks(&hooks);
}

JsonArenaScope::JsonArenaScope() { arena.active = true; }

JsonArenaScope::~JsonArenaScope() {
  arena.active = false;
  arena.reset();
}

}  // namespace ca
