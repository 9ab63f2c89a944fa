// Declarative reading and validation of a JSON request body.
//
// A BodyReader checks one JSON object field by field against rules (type,
// required, length in characters, bounds, allowed values) and records every
// failure in a FieldErrors, so one response lists all failing fields. Each
// read returns a Field<T> that tells "absent", "null" and "value" apart,
// which partial updates need.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"
#include "json.h"
#include "result.h"

namespace ca {

template <class T>
struct Field {
  bool present = false;  // the key was sent (possibly as null)
  bool null = false;     // the key was sent as null
  T value{};
  bool has_value() const { return present && !null; }
};

struct StrRule {
  bool required = false;
  bool nullable = false;
  bool trim = false;  // strip ASCII whitespace before the length check
  size_t min = 0;     // characters (code points), not bytes
  size_t max = std::numeric_limits<size_t>::max();
  std::initializer_list<const char*> one_of = {};
};

struct IntRule {
  bool required = false;
  bool nullable = false;
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
};

struct NumRule {
  bool required = false;
  bool nullable = false;
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
};

struct PresenceRule {
  bool required = false;
  bool nullable = false;
};

class BodyReader {
 public:
  // `prefix` is put before field names in error keys ("order_items.0.").
  BodyReader(const cJSON* object, FieldErrors& errors, std::string prefix = "");

  Field<std::string> str(const char* name, const StrRule& rule);
  Field<int64_t> integer(const char* name, const IntRule& rule);
  Field<double> number(const char* name, const NumRule& rule);
  Field<bool> boolean(const char* name, const PresenceRule& rule);
  // The object / array itself (borrowed from the body) when valid.
  Field<const cJSON*> object(const char* name, const PresenceRule& rule);
  Field<const cJSON*> array(const char* name, const PresenceRule& rule);

  bool present(const char* name) const { return json_get(object_, name) != nullptr; }
  void fail(const char* name, std::string message);
  std::string key(const char* name) const { return prefix_ + name; }

 private:
  // Common presence handling: returns the item, or nullptr when absent/null
  // (recording "required" / "null not allowed" as needed).
  const cJSON* take(const char* name, bool required, bool nullable, bool* present, bool* null);

  const cJSON* object_;
  FieldErrors& errors_;
  std::string prefix_;
};

// The items of `list` (the array field `field`) that are distinct names
// `known` accepts, in order. Each other item fails at "<field>.<i>": not a
// string, not known ("The selected <field>.<i> is invalid."), or a repeat
// ("... has a duplicate value.").
std::vector<std::string> distinct_known_names(const cJSON* list, const char* field,
                                              const std::function<bool(std::string_view)>& known,
                                              FieldErrors& errs);

// Parses the request body as a JSON object: 400 {error} when it is not one.
Result<Json> parse_json_object(const Request& req);

// `v` without the ASCII white space (space, \t, \n, \r, \f) at its ends: what
// StrRule::trim strips.
std::string_view trim_space(std::string_view v);

// True when `email` can be an address: valid UTF-8 with an '@' that is
// neither its first nor its last character, and no control character, space
// or other white space (ASCII or Unicode, such as U+00A0), nor a zero-width
// space or byte-order mark. Deliverability is not checked.
bool email_plausible(std::string_view email);

// True when `v` is the double nearest to a decimal with at most 2 places
// (money: "4.35" arrives as 4.3499999999999996). A tolerance on v * 100
// either refuses valid large amounts or lets 4.500000000001 through.
bool has_at_most_two_decimals(double v);

// Tenant settings are at most this many bytes of compact JSON. The CHECK
// tenants_settings_size (sql/018) holds the same number, for the merged
// settings; tests/unit/sql_agreement_test.cc compares the two.
inline constexpr size_t kMaxSettingsBytes = 16384;
// The 422 message of settings over kMaxSettingsBytes, sent or merged.
const std::string& settings_too_large_message();

// A list's page size when the request names none (`per_page`), unless the
// list has its own (announcements: 20).
inline constexpr int64_t kDefaultPerPage = 15;

// `page` (>= 1, default 1) and `per_page` (1.., default given, clamped to
// 100, or to a list's own smaller maximum).
struct PageParams {
  int64_t page = 1;
  int64_t per_page = kDefaultPerPage;
  int64_t offset() const { return (page - 1) * per_page; }
};
inline constexpr int64_t kMaxPerPage = 100;
// Reads page/per_page from the query string; non-integer or < 1 is a 422.
Result<PageParams> read_page_params(const Request& req, int64_t default_per_page,
                                    int64_t max_per_page = kMaxPerPage);
// The same, recording the errors in `errors` instead, so that a list with
// filters reports page and filter errors together.
PageParams read_page_params(const Request& req, int64_t default_per_page, FieldErrors& errors,
                            int64_t max_per_page = kMaxPerPage);
// `{data, current_page, last_page, per_page, total}`.
Json paginated(Json data, const PageParams& page, int64_t total);

}  // namespace ca
