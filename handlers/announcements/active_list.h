// A tenant's active announcements as the database last gave them, kept to
// answer GET /announcements/active without reading them again while they
// are still the list (docs/performance.md, "Active list in memory").
//
// A kept list is never trusted by itself: every request asks the database,
// in the round trip that checks the caller's session, for the tenant's list
// version (sql/019) and its clock, and uses the list only when both say it
// is current (ActiveList::current). The caller's read state is read fresh
// every time. So a kept list is a copy of what the statement would return,
// not a second source of truth, and no write has to reach the handlers.
//
// Pure: no database, no I/O. An ActiveListCache is not thread-safe; the
// handler keeps one per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ca {

struct ActiveList {
  int64_t version = 0;
  // The database's clock (µs since the epoch) when the list was read, and
  // the first moment after it at which some row's scheduled_at or
  // expires_at changes what is live.
  int64_t valid_from_us = 0;
  int64_t valid_until_us = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> ids;        // in display order
  std::vector<std::string> items;  // each row's stored active_json, same order
  std::string ids_param = "{}";    // ids as a PostgreSQL array literal: {3,1,2}

  // Appends one row (in display order) and keeps ids_param in step.
  void add(int64_t id, std::string_view item);
  // True when this is the list at `version` and time `now_us` (the
  // database's): same version, and no boundary passed since it was read.
  bool current(int64_t version, int64_t now_us) const;
  // Heap bytes held, about.
  size_t bytes() const;
};

// One of the caller's read records of a listed announcement.
struct ReadState {
  int64_t announcement_id = 0;
  bool dismissed = false;
};

// A stored active_json object with the caller's read state added before
// its closing brace (the stored text is always one JSON object).
std::string active_item_json(std::string_view stored, bool is_read, bool is_dismissed);

// The list's items as the caller sees them: dismissed ones left out, the
// others with is_read / is_dismissed. `reads` may be in any order and may
// name announcements the list does not hold.
std::vector<std::string> active_items_for(const ActiveList& list, std::vector<ReadState> reads);

// Kept lists by tenant, at most `max_bytes` in all: storing past it drops
// the least recently used, and a list larger than a quarter of it is not
// kept at all (it is read from the database each time instead).
class ActiveListCache {
 public:
  explicit ActiveListCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The kept list of `tenant_id`, or null.
  std::shared_ptr<const ActiveList> find(int64_t tenant_id);
  // Keeps `list` for `tenant_id` in place of any older one.
  void store(int64_t tenant_id, std::shared_ptr<const ActiveList> list);

  size_t size() const { return slots_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  struct Slot {
    std::shared_ptr<const ActiveList> list;
    uint64_t last_used = 0;
  };
  void drop(std::unordered_map<int64_t, Slot>::iterator it);

  size_t max_bytes_;
  size_t bytes_ = 0;
  uint64_t clock_ = 0;
  std::unordered_map<int64_t, Slot> slots_;
};

}  // namespace ca
