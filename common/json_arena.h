// A per-thread bump allocator for cJSON while a request is served.
//
// Responses are cJSON trees of a node, a key and often a value string per
// field: a 40-row list is a few thousand malloc/free pairs, and glibc then
// spent more time consolidating its free lists than the handler spent on
// anything else (perf, GET /announcements/active). Inside a JsonArenaScope,
// cJSON takes its memory from blocks owned by the thread and frees nothing;
// the scope's end releases it all at once.
//
// Contract: a cJSON value made inside a scope must be gone (deleted, or only
// its serialised copy kept) when the scope ends; frees of such values are
// no-ops, and anything else (values made outside any scope, on another
// thread, before json_arena_install()) goes to malloc/free as before. One
// scope per thread at a time; nothing is shared between threads.
#pragma once

#include <cstddef>

namespace ca {

// Routes cJSON's allocations through the arena (cJSON_InitHooks). Call once,
// before any thread uses cJSON.
void json_arena_install();

class JsonArenaScope {
 public:
  JsonArenaScope();
  ~JsonArenaScope();
  JsonArenaScope(const JsonArenaScope&) = delete;
  JsonArenaScope& operator=(const JsonArenaScope&) = delete;
};

// For tests: the hooks' allocate/free as cJSON calls them, and the bytes this
// thread's arena holds from the system (one block is kept between scopes).
void* json_arena_alloc(size_t size);
void json_arena_free(void* p);
size_t json_arena_reserved();
// For tests: gives back every block this thread's arena holds, outside a scope.
void json_arena_release();

}  // namespace ca
