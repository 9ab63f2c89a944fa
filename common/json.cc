#include "json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace ca {

Json json_parse(std::string_view text) {
  const char* end = nullptr;
  Json value(cJSON_ParseWithLengthOpts(text.data(), text.size(), &end, false));
  if (!value) return nullptr;
  // cJSON stops after the first value; anything but whitespace after it is an error.
  const char* stop = text.data() + text.size();
  for (const char* p = end; p < stop; ++p) {
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') return nullptr;
  }
  return value;
}

std::string json_dump(const cJSON* value) {
  char* text = cJSON_PrintUnformatted(value);
  if (text == nullptr) return "null";
  std::string out(text);
  cJSON_free(text);
  return out;
}

Json json_object() { return Json(cJSON_CreateObject()); }
Json json_array() { return Json(cJSON_CreateArray()); }

namespace {

// Links `item` under the literal `key` (not copied: cJSON_StringIsConst).
// When it cannot be linked (no object: its creation failed for lack of
// memory) the item is deleted, not leaked.
cJSON* add(cJSON* obj, JsonKey key, cJSON* item) {
  if (!cJSON_AddItemToObjectCS(obj, key.c_str(), item)) {
    cJSON_Delete(item);
    return nullptr;
  }
  return item;
}

// A string node owning one copy of `value`. cJSON_CreateString would need a
// NUL-terminated copy first and measure it again; this copies once, through
// cJSON's allocator, so cJSON_Delete frees it as its own.
cJSON* string_item(std::string_view value) {
  char* text = static_cast<char*>(cJSON_malloc(value.size() + 1));
  if (text == nullptr) return nullptr;
  if (!value.empty()) std::memcpy(text, value.data(), value.size());
  text[value.size()] = '\0';
  cJSON* item = cJSON_CreateStringReference(text);
  if (item == nullptr) {
    cJSON_free(text);
    return nullptr;
  }
  item->type &= ~cJSON_IsReference;  // owned, not borrowed
  return item;
}

}  // namespace

cJSON* json_add(cJSON* obj, JsonKey key, Json value) { return add(obj, key, value.release()); }

cJSON* json_add_copied_key(cJSON* obj, const std::string& key, Json value) {
  cJSON* raw = value.release();
  cJSON_AddItemToObject(obj, key.c_str(), raw);
  return raw;
}

void json_add_str(cJSON* obj, JsonKey key, std::string_view value) {
  add(obj, key, string_item(value));
}

void json_add_int(cJSON* obj, JsonKey key, int64_t value) {
  // As decimal text: cJSON keeps numbers as doubles and prints them with
  // "%1.15g" (9007199254740993 would lose its last digit), and the
  // sprintf/sscanf round trip it does per number was a tenth of a list
  // handler's CPU.
  char digits[24];
  *std::to_chars(digits, digits + sizeof digits - 1, value).ptr = '\0';
  add(obj, key, cJSON_CreateRaw(digits));
}

void json_add_num(cJSON* obj, JsonKey key, double value) {
  add(obj, key, cJSON_CreateNumber(value));
}

void json_add_bool(cJSON* obj, JsonKey key, bool value) { add(obj, key, cJSON_CreateBool(value)); }

void json_add_null(cJSON* obj, JsonKey key) { add(obj, key, cJSON_CreateNull()); }

void json_set_null(cJSON* obj, JsonKey key) {
  cJSON* null_item = cJSON_CreateNull();
  if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, key.c_str(), null_item)) {
    add(obj, key, null_item);
  }
}

void json_add_opt_str(cJSON* obj, JsonKey key, std::optional<std::string_view> value) {
  if (value) {
    json_add_str(obj, key, *value);
  } else {
    json_add_null(obj, key);
  }
}

void json_add_opt_int(cJSON* obj, JsonKey key, const std::optional<int64_t>& value) {
  if (value) {
    json_add_int(obj, key, *value);
  } else {
    json_add_null(obj, key);
  }
}

