// Retry timing (common/backoff.h): exponential growth, the 6 h cap, the
// jitter band, and Retry-After.
#include "backoff.h"

#include <gtest/gtest.h>

namespace ca {
namespace {

TEST(BackoffTest, NominalDelayDoublesFromTheBase) {
  EXPECT_EQ(retry_delay_ms(1, 30, 0.0), 30'000);
  EXPECT_EQ(retry_delay_ms(2, 30, 0.0), 60'000);
  EXPECT_EQ(retry_delay_ms(3, 30, 0.0), 120'000);
  EXPECT_EQ(retry_delay_ms(9, 30, 0.0), 30'000 * 256);
  EXPECT_EQ(retry_delay_ms(1, 1, 0.0), 1'000);
  EXPECT_EQ(retry_delay_ms(4, 1, 0.0), 8'000);
}

TEST(BackoffTest, DelayIsCappedAtSixHoursEvenForHugeAttemptCounts) {
  EXPECT_EQ(retry_delay_ms(10, 30, 0.0), 30 * 512 * 1000);  // 4.3 h, still under
  EXPECT_EQ(retry_delay_ms(11, 30, 0.0), 6 * 3600 * 1000);  // 30 s * 1024 > 6 h
  EXPECT_EQ(retry_delay_ms(100, 30, 0.0), 6 * 3600 * 1000);
  EXPECT_EQ(retry_delay_ms(1000000, 86400, 0.0), 6 * 3600 * 1000);
}

TEST(BackoffTest, JitterShortensByAtMostTwentyPercent) {
  EXPECT_EQ(retry_delay_ms(1, 10, 0.5), 9'000);
  EXPECT_EQ(retry_delay_ms(1, 10, 0.999999), 8'000);
  EXPECT_EQ(retry_delay_ms(100, 30, 0.5), 6 * 3600 * 900);
  // Out-of-range randomness is clamped rather than trusted.
  EXPECT_EQ(retry_delay_ms(1, 10, -1.0), 10'000);
  EXPECT_EQ(retry_delay_ms(1, 10, 7.0), 8'000);
}

TEST(BackoffTest, GapsGrowWhateverTheJitter) {
  for (int attempt = 1; attempt < 12; ++attempt) {
    EXPECT_LT(retry_delay_ms(attempt, 1, 0.0), retry_delay_ms(attempt + 1, 1, 0.99999)) << attempt;
  }
}

TEST(BackoffTest, RetryAfterSecondsAndHttpDatesAreParsed) {
  const int64_t now = 1445412480;  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(parse_retry_after("120", now), 120);
  EXPECT_EQ(parse_retry_after(" 3 \r\n", now), 3);
  EXPECT_EQ(parse_retry_after("0", now), 0);
  EXPECT_EQ(parse_retry_after("99999999999999999999", now), kRetryCapSeconds);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now), 30);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), 0);  // in the past
  EXPECT_EQ(parse_retry_after("", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("-5", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("1.5", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("soon", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT junk", now), std::nullopt);
}

TEST(BackoffTest, RetryAfterIsALowerBoundOnlyFor429And503) {
  EXPECT_EQ(next_attempt_delay_ms(1, 1, 0.0, 503, 5), 5'000);
  EXPECT_EQ(next_attempt_delay_ms(1, 1, 0.0, 429, 5), 5'000);
  EXPECT_EQ(next_attempt_delay_ms(1, 1, 0.0, 500, 5), 1'000);
  EXPECT_EQ(next_attempt_delay_ms(1, 1, 0.0, 0, 5), 1'000);
  // Shorter than the backoff: the backoff stands.
  EXPECT_EQ(next_attempt_delay_ms(3, 10, 0.0, 503, 1), 40'000);
  EXPECT_EQ(next_attempt_delay_ms(1, 1, 0.0, 503, std::nullopt), 1'000);
  // Longer than the cap: the cap.
  EXPECT_EQ(next_attempt_delay_ms(1, 1, 0.0, 429, 10 * 86400), 6 * 3600 * 1000);
}

}  // namespace
}  // namespace ca
