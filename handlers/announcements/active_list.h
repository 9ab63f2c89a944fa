// A tenant's active announcements as the database last gave them, kept to
// answer GET /announcements/active without reading them again while they
// are still the list (docs/decisions/0284-active-list-kept-per-thread.md).
//
// A kept list is never trusted by itself: every request asks the database,
// in the round trip that checks the caller's session, for the tenant's list
// version (sql/019) and its clock, and uses the list only when both say it
// is current (ActiveList::current). The caller's read records of the list
// are kept the same way, against the caller's read version in the tenant.
// So a kept list is a copy of what the statement would return, not a
// second source of truth, and no write has to reach the handlers.
//
// Pure: no database, no I/O. A KeptCache is not thread-safe; the handler
// keeps its caches per thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
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
  // The tenant had more live rows than the list holds (the first
  // ACTIVE_ANNOUNCEMENTS_MAX): a caller who dismissed one of the held rows
  // would see rows beyond them, so such a caller's list is read instead.
  bool truncated = false;

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

// One caller's read records of the announcements of one kept list, as of
// that list's version and the caller's read version (sql/019).
struct ReaderState {
  int64_t list_version = 0;
  int64_t reads_version = 0;
  std::vector<ReadState> reads;

  bool current(int64_t at_list_version, int64_t at_reads_version) const {
    return at_list_version == list_version && at_reads_version == reads_version;
  }
  size_t bytes() const { return sizeof(ReaderState) + reads.capacity() * sizeof(ReadState); }
};

struct ReaderKey {
  int64_t tenant_id = 0;
  int64_t user_id = 0;
  bool operator==(const ReaderKey& o) const {
    return tenant_id == o.tenant_id && user_id == o.user_id;
  }
};
struct ReaderKeyHash {
  size_t operator()(const ReaderKey& k) const {
    return std::hash<int64_t>()(k.tenant_id) * 31 + std::hash<int64_t>()(k.user_id);
  }
};

// A stored active_json object with the caller's read state added after its
// own members (common/json_rendered.h's json_append_with), appended to `out`.
void append_active_item(std::string& out, std::string_view stored, bool is_read, bool is_dismissed);

// The list's items as the caller sees them, as one JSON array: dismissed
// ones left out, the others with is_read / is_dismissed. `reads` may be in
// any order and may name announcements the list does not hold.
std::string active_array_for(const ActiveList& list, std::vector<ReadState> reads);

// Kept values by key, at most `max_bytes` in all (Value::bytes()): storing
// past it drops the least recently used, and a value larger than a quarter
// of it is not kept at all (it is read from the database each time instead).
template <class Key, class Value, class Hash = std::hash<Key>>
class KeptCache {
 public:
  explicit KeptCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The kept value for `key`, or null.
  std::shared_ptr<const Value> find(const Key& key) {
    auto it = slots_.find(key);
    if (it == slots_.end()) return nullptr;
    it->second.last_used = ++clock_;
    return it->second.value;
  }

  // Keeps `value` for `key` in place of any older one.
  void store(const Key& key, std::shared_ptr<const Value> value) {
    auto old = slots_.find(key);
    if (old != slots_.end()) drop(old);
    size_t size = value->bytes();
    if (size > max_bytes_ / 4) return;
    while (bytes_ + size > max_bytes_) {
      auto oldest = std::min_element(
          slots_.begin(), slots_.end(),
          [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
      drop(oldest);
    }
    bytes_ += size;
    slots_.emplace(key, Slot{std::move(value), ++clock_});
  }

  size_t size() const { return slots_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  struct Slot {
    std::shared_ptr<const Value> value;
    uint64_t last_used = 0;
  };
  using Map = std::unordered_map<Key, Slot, Hash>;

  void drop(typename Map::iterator it) {
    bytes_ -= it->second.value->bytes();
    slots_.erase(it);
  }

  size_t max_bytes_;
  size_t bytes_ = 0;
  uint64_t clock_ = 0;
  Map slots_;
};

using ActiveListCache = KeptCache<int64_t, ActiveList>;
using ReaderStateCache = KeptCache<ReaderKey, ReaderState, ReaderKeyHash>;

}  // namespace ca