void json_append(cJSON* array, Json value) { cJSON_AddItemToArray(array, value.release()); }

Json json_raw(std::string_view text) {
  // cJSON copies a NUL-terminated string.
  thread_local std::string buf;
  buf.assign(text);
  return Json(cJSON_CreateRaw(buf.c_str()));
}

const cJSON* json_get(const cJSON* obj, const char* key) {
  if (obj == nullptr || !cJSON_IsObject(obj)) return nullptr;
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

std::optional<std::string_view> json_get_str(const cJSON* obj, const char* key) {
  const cJSON* item = json_get(obj, key);
  if (!cJSON_IsString(item)) return std::nullopt;
  return std::string_view(item->valuestring);
}

std::optional<int64_t> json_get_int(const cJSON* obj, const char* key) {
  int64_t out = 0;
  if (!json_is_integer(json_get(obj, key), &out)) return std::nullopt;
  return out;
}

bool json_is_integer(const cJSON* value, int64_t* out) {
  if (cJSON_IsRaw(value) && value->valuestring != nullptr) {
    // json_add_int's decimal text: an integer when it is all digits.
    const char* text = value->valuestring;
    const char* end = text + std::strlen(text);
    int64_t v = 0;
    auto [stop, ec] = std::from_chars(text, end, v);
    if (ec != std::errc() || stop != end || stop == text) return false;
    *out = v;
    return true;
  }
  if (!cJSON_IsNumber(value)) return false;
  double d = value->valuedouble;
  // 2^63 is exactly representable; anything at or above it does not fit.
  if (!std::isfinite(d) || d != std::floor(d) || d < -9223372036854775808.0 ||
      d >= 9223372036854775808.0) {
    return false;
  }
  *out = static_cast<int64_t>(d);
  return true;
}

std::optional<std::string> json_duplicate_key(const cJSON* value) {
  if (cJSON_IsObject(value) && value->child != nullptr && value->child->next != nullptr) {
    std::vector<std::string_view> names;
    for (const cJSON* m = value->child; m != nullptr; m = m->next) names.emplace_back(m->string);
    std::sort(names.begin(), names.end());
    auto twice = std::adjacent_find(names.begin(), names.end());
    if (twice != names.end()) return std::string(*twice);
  }
  for (const cJSON* child = value->child; child != nullptr; child = child->next) {
    if (auto key = json_duplicate_key(child)) return key;
  }
  return std::nullopt;
}

namespace {

bool number_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
bool number_grammar(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// True for a number literal (valid JSON) that is not zero but converts to a
// magnitude below the smallest normal double.
bool below_normal_range(std::string_view literal) {
  size_t exponent = literal.find_first_of("eE");
  if (exponent == std::string_view::npos && literal.size() <= 300) return false;
  std::string_view mantissa = literal.substr(0, exponent);
  if (mantissa.find_first_of("123456789") == std::string_view::npos) return false;  // a zero
  std::string text(literal);
  double v = std::strtod(text.c_str(), nullptr);
  return std::fabs(v) < std::numeric_limits<double>::min();
}

// Sets to NaN the numbers of `value` whose ordinals (in document order,
// ascending) are in marks[*next..]; `seen` counts the numbers passed.
void mark_numbers(cJSON* value, const std::vector<size_t>& marks, size_t* next, size_t* seen) {
  if (cJSON_IsNumber(value)) {
    if (*next < marks.size() && marks[*next] == *seen) {
      value->valuedouble = std::numeric_limits<double>::quiet_NaN();
      value->valueint = 0;
      ++*next;
    }
    ++*seen;
    return;
  }
  for (cJSON* child = value->child; child != nullptr && *next < marks.size(); child = child->next) {
    mark_numbers(child, marks, next, seen);
  }
}

}  // namespace

JsonTextFault json_check_text(std::string_view text, cJSON* value) {
  std::vector<size_t> tiny;  // ordinals of the numbers below the normal range
  size_t numbers = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) < 0x20) {
      if (c == '\0') return JsonTextFault::kNul;
      if (in_string || (c != '\t' && c != '\n' && c != '\r')) {
        return JsonTextFault::kControlCharacter;
      }
    } else if (in_string) {
      if (c == '\\') {
        const char e = i + 1 < text.size() ? text[i + 1] : '\0';
        if (e == 'u') {
          if (i + 5 >= text.size() || !is_hex(text[i + 2]) || !is_hex(text[i + 3]) ||
              !is_hex(text[i + 4]) || !is_hex(text[i + 5])) {
            return JsonTextFault::kInvalid;
          }
          if (text.substr(i + 2, 4) == "0000") return JsonTextFault::kNul;
          i += 5;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                   e == 'r' || e == 't') {
          ++i;  // (an escaped quote does not end the string)
        } else {
          return JsonTextFault::kInvalid;
        }
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      // Outside strings, only numbers hold these (true, false, null do not).
      size_t start = i;
      while (i + 1 < text.size() && number_char(text[i + 1])) ++i;
      std::string_view literal = text.substr(start, i + 1 - start);
      if (!number_grammar(literal)) return JsonTextFault::kInvalid;
      if (below_normal_range(literal)) tiny.push_back(numbers);
      ++numbers;
    }
  }
  if (!tiny.empty() && value != nullptr) {
    size_t next = 0, seen = 0;
    mark_numbers(value, tiny, &next, &seen);
  }
  return JsonTextFault::kNone;
}

