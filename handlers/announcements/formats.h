// Pure parsers for the text formats announcement fields carry: ISO 8601
// timestamps, absolute http(s) URLs and comma-separated user id lists.
//
// No database, no allocation beyond the results; safe from any thread.
// Validation errors must be 422s, so these refuse bad input themselves rather
// than letting PostgreSQL fail on it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ca {

struct Timestamp {
  int64_t micros = 0;     // since 1970-01-01T00:00:00Z
  std::string canonical;  // UTC, microseconds, 'Z': 2026-12-01T10:00:00.000000Z
};

// Accepts `YYYY-MM-DD` or `YYYY-MM-DD(T| )HH:MM[:SS[.f{1,9}]][Z|±HH:MM|±HHMM|±HH]`
// (no zone means UTC) with real calendar dates (2026-02-30 is refused), hours
// 00-23, minutes and seconds 00-59, offsets up to ±15:59, and a UTC year from
// 1900 to 9999. Digits past microseconds are truncated.
std::optional<Timestamp> parse_timestamp(std::string_view text);

// The canonical text of `micros` (see Timestamp::canonical).
std::string format_timestamp(int64_t micros);

// An absolute http or https URL with a host name or IP literal, an optional
// port 1-65535 and no whitespace or control characters; at most 2048 bytes.
bool is_http_url(std::string_view text);

// A comma-separated list of positive integer ids ("12, 7,9"), returned in
// canonical form ("12,7,9"). Empty when malformed or empty.
std::optional<std::string> parse_id_list(std::string_view text);

}  // namespace ca
