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

// A member name known at compile time. The builders below link the tree to
// the literal itself instead of copying it into every node (a 40-row list
// has hundreds of members); `consteval` makes a name built at run time a
// compile error. Use json_add_copied_key() for those.
class JsonKey {
 public:
  consteval JsonKey(const char* name) : name_(name) {}  // NOLINT: implicit by design
  const char* c_str() const { return name_; }

 private:
  const char* name_;
};

// Builders: each adds a member to `obj` (an object) and returns the member.
cJSON* json_add(cJSON* obj, JsonKey key, Json value);
cJSON* json_add_copied_key(cJSON* obj, const std::string& key, Json value);
void json_add_str(cJSON* obj, JsonKey key, std::string_view value);
// Exact for every int64: kept as decimal text (a raw item; json_get_int reads it).
void json_add_int(cJSON* obj, JsonKey key, int64_t value);
void json_add_num(cJSON* obj, JsonKey key, double value);
void json_add_bool(cJSON* obj, JsonKey key, bool value);
void json_add_null(cJSON* obj, JsonKey key);
// Replaces `key`'s value (or adds it) with null.
void json_set_null(cJSON* obj, JsonKey key);
// Adds a string, or null when `value` is empty.
void json_add_opt_str(cJSON* obj, JsonKey key, std::optional<std::string_view> value);
// Adds an integer, or null when `value` is empty.
void json_add_opt_int(cJSON* obj, JsonKey key, const std::optional<int64_t>& value);
void json_append(cJSON* array, Json value);
// JSON text printed as it is (e.g. a row's JSON rendered by PostgreSQL).
Json json_raw(std::string_view text);

// Readers that never allocate; nullptr / nullopt when absent or of another type.
const cJSON* json_get(const cJSON* obj, const char* key);
std::optional<std::string_view> json_get_str(const cJSON* obj, const char* key);
std::optional<int64_t> json_get_int(const cJSON* obj, const char* key);

// True when `value` is a JSON number with no fractional part that fits in int64
// (parsed, or added by json_add_int).
bool json_is_integer(const cJSON* value, int64_t* out);

// False when `value` holds, at any depth, a number the parser could not
// represent: one beyond the range of a double (1e400) arrives as infinity,
// and would be printed back as null; one below it arrives as NaN when
// json_check_text() marked it (1e-400).
bool json_numbers_finite(const cJSON* value);

// The bytes of `text` written as a JSON string, without its quotes, as
// cJSON and PostgreSQL's to_json() escape it: '"', '\\', \b, \f, \n, \r
// and \t take 2 bytes, any other character below U+0020 takes 6 (\u0001),
// every other byte 1 (UTF-8 as it is).
size_t json_escaped_size(std::string_view text);

// The bytes of `value` as compact JSON the way PostgreSQL's jsonb keeps what
// json_dump(value) printed (what sql/018's ca_json_compact_size() counts):
// json_dump's size, except that a number counts as numeric writes it out,
// in full (1e+300 is 301 digits, 1.5e-07 is 0.00000015).
size_t json_stored_size(const cJSON* value);

// What json_check_text() finds in a text cJSON accepted but RFC 8259 (or
// storage) does not.
enum class JsonTextFault {
  kNone,
  kNul,               // a NUL, raw or as the escape \u0000
  kControlCharacter,  // another raw control character where RFC 8259 forbids it
  kInvalid,           // an escape or a number RFC 8259 does not define
};

// One pass over `text`, from which json_parse() made `value`, for what cJSON
// lets through:
//  - kNul: cJSON keeps strings as C strings, so "ab\u0000cd" would become
//    "ab" (and PostgreSQL text cannot hold a NUL either);
//  - kControlCharacter: a raw U+0001-U+001F inside a string (RFC 8259 §7
//    requires them escaped), or outside strings one other than tab, LF and
//    CR (§2), which cJSON skips as white space;
//  - kInvalid: an escape other than \" \\ \/ \b \f \n \r \t \uXXXX (cJSON
//    reads "\uZZZZ" as U+0000, which cuts the string short: found by
//    tests/fuzz/body_fuzz.cc), or a number outside RFC 8259 §6's grammar
//    (cJSON hands strtod "01", "1." and "-.5").
// With no fault, it also marks as NaN every number of `value` whose literal
// is not zero but whose magnitude is below the smallest normal double
// (2.2250738585072014e-308): 1e-400 would arrive as 0, and 1e-320 as a
// subnormal that has lost digits. Like 1e400 (infinity), such a number is
// then refused wherever a finite one is required (json_numbers_finite(),
// BodyReader). Literals of up to 300 characters without an exponent cannot
// be that small, so only the others are converted a second time.
JsonTextFault json_check_text(std::string_view text, cJSON* value);

// The first member name that some object in `value` (at any depth) holds
// twice, or nullopt. Which of two equal names a reader sees differs between
// readers (cJSON finds the first, jsonb keeps the last).
std::optional<std::string> json_duplicate_key(const cJSON* value);

}  // namespace ca
