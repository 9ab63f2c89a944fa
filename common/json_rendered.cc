#include "json_rendered.h"

#include <utility>

namespace ca {

Json json_rendered(const Rows& rows, int row, Col col) {
  if (rows.is_null(row, col)) return Json(cJSON_CreateNull());
  return json_raw(rows.text(row, col));
}

Json json_rendered(const Rows& rows, int row) { return json_rendered(rows, row, rows.col("json")); }

Json json_rendered_array(const Rows& rows) {
  Json data = json_array();
  if (rows.empty()) return data;
  const Col json = rows.col("json");
  for (int i = 0; i < rows.size(); ++i) {
    if (!rows.is_null(i, json)) json_append(data.get(), json_raw(rows.text(i, json)));
  }
  return data;
}

Json json_rendered_page(const Rows& rows, const PageParams& page) {
  int64_t total = rows.empty() ? 0 : rows.int64(0, "total");
  return paginated(json_rendered_array(rows), page, total);
}

void json_append_with(std::string& out, std::string_view object,
                      std::initializer_list<JsonMember> members) {
  // `object` is `{...}`: its members, then the new ones, then the brace.
  const size_t close = object.rfind('}');
  const size_t last = object.find_last_not_of(" \t\n\r", close - 1);
  bool first = object[last] == '{';  // an object without members
  out.append(object.substr(0, close));
  for (const JsonMember& m : members) {
    if (!first) out += ',';
    first = false;
    out += '"';
    out += m.key.c_str();
    out += "\":";
    out.append(m.value);
  }
  out += '}';
}

std::string json_object_with(std::string_view object, std::initializer_list<JsonMember> members) {
  std::string out;
  json_append_with(out, object, members);
  return out;
}

}  // namespace ca
