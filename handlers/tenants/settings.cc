#include "settings.h"

#include "validate.h"

namespace ca {
namespace {

bool all_of(std::string_view s, bool (*pred)(char)) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool upper(char c) { return c >= 'A' && c <= 'Z'; }
bool lower(char c) { return c >= 'a' && c <= 'z'; }

// "en", "pt-BR", "zh-Hant" style: a 2–3 letter language, optional region/script.
bool locale_valid(std::string_view s) {
  size_t dash = s.find('-');
  std::string_view lang = s.substr(0, dash);
  if (lang.size() < 2 || lang.size() > 3 || !all_of(lang, lower)) return false;
  if (dash == std::string_view::npos) return true;
  std::string_view rest = s.substr(dash + 1);
  return (rest.size() == 2 && all_of(rest, upper)) ||
         (rest.size() == 4 && upper(rest[0]) && all_of(rest.substr(1), lower));
}

}  // namespace

void settings_validate(const cJSON* settings, FieldErrors& errs, SettingsPatch* patch) {
  patch->set = json_object();
  if (json_dump(settings).size() > kMaxSettingsBytes) {
    errs.add("settings", settings_too_large_message());
    return;
  }
  for (const cJSON* item = settings->child; item != nullptr; item = item->next) {
    std::string key = item->string;
    std::string field = "settings." + key;
    if (cJSON_IsNull(item)) {
      patch->remove.push_back(key);
      continue;
    }
    if (key == "currency") {
      if (!cJSON_IsString(item) || std::string_view(item->valuestring).size() != 3 ||
          !all_of(item->valuestring, upper)) {
        errs.add(field, "The " + field + " field must be an ISO 4217 code such as EUR.");
        continue;
      }
    } else if (key == "timezone") {
      if (!cJSON_IsString(item) || std::string_view(item->valuestring).empty() ||
          std::string_view(item->valuestring).size() > 64) {
        errs.add(field, "The " + field + " field must be an IANA time zone such as Europe/Paris.");
        continue;
      }
      patch->timezone = item->valuestring;
    } else if (key == "locale") {
      if (!cJSON_IsString(item) || !locale_valid(item->valuestring)) {
        errs.add(field, "The " + field + " field must be a locale such as en or pt-BR.");
        continue;
      }
    } else if (!json_numbers_finite(item)) {
      // 1e400 parses as infinity and would be stored as null; 1e-400 as 0
      // (json_check_text() marks it NaN).
      errs.add(field, "The " + field +
                          " field must not hold a number beyond 1.8e308, or a nonzero one "
                          "below 2.2250738585072014e-308 in magnitude.");
      continue;
    }
    cJSON_AddItemToObject(patch->set.get(), key.c_str(), cJSON_Duplicate(item, true));
  }
}

}  // namespace ca
