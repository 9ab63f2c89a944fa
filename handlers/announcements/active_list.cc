#include "active_list.h"

#include <algorithm>

#include "json_rendered.h"

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

void append_active_item(std::string& out, std::string_view stored, bool is_read,
                        bool is_dismissed) {
  json_append_with(
      out, stored,
      {{"is_read", json_bool_text(is_read)}, {"is_dismissed", json_bool_text(is_dismissed)}});
}

std::string active_array_for(const ActiveList& list, std::vector<ReadState> reads) {
  auto by_id = [](const ReadState& a, const ReadState& b) {
    return a.announcement_id < b.announcement_id;
  };
  std::sort(reads.begin(), reads.end(), by_id);
  size_t size = 2;
  for (const std::string& item : list.items) size += item.size() + 40;
  std::string out;
  out.reserve(size);
  out += '[';
  for (size_t i = 0; i < list.ids.size(); ++i) {
    auto it = std::lower_bound(reads.begin(), reads.end(), ReadState{list.ids[i], false}, by_id);
    bool read = it != reads.end() && it->announcement_id == list.ids[i];
    if (read && it->dismissed) continue;
    if (out.size() > 1) out += ',';
    append_active_item(out, list.items[i], read, false);
  }
  out += ']';
  return out;
}

}  // namespace ca
