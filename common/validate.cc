#include "validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace ca {
namespace {

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

}  // namespace

std::string_view trim_space(std::string_view v) {
  while (!v.empty() && is_space(v.front())) v.remove_prefix(1);
  while (!v.empty() && is_space(v.back())) v.remove_suffix(1);
  return v;
}

BodyReader::BodyReader(const cJSON* object, FieldErrors& errors, std::string prefix)
    : object_(object), errors_(errors), prefix_(std::move(prefix)) {}

void BodyReader::fail(const char* name, std::string message) {
  errors_.add(key(name), std::move(message));
}

const cJSON* BodyReader::take(const char* name, bool required, bool nullable, bool* present,
                              bool* null) {
  const cJSON* item = json_get(object_, name);
  *present = item != nullptr;
  *null = cJSON_IsNull(item);
  if (item == nullptr || *null) {
    if (required) {
      fail(name, "The " + key(name) + " field is required.");
    } else if (*null && !nullable) {
      fail(name, "The " + key(name) + " field must not be null.");
    }
    return nullptr;
  }
  return item;
}

Field<std::string> BodyReader::str(const char* name, const StrRule& rule) {
  Field<std::string> f;
  const cJSON* item = take(name, rule.required, rule.nullable, &f.present, &f.null);
  if (item == nullptr) return f;
  if (!cJSON_IsString(item)) {
    fail(name, "The " + key(name) + " field must be a string.");
    f.present = false;
    return f;
  }
  std::string_view v = item->valuestring;
  if (rule.trim) v = trim_space(v);
  size_t length = utf8_length(v);
  bool ok = true;
  if (rule.required && length == 0) {
    fail(name, "The " + key(name) + " field is required.");
    ok = false;
  } else if (length == 0 && rule.min > 0) {
    fail(name, "The " + key(name) + " field must not be empty.");
    ok = false;
  } else if (length < rule.min) {
    fail(name, "The " + key(name) + " field must be at least " + std::to_string(rule.min) +
                   " characters.");
    ok = false;
  } else if (length > rule.max) {
    fail(name, "The " + key(name) + " field must not be greater than " + std::to_string(rule.max) +
                   " characters.");
    ok = false;
  }
  if (ok && rule.one_of.size() != 0) {
    bool found = false;
    for (const char* allowed : rule.one_of) found = found || v == allowed;
    if (!found) {
      fail(name, "The selected " + key(name) + " is invalid.");
      ok = false;
    }
  }
  if (!ok) {
    f.present = false;
    return f;
  }
  f.value = std::string(v);
  return f;
}

Field<int64_t> BodyReader::integer(const char* name, const IntRule& rule) {
  Field<int64_t> f;
  const cJSON* item = take(name, rule.required, rule.nullable, &f.present, &f.null);
  if (item == nullptr) return f;
  // A double holds every integer only up to 2^53 (9007199254740993 arrives as
  // ...992), so bounds past that are held to it: a whole number beyond is
  // refused as out of range instead of being read as a neighbour.
  constexpr int64_t kExact = (int64_t{1} << 53) - 1;
  const int64_t min = std::max(rule.min, -kExact);
  const int64_t max = std::min(rule.max, kExact);
  if (cJSON_IsNumber(item) && std::isfinite(item->valuedouble) &&
      item->valuedouble == std::floor(item->valuedouble)) {
    if (item->valuedouble < static_cast<double>(min)) {
      fail(name, "The " + key(name) + " field must be at least " + std::to_string(min) + ".");
      f.present = false;
      return f;
    }
    if (item->valuedouble > static_cast<double>(max)) {
      fail(name,
           "The " + key(name) + " field must not be greater than " + std::to_string(max) + ".");
      f.present = false;
      return f;
    }
  }
  int64_t v = 0;
  if (!json_is_integer(item, &v)) {
    fail(name, "The " + key(name) + " field must be an integer.");
    f.present = false;
    return f;
  }
  if (v < rule.min) {
    fail(name, "The " + key(name) + " field must be at least " + std::to_string(rule.min) + ".");
    f.present = false;
  } else if (v > rule.max) {
    fail(name,
         "The " + key(name) + " field must not be greater than " + std::to_string(rule.max) + ".");
    f.present = false;
  } else {
    f.value = v;
  }
  return f;
}

Field<double> BodyReader::number(const char* name, const NumRule& rule) {
  Field<double> f;
  const cJSON* item = take(name, rule.required, rule.nullable, &f.present, &f.null);
  if (item == nullptr) return f;
  if (!cJSON_IsNumber(item) || !std::isfinite(item->valuedouble)) {
    fail(name, "The " + key(name) + " field must be a number.");
    f.present = false;
    return f;
  }
  double v = item->valuedouble;
  if (v < rule.min) {
    fail(name, "The " + key(name) + " field must be at least " + format_number(rule.min) + ".");
    f.present = false;
  } else if (v > rule.max) {
    fail(name,
         "The " + key(name) + " field must not be greater than " + format_number(rule.max) + ".");
    f.present = false;
  } else {
    f.value = v;
  }
  return f;
}

Field<bool> BodyReader::boolean(const char* name, const PresenceRule& rule) {
  Field<bool> f;
  const cJSON* item = take(name, rule.required, rule.nullable, &f.present, &f.null);
  if (item == nullptr) return f;
  if (!cJSON_IsBool(item)) {
    fail(name, "The " + key(name) + " field must be true or false.");
    f.present = false;
    return f;
  }
  f.value = cJSON_IsTrue(item);
  return f;
}

