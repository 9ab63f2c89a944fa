// JSON helpers (common/json.h) and the text helpers of common/http.h:
// strict parsing, UTF-8 checks, query-string decoding.
#include "json.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "http.h"

namespace ca {
namespace {

// --- json_parse ------------------------------------------------------------------

TEST(JsonParseTest, AcceptsOneValueWithSurroundingWhitespace) {
  for (const char* text :
       {"{}", " {} ", "\t\r\n{\"a\":1}\n\r\t ", "[1,2]", "\"s\"", "0", "null", "true"}) {
    EXPECT_TRUE(json_parse(text)) << text;
  }
  EXPECT_EQ(json_dump(json_parse("  {\"a\" : [1, 2.5, \"x\", null, true]}  ").get()),
            R"({"a":[1,2.5,"x",null,true]})");
}

TEST(JsonParseTest, RefusesTrailingGarbage) {
  for (const char* text :
       {"{}x", "{} {}", "{}}", "[1]]", "1 2", "{}\v", "{}/", "null,", "{} // comment"}) {
    EXPECT_FALSE(json_parse(text)) << text;
  }
}

TEST(JsonParseTest, RefusesMalformedJson) {
  for (const char* text : {"", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{a:1}", "{'a':1}", "[1,]",
                           "{\"a\":1,}", "nul", "tru", "\"unterminated", "01x"}) {
    EXPECT_FALSE(json_parse(text)) << text;
  }
}

TEST(JsonParseTest, RefusesTrailingNulAndDataAfterIt) {
  // The whole buffer counts, not just up to a NUL.
  EXPECT_FALSE(json_parse(std::string_view("{}\0{}", 5)));
}

TEST(JsonParseTest, ParsesOnlyTheGivenLength) {
  std::string_view text("{\"a\":1}garbage", 7);
  Json v = json_parse(text);
  ASSERT_TRUE(v);
  EXPECT_EQ(json_get_int(v.get(), "a"), 1);
}

TEST(JsonParseTest, DecodesUnicodeEscapesToUtf8) {
  Json v = json_parse(R"({"s":"\u00e9\u65e5\ud83c\udf89"})");
  ASSERT_TRUE(v);
  EXPECT_EQ(json_get_str(v.get(), "s").value_or(""), "é日🎉");
}

// --- builders and readers ----------------------------------------------------------

TEST(JsonBuildTest, BuildersProduceCompactJsonInInsertionOrder) {
  Json o = json_object();
  json_add_str(o.get(), "s", "a \"quoted\" \\ value\n");
  json_add_int(o.get(), "i", -42);
  json_add_int(o.get(), "big", 9007199254740991);  // 2^53 - 1: exact in a double
  json_add_num(o.get(), "n", 12.5);
  json_add_bool(o.get(), "t", true);
  json_add_bool(o.get(), "f", false);
  json_add_null(o.get(), "z");
  json_add_opt_str(o.get(), "some", std::optional<std::string>("x"));
  json_add_opt_str(o.get(), "none", std::nullopt);
  Json arr = json_array();
  json_append(arr.get(), json_object());
  json_append(arr.get(), json_array());
  cJSON* added = json_add(o.get(), "arr", std::move(arr));
  EXPECT_FALSE(arr);  // ownership moved to the parent
  EXPECT_TRUE(cJSON_IsArray(added));
  EXPECT_EQ(json_dump(o.get()),
            R"({"s":"a \"quoted\" \\ value\n","i":-42,"big":9007199254740991,"n":12.5,)"
            R"("t":true,"f":false,"z":null,"some":"x","none":null,"arr":[{},[]]})");
}

TEST(JsonBuildTest, IntegersAreWrittenExactlyAcrossTheInt64Range) {
  Json o = json_object();
  json_add_int(o.get(), "a", 999999999999999);
  json_add_int(o.get(), "b", 1000000000000000);
  json_add_int(o.get(), "c", 4503599627370497);
  json_add_int(o.get(), "d", INT64_MAX);
  json_add_int(o.get(), "e", INT64_MIN);
  json_add_int(o.get(), "f", -9007199254740991);
  json_add_int(o.get(), "g", 2147483648);
  EXPECT_EQ(json_dump(o.get()),
            R"({"a":999999999999999,"b":1000000000000000,"c":4503599627370497,)"
            R"("d":9223372036854775807,"e":-9223372036854775808,"f":-9007199254740991,)"
            R"("g":2147483648})");
  // Still valid JSON that parses back to numbers.
  Json back = json_parse(json_dump(o.get()));
  ASSERT_TRUE(back);
  EXPECT_EQ(json_get_int(back.get(), "c"), 4503599627370497);
}

TEST(JsonBuildTest, BuiltIntegersReadBackExactly) {
  Json o = json_object();
  json_add_int(o.get(), "max", INT64_MAX);
  json_add_int(o.get(), "min", INT64_MIN);
  json_add_int(o.get(), "zero", 0);
  json_add_str(o.get(), "digits", "42");
  cJSON_AddItemToObject(o.get(), "raw_fraction", cJSON_CreateRaw("1.5"));
  cJSON_AddItemToObject(o.get(), "raw_empty", cJSON_CreateRaw(""));
  EXPECT_EQ(json_get_int(o.get(), "max"), INT64_MAX);
  EXPECT_EQ(json_get_int(o.get(), "min"), INT64_MIN);
  EXPECT_EQ(json_get_int(o.get(), "zero"), 0);
  EXPECT_EQ(json_get_int(o.get(), "digits"), std::nullopt);  // a string, not a number
  EXPECT_EQ(json_get_int(o.get(), "raw_fraction"), std::nullopt);
  EXPECT_EQ(json_get_int(o.get(), "raw_empty"), std::nullopt);
}

TEST(JsonBuildTest, StringValuesAreCopiedAndKeysMayBeBuiltAtRunTime) {
  Json o = json_object();
  {
    std::string value = "temporary \"text\"";
    json_add_str(o.get(), "v", std::string_view(value).substr(0, 9));
    std::string key = "field_" + std::to_string(7);
    json_add_copied_key(o.get(), key, json_array());
    value.assign(value.size(), 'x');
    key.assign(key.size(), 'x');
  }
  json_add_str(o.get(), "empty", "");
  json_add_opt_str(o.get(), "view", std::optional<std::string_view>("abc"));
  json_add_str(o.get(), "replaced", "old");
  json_set_null(o.get(), "replaced");
  json_set_null(o.get(), "added");
  EXPECT_EQ(
      json_dump(o.get()),
      R"({"v":"temporary","field_7":[],"empty":"","view":"abc","replaced":null,"added":null})");
}

TEST(JsonBuildTest, StringsWithMultibyteCharactersRoundTrip) {
  Json o = json_object();
  json_add_str(o.get(), "name", "Café 日本 🎉");
  Json back = json_parse(json_dump(o.get()));
  EXPECT_EQ(json_get_str(back.get(), "name").value_or(""), "Café 日本 🎉");
}

TEST(JsonBuildTest, DumpPrintsTextsOfEverySize) {
  // Texts from a few bytes to more than cJSON's printer starts with (it
  // grows its buffer as it goes) and back: each printed whole and exactly.
  for (size_t n : {10u, 5000u, 100'000u, 600'000u, 3u}) {
    Json o = json_object();
    json_add_str(o.get(), "s", std::string(n, 'a'));
    json_add_int(o.get(), "n", static_cast<int64_t>(n));
    EXPECT_EQ(json_dump(o.get()),
              R"({"s":")" + std::string(n, 'a') + R"(","n":)" + std::to_string(n) + "}");
  }
}

TEST(JsonBuildTest, DumpOfNullIsNullText) { EXPECT_EQ(json_dump(nullptr), "null"); }

TEST(JsonBuildTest, RawTextIsPrintedAsItIsAndCopied) {
  std::string rows = R"({"id":1,"name":"a \"b\"","price":12.5}{"id":2})";
  Json list = json_array();
  json_append(list.get(), json_raw(std::string_view(rows).substr(0, 38)));
  json_append(list.get(), json_raw(std::string_view(rows).substr(38)));
  rows.assign(rows.size(), 'x');
  EXPECT_EQ(json_dump(list.get()), R"([{"id":1,"name":"a \"b\"","price":12.5},{"id":2}])");
  EXPECT_EQ(json_dump(json_raw("{}").get()), "{}");
}

