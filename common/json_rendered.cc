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
  return paginated(json_rendered_array(rows), page, rendered_page_total(rows));
}

int64_t rendered_page_total(const Rows& rows) { return rows.empty() ? 0 : rows.int64(0, "total"); }

std::string rendered_page_text(const Rows& rows, const PageParams& page, const PageText& text,
                               std::string_view before, std::string_view after) {
  size_t size = before.size() + after.size() + text.extra.size() + 128;
  std::string out;
  if (rows.empty()) {
    out.reserve(size);
    out.append(before);
    out += R"({"data":[)";
  } else {
    const Col json = rows.col("json");
    for (int i = 0; i < rows.size(); ++i) size += rows.text(i, json).size() + 1;
    out.reserve(size);
    out.append(before);
    out += R"({"data":[)";
    bool first = true;
    for (int i = 0; i < rows.size(); ++i) {
      if (rows.is_null(i, json)) continue;
      if (!first) out += ',';
      first = false;
      out.append(rows.text(i, json));
    }
  }
  const int64_t last = text.total == 0 ? 1 : (text.total + page.per_page - 1) / page.per_page;
  out += R"(],"current_page":)";
  out += text.current_page_null ? std::string("null") : std::to_string(page.page);
  out += R"(,"last_page":)";
  out += std::to_string(last);
  out += R"(,"per_page":)";
  out += std::to_string(page.per_page);
  out += R"(,"total":)";
  out += std::to_string(text.total);
  out.append(text.extra);
  out += '}';
  out.append(after);
  return out;
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
