// Validation of tenant settings: a JSON object, shallow-merged into the stored
// settings. Known keys are checked (currency, timezone, locale); others are
// kept as given; a key sent as null is removed.
#pragma once

#include <string>
#include <vector>

#include "error.h"
#include "json.h"

namespace ca {

struct SettingsPatch {
  Json set;                         // keys with non-null values
  std::vector<std::string> remove;  // keys sent as null
  std::string timezone;             // to be checked against the database's zone list
};

// Fills `patch` from `settings` (an object); records failures under "settings.<key>".
void settings_validate(const cJSON* settings, FieldErrors& errs, SettingsPatch* patch);

}  // namespace ca