TEST(JsonReadTest, ReadersReturnNothingForAbsentOrOtherTypes) {
  Json v = json_parse(R"({"s":"x","i":5,"f":5.5,"n":null,"b":true,"o":{"s":"inner"}})");
  ASSERT_TRUE(v);
  EXPECT_EQ(json_get_str(v.get(), "s").value_or(""), "x");
  EXPECT_FALSE(json_get_str(v.get(), "i"));
  EXPECT_FALSE(json_get_str(v.get(), "missing"));
  EXPECT_EQ(json_get_int(v.get(), "i"), 5);
  EXPECT_FALSE(json_get_int(v.get(), "f"));
  EXPECT_FALSE(json_get_int(v.get(), "s"));
  EXPECT_FALSE(json_get_int(v.get(), "n"));
  EXPECT_TRUE(cJSON_IsNull(json_get(v.get(), "n")));
  EXPECT_EQ(json_get(v.get(), "missing"), nullptr);
  EXPECT_EQ(json_get_str(json_get(v.get(), "o"), "s").value_or(""), "inner");
  // Keys are case-sensitive; non-objects have no members.
  EXPECT_EQ(json_get(v.get(), "S"), nullptr);
  EXPECT_EQ(json_get(nullptr, "s"), nullptr);
  Json arr = json_parse("[1]");
  EXPECT_EQ(json_get(arr.get(), "0"), nullptr);
}

