// PostgreSQL's timestamptz text to the API's format (common/pg_timestamp.h):
// every fraction length PostgreSQL sends, and refusal of anything else.
#include "pg_timestamp.h"

#include <gtest/gtest.h>

#include <string>

#include "unit_helpers.h"

namespace ca {
namespace {

// The converted text, or "refused".
std::string iso(std::string_view pg) {
  char out[kIsoTimestampSize];
  if (!iso_from_pg_timestamptz(pg, out)) return "refused";
  return std::string(out, kIsoTimestampSize);
}

TEST(PgTimestampTest, FullMicrosecondsKeepTheirDigits) {
  EXPECT_EQ(iso("2026-11-22 22:08:51.123456+00"), "2026-11-22T22:08:51.123456Z");
}

TEST(PgTimestampTest, TrimmedFractionsArePaddedToMicroseconds) {
  expect_each(iso, {{"2026-11-22 22:08:51.5+00", "2026-11-22T22:08:51.500000Z"},
                    {"2026-11-22 22:08:51.12+00", "2026-11-22T22:08:51.120000Z"},
                    {"2026-11-22 22:08:51.00001+00", "2026-11-22T22:08:51.000010Z"}});
}

TEST(PgTimestampTest, WholeSecondsGetSixZeros) {
  expect_each(iso, {{"2026-12-01 10:00:00+00", "2026-12-01T10:00:00.000000Z"},
                    {"0001-01-01 00:00:00+00", "0001-01-01T00:00:00.000000Z"}});
}

TEST(PgTimestampTest, AnythingButUtcIsoTextIsRefused) {
  expect_each(iso, {{"", "refused"},
                    {"infinity", "refused"},
                    {"-infinity", "refused"},
                    {"2026-11-22 23:08:51.5+01", "refused"},     // another zone
                    {"2026-11-22 22:08:51.5+00:30", "refused"},  // offset with minutes
                    {"0044-03-15 12:00:00+00 BC", "refused"},
                    {"12026-11-22 22:08:51+00", "refused"},         // year past 9999
                    {"11/22/2026 22:08:51.5 UTC", "refused"},       // DateStyle SQL
                    {"Sun Nov 22 22:08:51.5 2026 UTC", "refused"},  // DateStyle Postgres
                    {"2026-11-22 22:08:51.1234567+00", "refused"},  // 7 digits
                    {"2026-11-22 22:08:51.+00", "refused"},
                    {"2026-11-22T22:08:51+00", "refused"},
                    {"2026-11-22 22:08:5x+00", "refused"}});
}

}  // namespace
}  // namespace ca
