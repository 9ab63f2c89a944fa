#include "backoff.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <string>

namespace ca {

int64_t retry_delay_ms(int attempt, int64_t base_seconds, double random01) {
  const int64_t cap_ms = kRetryCapSeconds * 1000;
  int64_t nominal = std::max<int64_t>(base_seconds, 1) * 1000;
  // Doubling stops at the cap, so no power of two ever overflows.
  for (int i = 1; i < attempt && nominal < cap_ms; ++i) nominal *= 2;
  nominal = std::min(nominal, cap_ms);
  double r = std::clamp(random01, 0.0, 1.0);
  return static_cast<int64_t>(static_cast<double>(nominal) * (1.0 - kRetryJitter * r));
}

std::optional<int64_t> parse_retry_after(std::string_view value, int64_t now_unix) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r' ||
                            value.back() == '\n')) {
    value.remove_suffix(1);
  }
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // Anything longer than the cap is the cap; keep the arithmetic small.
    if (value.size() > 9) return kRetryCapSeconds;
    return std::stoll(std::string(value));
  }
  // IMF-fixdate, the form RFC 9110 requires senders to use.
  std::string text(value);
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  int64_t at = static_cast<int64_t>(timegm(&tm));
  return std::max<int64_t>(at - now_unix, 0);
}

int64_t next_attempt_delay_ms(int attempt, int64_t base_seconds, double random01, long http_status,
                              std::optional<int64_t> retry_after_seconds) {
  int64_t delay = retry_delay_ms(attempt, base_seconds, random01);
  if ((http_status == 429 || http_status == 503) && retry_after_seconds) {
    int64_t asked = std::min(*retry_after_seconds, kRetryCapSeconds) * 1000;
    delay = std::max(delay, asked);
  }
  return delay;
}

}  // namespace ca