TEST(JsonReadTest, IsIntegerBounds) {
  int64_t out = 0;
  Json v =
      json_parse(R"([0, -0, 1, -1, 1.0, 1e3, 1.5, -0.5, 9007199254740993, -9223372036854775808,)"
                 R"( 9223372036854775807, 9223372036854775808, 1e19, -1e19, "1", true, null])");
  ASSERT_TRUE(v);
  auto at = [&](int i) { return cJSON_GetArrayItem(v.get(), i); };
  EXPECT_TRUE(json_is_integer(at(0), &out));
  EXPECT_EQ(out, 0);
  EXPECT_TRUE(json_is_integer(at(1), &out));
  EXPECT_TRUE(json_is_integer(at(2), &out));
  EXPECT_EQ(out, 1);
  EXPECT_TRUE(json_is_integer(at(3), &out));
  EXPECT_EQ(out, -1);
  EXPECT_TRUE(json_is_integer(at(4), &out));
  EXPECT_EQ(out, 1);
  EXPECT_TRUE(json_is_integer(at(5), &out));
  EXPECT_EQ(out, 1000);
  EXPECT_FALSE(json_is_integer(at(6), &out));
  EXPECT_FALSE(json_is_integer(at(7), &out));
  // Beyond 2^53 a double holds the nearest even value; still a whole number in range.
  EXPECT_TRUE(json_is_integer(at(8), &out));
  EXPECT_TRUE(json_is_integer(at(9), &out));
  EXPECT_EQ(out, INT64_MIN);
  // 2^63 - 1 rounds up to 2^63, which does not fit.
  EXPECT_FALSE(json_is_integer(at(10), &out));
  EXPECT_FALSE(json_is_integer(at(11), &out));
  EXPECT_FALSE(json_is_integer(at(12), &out));
  EXPECT_FALSE(json_is_integer(at(13), &out));
  EXPECT_FALSE(json_is_integer(at(14), &out));
  EXPECT_FALSE(json_is_integer(at(15), &out));
  EXPECT_FALSE(json_is_integer(at(16), &out));
  EXPECT_FALSE(json_is_integer(nullptr, &out));
}

// --- utf8_valid / utf8_length -------------------------------------------------------

