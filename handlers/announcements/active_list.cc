#include "active_list.h"

#include <algorithm>

namespace ca {

void ActiveList::add(int64_t id, std::string_view item) {
  ids.push_back(id);
  items.emplace_back(item);
  ids_param.pop_back();  // the closing brace; "{}" when empty
  if (ids.size() > 1) ids_param += ',';
  ids_param += std::to_string(id);
  ids_param += '}';
}

bool ActiveList::current(int64_t at_version, int64_t now_us) const {
  return at_version == version && now_us >= valid_from_us && now_us < valid_until_us;
}

size_t ActiveList::bytes() const {
  size_t n = sizeof(ActiveList) + ids.capacity() * sizeof(int64_t) + ids_param.capacity() +
             items.capacity() * sizeof(std::string);
  for (const std::string& item : items) n += item.capacity();
  return n;
}

std::string active_item_json(std::string_view stored, bool is_read, bool is_dismissed) {
  std::string out;
  out.reserve(stored.size() + 40);
  out.append(stored.substr(0, stored.size() - 1));
  out += is_read ? R"(,"is_read":true)" : R"(,"is_read":false)";
  out += is_dismissed ? R"(,"is_dismissed":true})" : R"(,"is_dismissed":false})";
  return out;
}

std::vector<std::string> active_items_for(const ActiveList& list, std::vector<ReadState> reads) {
  auto by_id = [](const ReadState& a, const ReadState& b) {
    return a.announcement_id < b.announcement_id;
  };
  std::sort(reads.begin(), reads.end(), by_id);
  std::vector<std::string> out;
  out.reserve(list.ids.size());
  for (size_t i = 0; i < list.ids.size(); ++i) {
    auto it = std::lower_bound(reads.begin(), reads.end(), ReadState{list.ids[i], false}, by_id);
    bool read = it != reads.end() && it->announcement_id == list.ids[i];
    if (read && it->dismissed) continue;
    out.push_back(active_item_json(list.items[i], read, false));
  }
  return out;
}

std::shared_ptr<const ActiveList> ActiveListCache::find(int64_t tenant_id) {
  auto it = slots_.find(tenant_id);
  if (it == slots_.end()) return nullptr;
  it->second.last_used = ++clock_;
  return it->second.list;
}

void ActiveListCache::store(int64_t tenant_id, std::shared_ptr<const ActiveList> list) {
  auto old = slots_.find(tenant_id);
  if (old != slots_.end()) drop(old);
  size_t size = list->bytes();
  if (size > max_bytes_ / 4) return;
  while (bytes_ + size > max_bytes_) {
    auto oldest = std::min_element(slots_.begin(), slots_.end(), [](const auto& a, const auto& b) {
      return a.second.last_used < b.second.last_used;
    });
    drop(oldest);
  }
  bytes_ += size;
  slots_.emplace(tenant_id, Slot{std::move(list), ++clock_});
}

void ActiveListCache::drop(std::unordered_map<int64_t, Slot>::iterator it) {
  bytes_ -= it->second.list->bytes();
  slots_.erase(it);
}

}  // namespace ca