size_t json_escaped_size(std::string_view text) {
  size_t size = 0;
  for (char c : text) {
    switch (c) {
      case '"':
      case '\\':
      case '\b':
      case '\f':
      case '\n':
      case '\r':
      case '\t':
        size += 2;
        break;
      default:
        size += static_cast<unsigned char>(c) < 0x20 ? 6 : 1;
    }
  }
  return size;
}

namespace {

// The length of numeric's text for `printed`, a number as cJSON prints it
// ("-12.5", "1e+300", "1.5e-07"): the scale is the fraction digits less the
// exponent, the integer part at least "0".
size_t numeric_text_size(std::string_view printed) {
  size_t sign = 0;
  if (!printed.empty() && printed.front() == '-') {
    sign = 1;
    printed.remove_prefix(1);
  }
  size_t e = printed.find_first_of("eE");
  std::string_view mantissa = printed.substr(0, e);
  long exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view digits = printed.substr(e + 1);
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  }
  size_t dot = mantissa.find('.');
  long whole = static_cast<long>(dot == std::string_view::npos ? mantissa.size() : dot);
  long fraction = dot == std::string_view::npos ? 0 : static_cast<long>(mantissa.size() - dot - 1);
  long scale = std::max(0L, fraction - exponent);
  return sign + static_cast<size_t>(std::max(1L, whole + exponent)) +
         (scale > 0 ? 1 + static_cast<size_t>(scale) : 0);
}

// json_stored_size() less json_dump()'s size, for the numbers under `value`.
long stored_numbers_growth(const cJSON* value) {
  if (cJSON_IsNumber(value)) {
    std::string printed = json_dump(value);
    return static_cast<long>(numeric_text_size(printed)) - static_cast<long>(printed.size());
  }
  long growth = 0;
  for (const cJSON* child = value->child; child != nullptr; child = child->next) {
    growth += stored_numbers_growth(child);
  }
  return growth;
}

}  // namespace

size_t json_stored_size(const cJSON* value) {
  return static_cast<size_t>(static_cast<long>(json_dump(value).size()) +
                             stored_numbers_growth(value));
}

bool json_numbers_finite(const cJSON* value) {
  if (cJSON_IsNumber(value)) return std::isfinite(value->valuedouble);
  for (const cJSON* child = value->child; child != nullptr; child = child->next) {
    if (!json_numbers_finite(child)) return false;
  }
  return true;
}

}  // namespace ca
