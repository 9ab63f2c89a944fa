// libFuzzer target: the timestamp parsers. parse_timestamp() reads the
// ISO 8601 timestamps clients send (announcements' scheduled_at and
// expires_at); iso_from_pg_timestamptz() rewrites PostgreSQL's text.
//
// Properties: an accepted timestamp's canonical text is 27 bytes, parses
// back to the same instant, and is what format_timestamp() prints for it;
// the PostgreSQL rewrite keeps the date and has the API format's
// separators.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "formats.h"
#include "fuzz_check.h"
#include "pg_timestamp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto t = ca::parse_timestamp(input)) {
    FUZZ_CHECK(t->canonical.size() == ca::kIsoTimestampSize);
    FUZZ_CHECK(ca::format_timestamp(t->micros) == t->canonical);
    auto again = ca::parse_timestamp(t->canonical);
    FUZZ_CHECK(again && again->micros == t->micros && again->canonical == t->canonical);
  }
  char out[ca::kIsoTimestampSize + 1] = {};
  if (ca::iso_from_pg_timestamptz(input, out)) {
    std::string_view iso(out, ca::kIsoTimestampSize);
    FUZZ_CHECK(iso[10] == 'T' && iso[19] == '.' && iso[26] == 'Z');
    FUZZ_CHECK(iso.substr(0, 10) == input.substr(0, 10));
  }
  return 0;
}
