#include "json.h"

#include <cmath>
#include <cstdlib>

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

cJSON* json_add(cJSON* obj, const char* key, Json value) {
  cJSON* raw = value.release();
  cJSON_AddItemToObject(obj, key, raw);
  return raw;
}

void json_add_str(cJSON* obj, const char* key, std::string_view value) {
  // cJSON needs a NUL-terminated string.
  std::string copy(value);
  cJSON_AddItemToObject(obj, key, cJSON_CreateString(copy.c_str()));
}

void json_add_int(cJSON* obj, const char* key, int64_t value) {
  // cJSON prints numbers with "%1.15g" and keeps that text when it is within
  // DBL_EPSILON (relative) of the value, so 16-digit integers such as
  // 9007199254740991 come out as 9.00719925474099e+15. Those are written as
  // exact decimal text instead (a raw item: serialised only, not read back).
  constexpr int64_t kExact = 999'999'999'999'999;  // 15 digits: "%1.15g" is exact
  if (value > kExact || value < -kExact) {
    cJSON_AddItemToObject(obj, key, cJSON_CreateRaw(std::to_string(value).c_str()));
    return;
  }
  cJSON_AddItemToObject(obj, key, cJSON_CreateNumber(static_cast<double>(value)));
}

void json_add_num(cJSON* obj, const char* key, double value) {
  cJSON_AddItemToObject(obj, key, cJSON_CreateNumber(value));
}

void json_add_bool(cJSON* obj, const char* key, bool value) {
  cJSON_AddItemToObject(obj, key, cJSON_CreateBool(value));
}

void json_add_null(cJSON* obj, const char* key) {
  cJSON_AddItemToObject(obj, key, cJSON_CreateNull());
}

void json_set_null(cJSON* obj, const char* key) {
  cJSON* null_item = cJSON_CreateNull();
  if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, key, null_item)) {
    cJSON_AddItemToObject(obj, key, null_item);
  }
}

void json_add_opt_str(cJSON* obj, const char* key, const std::optional<std::string>& value) {
  if (value) {
    json_add_str(obj, key, *value);
  } else {
    json_add_null(obj, key);
  }
}

void json_add_opt_int(cJSON* obj, const char* key, const std::optional<int64_t>& value) {
  if (value) {
    json_add_int(obj, key, *value);
  } else {
    json_add_null(obj, key);
  }
}

void json_append(cJSON* array, Json value) { cJSON_AddItemToArray(array, value.release()); }

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

}  // namespace ca