TEST(Utf8Test, AcceptsWellFormedText) {
  for (std::string_view s : {std::string_view(""), std::string_view("plain ascii"),
                             std::string_view("\x00", 1),              // NUL is a code point
                             std::string_view("\x7F"),                 // U+007F
                             std::string_view("\xC2\x80"),             // U+0080, smallest 2-byte
                             std::string_view("\xC3\xA9"),             // é
                             std::string_view("\xDF\xBF"),             // U+07FF
                             std::string_view("\xE0\xA0\x80"),         // U+0800, smallest 3-byte
                             std::string_view("\xE2\x82\xAC"),         // €
                             std::string_view("\xED\x9F\xBF"),         // U+D7FF, below surrogates
                             std::string_view("\xEE\x80\x80"),         // U+E000, above surrogates
                             std::string_view("\xEF\xBF\xBF"),         // U+FFFF
                             std::string_view("\xF0\x90\x80\x80"),     // U+10000
                             std::string_view("\xF0\x9F\x8E\x89"),     // 🎉
                             std::string_view("\xF4\x8F\xBF\xBF")}) {  // U+10FFFF
    EXPECT_TRUE(utf8_valid(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8Test, RefusesOverlongEncodings) {
  for (std::string_view s : {"\xC0\x80", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF",
                             "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF"}) {
    EXPECT_FALSE(utf8_valid(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8Test, RefusesSurrogates) {
  for (std::string_view s : {"\xED\xA0\x80", "\xED\xAD\xBF", "\xED\xB0\x80", "\xED\xBF\xBF",
                             "\xED\xA0\xBD\xED\xB8\x80"}) {  // CESU-8 style pair
    EXPECT_FALSE(utf8_valid(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8Test, RefusesCodePointsAboveU10FFFF) {
  for (std::string_view s : {"\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF7\xBF\xBF\xBF",
                             "\xF8\x88\x80\x80\x80", "\xFC\x84\x80\x80\x80\x80", "\xFE", "\xFF"}) {
    EXPECT_FALSE(utf8_valid(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8Test, RefusesTruncatedAndStraySequences) {
  for (std::string_view s :
       {"\xC3", "\xE2\x82", "\xF0\x9F\x8E", "a\xE2\x82", "\x80", "\xBF", "a\x80z", "\xC3\x28",
        "\xE2\x28\xA1", "\xF0\x28\x8C\x28", "\xE2\x82\xAC\x80"}) {
    EXPECT_FALSE(utf8_valid(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8Test, LengthCountsCodePoints) {
  EXPECT_EQ(utf8_length(""), 0u);
  EXPECT_EQ(utf8_length("abc"), 3u);
  EXPECT_EQ(utf8_length("é"), 1u);
  EXPECT_EQ(utf8_length("日本語"), 3u);
  EXPECT_EQ(utf8_length("🎉🎉"), 2u);
  EXPECT_EQ(utf8_length("aé日🎉"), 4u);
}

// --- fcgi_param ----------------------------------------------------------------------

TEST(FcgiParamTest, FindsTheParameterByItsWholeName) {
  const char* envp[] = {"HTTP_X_TENANT_ID_2=9", "HTTP_X_TENANT_I=8", "HTTP_X_TENANT_ID=21",
                        "REQUEST_METHOD=GET", nullptr};
  EXPECT_EQ(fcgi_param(envp, "HTTP_X_TENANT_ID").value_or("<none>"), "21");
  EXPECT_EQ(fcgi_param(envp, "REQUEST_METHOD").value_or("<none>"), "GET");
  EXPECT_FALSE(fcgi_param(envp, "HTTP_AUTHORIZATION"));
  EXPECT_FALSE(fcgi_param(envp, "HTTP_X"));
  const char* empty[] = {"HTTP_X_TENANT_ID=", nullptr};
  EXPECT_EQ(fcgi_param(empty, "HTTP_X_TENANT_ID").value_or("<none>"), "");
  const char* none[] = {nullptr};
  EXPECT_FALSE(fcgi_param(none, "HTTP_X_TENANT_ID"));
  EXPECT_FALSE(fcgi_param(nullptr, "HTTP_X_TENANT_ID"));
}

TEST(FcgiParamTest, AHeaderSentOnSeveralLinesIsTheirValuesJoined) {
  const char* envp[] = {"HTTP_X_TENANT_ID=21", "HTTP_AUTHORIZATION=Bearer a", "HTTP_X_TENANT_ID=1",
                        "HTTP_X_TENANT_ID=", nullptr};
  EXPECT_EQ(fcgi_param(envp, "HTTP_X_TENANT_ID").value_or("<none>"), "21, 1, ");
  EXPECT_EQ(fcgi_param(envp, "HTTP_AUTHORIZATION").value_or("<none>"), "Bearer a");
}

// --- url_decode / query_param -----------------------------------------------------------

TEST(UrlDecodeTest, DecodesEscapesAndPlus) {
  EXPECT_EQ(url_decode("").value_or("<fail>"), "");
  EXPECT_EQ(url_decode("abc").value_or(""), "abc");
  EXPECT_EQ(url_decode("a+b").value_or(""), "a b");
  EXPECT_EQ(url_decode("%41%42c").value_or(""), "ABc");
  EXPECT_EQ(url_decode("%2b%2B").value_or(""), "++");
  EXPECT_EQ(url_decode("%C3%A9").value_or(""), "é");
  EXPECT_EQ(url_decode("%25").value_or(""), "%");
  EXPECT_EQ(url_decode("%00").value_or(""), std::string("\0", 1));
  EXPECT_EQ(url_decode("x%20").value_or(""), "x ");
}

TEST(UrlDecodeTest, RefusesMalformedEscapes) {
  for (const char* s : {"%", "%4", "a%", "a%4", "%zz", "%4g", "%g4", "%%41"}) {
    EXPECT_FALSE(url_decode(s)) << s;
  }
}

Request query(std::string q) {
  Request r;
  r.query = std::move(q);
  return r;
}

TEST(QueryParamTest, FindsDecodedValues) {
  Request r = query("page=2&per_page=15&q=caf%C3%A9+cr%C3%A8me&empty=&flag&p%61th=%2Fx");
  EXPECT_EQ(r.query_param("page"), "2");
  EXPECT_EQ(r.query_param("per_page"), "15");
  EXPECT_EQ(r.query_param("q"), "café crème");
  EXPECT_EQ(r.query_param("empty"), "");
  EXPECT_EQ(r.query_param("flag"), "");
  EXPECT_EQ(r.query_param("path"), "/x");
  EXPECT_EQ(r.query_param("missing"), std::nullopt);
  EXPECT_EQ(r.query_param("Page"), std::nullopt);  // names are case-sensitive
  EXPECT_EQ(r.query_param("pag"), std::nullopt);   // no prefix matches
}

TEST(QueryParamTest, FirstOccurrenceWins) {
  EXPECT_EQ(query("page=1&page=2").query_param("page"), "1");
}

TEST(QueryParamTest, EmptyQueryAndStrayAmpersands) {
  EXPECT_EQ(query("").query_param("page"), std::nullopt);
  EXPECT_EQ(query("&&page=3&").query_param("page"), "3");
}

TEST(QueryParamTest, MalformedEscapeIsPassedOnRaw) {
  // The caller's own validation then refuses it (e.g. page=%zz is a 422).
  EXPECT_EQ(query("page=%zz").query_param("page"), "%zz");
}

// --- Response helpers --------------------------------------------------------------------

TEST(ResponseTest, ErrorAndJsonBodies) {
  Response e = Response::error(404, "Not found");
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(e.body, R"({"error":"Not found"})");
  Json o = json_object();
  json_add_str(o.get(), "status", "ok");
  Response j = Response::json(201, o);
  EXPECT_EQ(j.status, 201);
  EXPECT_EQ(j.body, R"({"status":"ok"})");
  j.header("X-A", "1").header("X-B", "2");
  ASSERT_EQ(j.headers.size(), 2u);
  EXPECT_EQ(j.headers[1].first, "X-B");
}

TEST(ResponseTest, StatusReasons) {
  EXPECT_STREQ(status_reason(200), "OK");
  EXPECT_STREQ(status_reason(201), "Created");
  EXPECT_STREQ(status_reason(202), "Accepted");  // a test event, a redelivery
  EXPECT_STREQ(status_reason(401), "Unauthorized");
  EXPECT_STREQ(status_reason(405), "Method Not Allowed");
  EXPECT_STREQ(status_reason(413), "Content Too Large");
  EXPECT_STREQ(status_reason(422), "Unprocessable Content");
  EXPECT_STREQ(status_reason(429), "Too Many Requests");
  EXPECT_STREQ(status_reason(503), "Service Unavailable");
}

TEST(JsonSetNullTest, ReplacesAValueInPlaceOrAddsTheKey) {
  Json o = json_object();
  json_add_int(o.get(), "a", 1);
  json_add_int(o.get(), "b", 2);
  json_set_null(o.get(), "a");
  json_set_null(o.get(), "c");
  EXPECT_EQ(json_dump(o.get()), R"({"a":null,"b":2,"c":null})");
}

TEST(JsonDuplicateKeyTest, FindsANameHeldTwiceByOneObjectAtAnyDepth) {
  for (const char* ok : {"{}", "[]", "1", R"({"a":1,"b":2,"A":3})", R"({"a":{"a":{"a":1}}})",
                         R"([{"a":1},{"a":2}])", R"({"x":[{"k":1,"j":2},{"k":3}]})"}) {
    Json v = json_parse(ok);
    ASSERT_TRUE(v) << ok;
    EXPECT_FALSE(json_duplicate_key(v.get())) << ok;
  }
  const std::pair<const char*, const char*> bad[] = {{R"({"a":1,"a":2})", "a"},
                                                     {R"({"b":1,"a":2,"c":3,"a":4})", "a"},
                                                     {R"({"x":[1,{"k":1,"j":2,"k":3}]})", "k"},
                                                     {R"([[{"deep":{"n":null,"n":null}}]])", "n"},
                                                     {R"({"\u00e9":1,"é":2})", "é"}};
  for (const auto& [text, key] : bad) {
    Json v = json_parse(text);
    ASSERT_TRUE(v) << text;
    EXPECT_EQ(json_duplicate_key(v.get()).value_or("<none>"), key) << text;
  }
}

TEST(JsonNumbersFiniteTest, FindsANumberBeyondADoubleAtAnyDepth) {
  for (const char* ok : {R"({})", R"({"a":1.7976931348623157e308,"b":-1e308,"c":1e-400})",
                         R"([1,[2,{"x":[3]}]])", R"("1e400")", "0"}) {
    Json v = json_parse(ok);
    ASSERT_TRUE(v) << ok;
    EXPECT_TRUE(json_numbers_finite(v.get())) << ok;
  }
  for (const char* bad : {"1e400", R"({"a":1e400})", R"({"a":-1e999})",
                          R"({"a":{"b":[0,{"c":2e308}]}})", R"([1,2,[3,1E+309]])"}) {
    Json v = json_parse(bad);
    ASSERT_TRUE(v) << bad;
    EXPECT_FALSE(json_numbers_finite(v.get())) << bad;
  }
}

// json_check_text() finds the faults in document order and marks exactly the
// numbers below a double's normal range, not those that look alike.
TEST(JsonCheckTextTest, MarksOnlyTheNumbersBelowTheNormalRange) {
  std::string text =
      R"({"a":[1e-400,"1e-400",{"1e-400":0.0e-400},-5e-324,2.5e-308,3],"b":"\"1e-999",)"
      R"("c":1.5e-400})";
  Json v = json_parse(text);
  ASSERT_TRUE(v);
  EXPECT_EQ(json_check_text(text, v.get()), JsonTextFault::kNone);
  EXPECT_EQ(json_dump(v.get()), R"({"a":[null,"1e-400",{"1e-400":0},null,2.5e-308,3],)"
                                R"("b":"\"1e-999","c":null})");
}

TEST(JsonCheckTextTest, FindsNulAndControlCharacters) {
  EXPECT_EQ(json_check_text(R"({"a":"\u0000"})", nullptr), JsonTextFault::kNul);
  EXPECT_EQ(json_check_text(std::string("{\"a\":\"\0\"}", 8), nullptr), JsonTextFault::kNul);
  EXPECT_EQ(json_check_text("{\"a\":\"\x1f\"}", nullptr), JsonTextFault::kControlCharacter);
  EXPECT_EQ(json_check_text("{\x0b}", nullptr), JsonTextFault::kControlCharacter);
  EXPECT_EQ(json_check_text("{\t\"a\"\r\n:\"\\u0001\"}", nullptr), JsonTextFault::kNone);
}

TEST(JsonEscapedSizeTest, CountsTheBytesOfTheStringAsJsonWritesIt) {
  EXPECT_EQ(json_escaped_size(""), 0u);
  EXPECT_EQ(json_escaped_size("abc"), 3u);
  EXPECT_EQ(json_escaped_size("\"\\\b\f\n\r\t"), 14u);
  EXPECT_EQ(json_escaped_size("\x01\x1f"), 12u);
  EXPECT_EQ(json_escaped_size("\x7f/"), 2u);
  EXPECT_EQ(json_escaped_size("\xc3\xa9\xe2\x82\xac"), 5u);  // é€: UTF-8 as it is
  for (std::string text : {"a\"b\n\x01\xc3\xa9", "plain", "\t\x02\\"}) {
    Json v(cJSON_CreateString(text.c_str()));
    EXPECT_EQ(json_escaped_size(text) + 2, json_dump(v.get()).size()) << text;
  }
}

TEST(JsonStoredSizeTest, CountsNumbersAsPostgresqlWritesThemOut) {
  auto stored = [](const char* text) {
    Json v = json_parse(text);
    return v ? json_stored_size(v.get()) : size_t{0};
  };
  EXPECT_EQ(stored(R"({"a":"b","c":[1,2.5,-3]})"), 24u);
  EXPECT_EQ(stored("1e300"), 301u);  // printed 1e+300, kept as 1 and 300 zeros
  EXPECT_EQ(stored("-1e300"), 302u);
  EXPECT_EQ(stored("1.5e-07"), 10u);   // 0.00000015
  EXPECT_EQ(stored("1.25e+20"), 21u);  // 125000000000000000000
  EXPECT_EQ(stored("0.001"), 5u);
  EXPECT_EQ(stored("[1e300,1e300]"), 605u);
}

}  // namespace
}  // namespace ca
