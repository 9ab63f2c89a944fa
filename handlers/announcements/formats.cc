#include "formats.h"

#include <cstdio>

namespace ca {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at `pos`; false when there are not that many.
bool digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!is_digit(s[pos + i])) return false;
    v = v * 10 + (s[pos + i] - '0');
  }
  *out = v;
  return true;
}

bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int64_t y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int64_t* y, int* m, int* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

constexpr int64_t kMicrosPerDay = 86'400'000'000;
constexpr int64_t kMinMicros = -2'208'988'800'000'000;       // 1900-01-01T00:00:00Z
constexpr int64_t kMaxMicros = 253'402'300'800'000'000 - 1;  // before 10000-01-01

bool host_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

bool valid_host(std::string_view host) {
  if (host.empty()) return false;
  if (host.front() == '[') {
    // An IPv6 literal: hex digits, colons and dots (an embedded IPv4) only.
    if (host.size() < 4 || host.back() != ']') return false;
    for (char c : host.substr(1, host.size() - 2)) {
      bool hex = is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex && c != ':' && c != '.') return false;
    }
    return true;
  }
  // A fully qualified name may end with one dot.
  if (host.back() == '.') host.remove_suffix(1);
  if (host.empty() || host.size() > 253) return false;
  // Labels of 1-63 letters, digits and inner hyphens (IDNs arrive as punycode).
  while (true) {
    size_t dot = host.find('.');
    std::string_view label = host.substr(0, dot);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!host_char(c)) return false;
    }
    if (dot == std::string_view::npos) return true;
    host.remove_prefix(dot + 1);
  }
}

}  // namespace

std::string format_timestamp(int64_t micros) {
  int64_t days = micros / kMicrosPerDay;
  int64_t rest = micros % kMicrosPerDay;
  if (rest < 0) {
    rest += kMicrosPerDay;
    --days;
  }
  int64_t y = 0;
  int m = 0, d = 0;
  civil_from_days(days, &y, &m, &d);
  int64_t secs = rest / 1'000'000;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02lld:%02lld:%02lld.%06lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60),
                static_cast<long long>(rest % 1'000'000));
  return buf;
}

std::optional<Timestamp> parse_timestamp(std::string_view s) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int64_t fraction = 0;
  if (!digits(s, 0, 4, &year) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, &month) ||
      s[7] != '-' || !digits(s, 8, 2, &day)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return std::nullopt;
  size_t pos = 10;
  int64_t offset_minutes = 0;
  if (pos < s.size()) {
    if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') return std::nullopt;
    ++pos;
    if (!digits(s, pos, 2, &hour) || pos + 2 >= s.size() || s[pos + 2] != ':' ||
        !digits(s, pos + 3, 2, &minute)) {
      return std::nullopt;
    }
    pos += 5;
    if (pos < s.size() && s[pos] == ':') {
      if (!digits(s, pos + 1, 2, &second)) return std::nullopt;
      pos += 3;
      if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
        ++pos;
        size_t n = 0;
        while (pos < s.size() && is_digit(s[pos])) {
          if (n < 6) fraction = fraction * 10 + (s[pos] - '0');
          ++n;
          ++pos;
        }
        if (n == 0 || n > 9) return std::nullopt;
        for (size_t i = n; i < 6; ++i) fraction *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    if (pos < s.size()) {
      char sign = s[pos];
      if (sign == 'Z' || sign == 'z') {
        ++pos;
      } else if (sign == '+' || sign == '-') {
        int oh = 0, om = 0;
        if (!digits(s, pos + 1, 2, &oh)) return std::nullopt;
        pos += 3;
        if (pos < s.size()) {
          if (s[pos] == ':') ++pos;
          if (!digits(s, pos, 2, &om)) return std::nullopt;
          pos += 2;
        }
        if (oh > 15 || om > 59) return std::nullopt;
        offset_minutes = (sign == '+' ? 1 : -1) * (oh * 60 + om);
      } else {
        return std::nullopt;
      }
    }
    if (pos != s.size()) return std::nullopt;
  }
  int64_t local = days_from_civil(year, month, day) * kMicrosPerDay +
                  (int64_t{hour} * 3600 + minute * 60 + second) * 1'000'000 + fraction;
  int64_t utc = local - offset_minutes * 60 * 1'000'000;
  if (utc < kMinMicros || utc > kMaxMicros) return std::nullopt;
  return Timestamp{utc, format_timestamp(utc)};
}

bool is_http_url(std::string_view s) {
  if (s.size() > 2048) return false;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  size_t scheme_end = s.find("://");
  if (scheme_end == std::string_view::npos) return false;
  std::string scheme(s.substr(0, scheme_end));
  for (char& c : scheme) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (scheme != "http" && scheme != "https") return false;
  std::string_view rest = s.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  size_t at = authority.rfind('@');
  std::string_view hostport = at == std::string_view::npos ? authority : authority.substr(at + 1);
  std::string_view host = hostport;
  // The port follows the last colon, unless that colon is inside an IPv6 literal.
  size_t colon = hostport.rfind(':');
  if (colon != std::string_view::npos && hostport.find(']', colon) == std::string_view::npos) {
    std::string_view port = hostport.substr(colon + 1);
    host = hostport.substr(0, colon);
    if (port.empty() || port.size() > 5) return false;
    int p = 0;
    for (char c : port) {
      if (!is_digit(c)) return false;
      p = p * 10 + (c - '0');
    }
    if (p < 1 || p > 65535) return false;
  }
  return valid_host(host);
}

std::optional<std::string> parse_id_list(std::string_view text) {
  std::string out;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    // Positive, no sign, no leading zero, fits in int64 (at most 18 digits keeps it simple).
    if (item.empty() || item.size() > 18 || item.front() == '0') return std::nullopt;
    for (char c : item) {
      if (!is_digit(c)) return std::nullopt;
    }
    if (!out.empty()) out += ',';
    out += item;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace ca
