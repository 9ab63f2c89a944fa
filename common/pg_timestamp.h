// PostgreSQL's text of a timestamptz, rewritten into the API's timestamp
// format (UTC, microseconds, 'Z': 2026-12-01T10:00:00.000000Z).
//
// Sessions run with TimeZone UTC and DateStyle ISO (Db sets both on
// connect), so PostgreSQL sends `2026-12-01 10:00:00.5+00`: fractional
// digits trimmed, none when zero. Formatting here rather than with to_char()
// in every SELECT takes that work off the database, the one part of the stack
// every request shares.
#pragma once

#include <cstddef>
#include <string_view>

namespace ca {

inline constexpr size_t kIsoTimestampSize = 27;  // 2026-12-01T10:00:00.000000Z

// Writes the API form of `pg` into out[0..27) and returns true; returns false,
// writing nothing useful, for any other text (another time zone, a year
// outside 0001-9999, BC, infinity).
bool iso_from_pg_timestamptz(std::string_view pg, char* out);

}  // namespace ca
