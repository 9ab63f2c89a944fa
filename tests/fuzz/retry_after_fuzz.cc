// libFuzzer target: the Retry-After parser (common/backoff.h) that reads a
// webhook receiver's header, and the delay computed from it.
//
// Properties: a parsed value is at least 0; the next attempt's delay never
// exceeds the 6 h cap nor falls below the backoff's own lower bound.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backoff.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr int64_t kNow = 1'800'000'000;
  auto seconds = ca::parse_retry_after(input, kNow);
  if (seconds) FUZZ_CHECK(*seconds >= 0);
  int attempt = size == 0 ? 1 : 1 + data[0] % 12;
  for (long status : {429L, 503L, 500L}) {
    int64_t delay = ca::next_attempt_delay_ms(attempt, 30, 0.5, status, seconds);
    FUZZ_CHECK(delay >= 0 && delay <= ca::kRetryCapSeconds * 1000);
    FUZZ_CHECK(delay >= ca::retry_delay_ms(attempt, 30, 0.5));
  }
  return 0;
}