Field<const cJSON*> BodyReader::object(const char* name, const PresenceRule& rule) {
  Field<const cJSON*> f;
  const cJSON* item = take(name, rule.required, rule.nullable, &f.present, &f.null);
  if (item == nullptr) return f;
  if (!cJSON_IsObject(item)) {
    fail(name, "The " + key(name) + " field must be an object.");
    f.present = false;
    return f;
  }
  f.value = item;
  return f;
}

Field<const cJSON*> BodyReader::array(const char* name, const PresenceRule& rule) {
  Field<const cJSON*> f;
  const cJSON* item = take(name, rule.required, rule.nullable, &f.present, &f.null);
  if (item == nullptr) return f;
  if (!cJSON_IsArray(item)) {
    fail(name, "The " + key(name) + " field must be an array.");
    f.present = false;
    return f;
  }
  f.value = item;
  return f;
}

const std::string& settings_too_large_message() {
  static const std::string message =
      "The settings field must not be larger than " + std::to_string(kMaxSettingsBytes) + " bytes.";
  return message;
}

std::vector<std::string> distinct_known_names(const cJSON* list, const char* field,
                                              const std::function<bool(std::string_view)>& known,
                                              FieldErrors& errs) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  int i = 0;
  for (const cJSON* item = list->child; item != nullptr; item = item->next, ++i) {
    std::string key = std::string(field) + "." + std::to_string(i);
    if (!cJSON_IsString(item)) {
      errs.add(key, "The " + key + " field must be a string.");
    } else if (!known(item->valuestring)) {
      errs.add(key, "The selected " + key + " is invalid.");
    } else if (!seen.insert(item->valuestring).second) {
      errs.add(key, "The " + key + " field has a duplicate value.");
    } else {
      out.emplace_back(item->valuestring);
    }
  }
  return out;
}

Result<Json> parse_json_object(const Request& req) {
  if (!utf8_valid(req.body)) return Error::bad_request("Request body is not valid UTF-8");
  Json body = json_parse(req.body);
  if (!body || !cJSON_IsObject(body.get())) {
    return Error::bad_request("Request body must be a JSON object");
  }
  switch (json_check_text(req.body, body.get())) {
    case JsonTextFault::kNone:
      break;
    case JsonTextFault::kInvalid:
      return Error::bad_request("Request body must be a JSON object");
    case JsonTextFault::kNul:
      return Error::bad_request("Request body must not contain NUL characters (\\u0000)");
    case JsonTextFault::kControlCharacter:
      return Error::bad_request(
          "Request body is not valid JSON: control characters (U+0000-U+001F) must be escaped");
  }
  // {"title":"ok","title":5}: validation would read one and storage keep the other.
  if (json_duplicate_key(body.get())) {
    return Error::bad_request("Request body must not name a key twice in one object");
  }
  return body;
}

// Digits only, at least 1. A value of any length is read, saturating at
// 10^18: a huge page or per_page is clamped like any other value above its
// limit (docs/decisions/0205-pages-past-the-end-and-clamps.md), not refused.
static bool parse_positive(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  constexpr int64_t kSaturated = 1'000'000'000'000'000'000;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v >= kSaturated / 10 ? kSaturated : v * 10 + (c - '0');
  }
  if (v < 1) return false;
  *out = v;
  return true;
}

Result<PageParams> read_page_params(const Request& req, int64_t default_per_page,
                                    int64_t max_per_page) {
  FieldErrors errs;
  PageParams p = read_page_params(req, default_per_page, errs, max_per_page);
  if (!errs.empty()) return Error::invalid(errs);
  return p;
}

PageParams read_page_params(const Request& req, int64_t default_per_page, FieldErrors& errs,
                            int64_t max_per_page) {
  PageParams p;
  p.per_page = default_per_page;
  if (auto page = req.query_param("page")) {
    if (!parse_positive(*page, &p.page))
      errs.add("page", "The page field must be an integer of at least 1.");
  }
  if (auto per_page = req.query_param("per_page")) {
    if (!parse_positive(*per_page, &p.per_page)) {
      errs.add("per_page", "The per_page field must be an integer of at least 1.");
    } else if (p.per_page > max_per_page) {
      p.per_page = max_per_page;
    }
  }
  // Keeps offset arithmetic far from overflow; such a page is simply empty.
  if (p.page > 1'000'000'000) p.page = 1'000'000'000;
  return p;
}

Json paginated(Json data, const PageParams& page, int64_t total) {
  Json out = json_object();
  json_add(out.get(), "data", std::move(data));
  json_add_int(out.get(), "current_page", page.page);
  int64_t last = total == 0 ? 1 : (total + page.per_page - 1) / page.per_page;
  json_add_int(out.get(), "last_page", last);
  json_add_int(out.get(), "per_page", page.per_page);
  json_add_int(out.get(), "total", total);
  return out;
}

namespace {

// Code points no address may hold: C0 and C1 controls, DEL, and every
// Unicode White_Space character, plus the invisible U+200B and U+FEFF.
bool forbidden_in_email(uint32_t cp) {
  return cp <= 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

}  // namespace

bool email_plausible(std::string_view email) {
  size_t at = email.find('@');
  if (at == std::string_view::npos || at == 0 || email.back() == '@') return false;
  return utf8_decode(email, [](uint32_t cp) { return !forbidden_in_email(cp); });
}

bool has_at_most_two_decimals(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return std::strtod(buf, nullptr) == v;
}

}  // namespace ca
