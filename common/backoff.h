// Retry timing of webhook deliveries: exponential backoff with jitter, and
// the receiver's Retry-After.
//
// After the n-th failed attempt (n >= 1) the next one is due after
//   base * 2^(n-1), capped at kRetryCapSeconds (6 h),
// shortened by a random jitter of up to 20% (the delay lies in
// [0.8, 1.0] x nominal). Jitter spreads the retries of many deliveries that
// failed together (a receiver outage) so they do not return in one burst;
// keeping it downward-only means a delay never exceeds the cap and each gap
// is still longer than the previous one (0.8 x 2 > 1). A Retry-After from a
// 429 or 503 answer is honoured as a lower bound, still within the cap.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ca {

inline constexpr int64_t kRetryCapSeconds = 6 * 3600;
inline constexpr double kRetryJitter = 0.2;

// Milliseconds to wait after failed attempt `attempt` (1-based) with
// `base_seconds`; `random01` in [0, 1) picks the jitter (0 = nominal delay).
int64_t retry_delay_ms(int attempt, int64_t base_seconds, double random01);

// A Retry-After header value (delta-seconds, or an HTTP-date such as
// "Wed, 21 Oct 2015 07:28:00 GMT") as seconds from `now_unix`, at least 0;
// nullopt when it is neither.
std::optional<int64_t> parse_retry_after(std::string_view value, int64_t now_unix);

// The delay before the next attempt: the backoff, or the receiver's
// Retry-After (only honoured on 429 and 503) when that is longer; never
// more than the cap.
int64_t next_attempt_delay_ms(int attempt, int64_t base_seconds, double random01, long http_status,
                              std::optional<int64_t> retry_after_seconds);

}  // namespace ca
