// JSON helpers over cJSON.
//
// `Json` owns one cJSON tree. Builders add children to an owned object and
// release ownership to the parent, so every tree has exactly one owner.
// Nothing here is shared between threads.
#pragma once

#include <cjson/cJSON.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ca {

struct CJsonDeleter {
  void operator()(cJSON* p) const { cJSON_Delete(p); }
};
using Json = std::unique_ptr<cJSON, CJsonDeleter>;

// Parses `text` as one JSON value with nothing after it. Empty on error.
Json json_parse(std::string_view text);

// Compact serialisation.
std::string json_dump(const cJSON* value);

Json json_object();
Json json_array();

// Builders: each adds a member to `obj` (an object) and returns the member.
cJSON* json_add(cJSON* obj, const char* key, Json value);
void json_add_str(cJSON* obj, const char* key, std::string_view value);
// Exact for every int64 (beyond 15 digits as a raw item: serialised, not read back).
void json_add_int(cJSON* obj, const char* key, int64_t value);
void json_add_num(cJSON* obj, const char* key, double value);
void json_add_bool(cJSON* obj, const char* key, bool value);
void json_add_null(cJSON* obj, const char* key);
// Replaces `key`'s value (or adds it) with null.
void json_set_null(cJSON* obj, const char* key);
// Adds a string, or null when `value` is empty.
void json_add_opt_str(cJSON* obj, const char* key, const std::optional<std::string>& value);
// Adds an integer, or null when `value` is empty.
void json_add_opt_int(cJSON* obj, const char* key, const std::optional<int64_t>& value);
void json_append(cJSON* array, Json value);

// Readers that never allocate; nullptr / nullopt when absent or of another type.
const cJSON* json_get(const cJSON* obj, const char* key);
std::optional<std::string_view> json_get_str(const cJSON* obj, const char* key);
std::optional<int64_t> json_get_int(const cJSON* obj, const char* key);

// True when `value` is a JSON number with no fractional part that fits in int64.
bool json_is_integer(const cJSON* value, int64_t* out);

}  // namespace ca
