#include "pg_timestamp.h"

#include <cstring>

namespace ca {
namespace {

bool digits_at(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

}  // namespace

bool iso_from_pg_timestamptz(std::string_view pg, char* out) {
  // "YYYY-MM-DD HH:MM:SS" [ "." 1-6 digits ] "+00"
  constexpr size_t kSeconds = 19;
  if (pg.size() < kSeconds + 3 || pg.substr(pg.size() - 3) != "+00") return false;
  if (!digits_at(pg, 0, 4) || pg[4] != '-' || !digits_at(pg, 5, 2) || pg[7] != '-' ||
      !digits_at(pg, 8, 2) || pg[10] != ' ' || !digits_at(pg, 11, 2) || pg[13] != ':' ||
      !digits_at(pg, 14, 2) || pg[16] != ':' || !digits_at(pg, 17, 2)) {
    return false;
  }
  std::string_view fraction = pg.substr(kSeconds, pg.size() - 3 - kSeconds);
  if (!fraction.empty()) {
    if (fraction[0] != '.' || fraction.size() < 2 || fraction.size() > 7 ||
        !digits_at(fraction, 1, fraction.size() - 1)) {
      return false;
    }
    fraction.remove_prefix(1);
  }
  std::memcpy(out, pg.data(), kSeconds);
  out[10] = 'T';
  out[kSeconds] = '.';
  std::memcpy(out + kSeconds + 1, fraction.data(), fraction.size());
  std::memset(out + kSeconds + 1 + fraction.size(), '0', 6 - fraction.size());
  out[kIsoTimestampSize - 1] = 'Z';
  return true;
}

}  // namespace ca
