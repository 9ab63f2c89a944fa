// The text formats of announcement fields: timestamps, URLs, user id lists.
#include <gtest/gtest.h>

#include "../../handlers/announcements/formats.h"
#include "unit_helpers.h"

namespace ca {
namespace {

std::string canonical(std::string_view text) {
  auto ts = parse_timestamp(text);
  return ts ? ts->canonical : "<invalid>";
}

TEST(AnnouncementTimestamp, AcceptsUtcOffsetsAndFractions) {
  expect_each(canonical, {{"2026-12-01T10:00:00Z", "2026-12-01T10:00:00.000000Z"},
                          {"2026-12-01T10:00:00z", "2026-12-01T10:00:00.000000Z"},
                          {"2026-12-01T10:00:00+02:00", "2026-12-01T08:00:00.000000Z"},
                          {"2026-12-01T10:00:00-0530", "2026-12-01T15:30:00.000000Z"},
                          {"2026-12-01T01:00:00+03", "2026-11-30T22:00:00.000000Z"},
                          {"2026-12-01T10:00:00.5Z", "2026-12-01T10:00:00.500000Z"},
                          {"2026-12-01T10:00:00.123456789Z", "2026-12-01T10:00:00.123456Z"},
                          {"2026-12-01T10:00Z", "2026-12-01T10:00:00.000000Z"},
                          {"2026-12-01 10:00:00", "2026-12-01T10:00:00.000000Z"},
                          {"2026-12-01", "2026-12-01T00:00:00.000000Z"},
                          {"2028-02-29T23:59:59Z", "2028-02-29T23:59:59.000000Z"},
                          {"2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000000Z"},
                          {"1900-01-01T00:00:00Z", "1900-01-01T00:00:00.000000Z"},
                          {"9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"}});
}

TEST(AnnouncementTimestamp, MicrosAreSinceTheEpoch) {
  EXPECT_EQ(parse_timestamp("1970-01-01T00:00:00Z")->micros, 0);
  EXPECT_EQ(parse_timestamp("1970-01-01T00:00:01.000001Z")->micros, 1'000'001);
  EXPECT_EQ(parse_timestamp("1969-12-31T23:59:59Z")->micros, -1'000'000);
  EXPECT_LT(parse_timestamp("2026-12-01T10:00:00+01:00")->micros,
            parse_timestamp("2026-12-01T10:00:00Z")->micros);
}

TEST(AnnouncementTimestamp, RefusesImpossibleDatesAndGarbage) {
  for (const char* bad : {"",
                          "garbage",
                          "2026-02-30T10:00:00Z",
                          "2026-02-29T10:00:00Z",
                          "1900-02-29",
                          "2026-13-01T00:00:00Z",
                          "2026-00-10",
                          "2026-04-31",
                          "2026-12-01T24:00:00Z",
                          "2026-12-01T10:60:00Z",
                          "2026-12-01T10:00:60Z",
                          "2026-12-01T10",
                          "2026-12-01T10:00:00+16:00",
                          "2026-12-01T10:00:00+02:",
                          "2026-12-01T10:00:00.Z",
                          "2026-12-01T10:00:00.1234567890Z",
                          "2026-12-01T10:00:00ZZ",
                          "2026-12-01T10:00:00 Z",
                          " 2026-12-01",
                          "2026-12-01x",
                          "26-12-01",
                          "2026-1-01",
                          "+2026-12-01",
                          "1899-12-31T23:59:59Z",
                          "9999-12-31T23:00:00-05:00",
                          "2026-12-01T10:00:00Z\n"}) {
    EXPECT_FALSE(parse_timestamp(bad)) << bad;
  }
}

TEST(AnnouncementUrl, AcceptsAbsoluteHttpUrls) {
  for (const char* good :
       {"https://example.com", "http://example.com/", "https://cdn.example.com/a/b.png?x=1#top",
        "HTTPS://Example.COM/x", "http://127.0.0.1:8080/x", "http://[::1]:3000/", "http://[::1]/",
        "https://user:pw@example.com/", "https://example.com./x", "https://xn--mnchen-3ya.de/"}) {
    EXPECT_TRUE(is_http_url(good)) << good;
  }
}

TEST(AnnouncementUrl, RefusesOtherSchemesAndMalformedHosts) {
  for (const char* bad :
       {"", "example.com", "ftp://example.com/", "javascript:alert(1)", "https://", "https:///x",
        "https://exa mple.com/", "https://example.com/a b", "https://-bad.com/",
        "https://a..b.com/", "https://.example.com/", "https://example.com:0/",
        "https://example.com:65536/", "https://example.com:/", "https://example.com:80a/",
        "https://[::1/", "https://münchen.de/", "//example.com/", "https://ex_ample.com/"}) {
    EXPECT_FALSE(is_http_url(bad)) << bad;
  }
  EXPECT_FALSE(is_http_url("https://example.com/" + std::string(2100, 'a')));
}

TEST(AnnouncementIdList, CanonicalisesPositiveIds) {
  EXPECT_EQ(parse_id_list("1"), "1");
  EXPECT_EQ(parse_id_list("12, 7 ,9"), "12,7,9");
  for (const char* bad :
       {"", " ", "1,", ",1", "1,,2", "0", "01", "-1", "1.5", "a", "1;2", "1234567890123456789"}) {
    EXPECT_FALSE(parse_id_list(bad)) << bad;
  }
}

}  // namespace
}  // namespace ca
