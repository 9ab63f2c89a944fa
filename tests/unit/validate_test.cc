// Body validation (common/validate.h) and the error bodies it produces
// (common/error.h): every rule and the exact messages.
#include "validate.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "error.h"
#include "json.h"

namespace ca {
namespace {

// Parses `text` (a JSON object) and keeps it alive for the readers.
struct Body {
  explicit Body(std::string_view text) : json(json_parse(text)) {
    EXPECT_TRUE(json) << "test body is not JSON: " << text;
  }
  Json json;
  FieldErrors errs;
  BodyReader reader(std::string prefix = "") { return BodyReader(json.get(), errs, prefix); }
  std::string errors() const { return json_dump(errs.to_json().get()); }
};

// --- strings ----------------------------------------------------------------

TEST(BodyReaderTest, StringValueIsReturned) {
  Body b(R"({"name":"Acme"})");
  auto in = b.reader();
  auto f = in.str("name", {.required = true});
  EXPECT_TRUE(f.present);
  EXPECT_FALSE(f.null);
  EXPECT_TRUE(f.has_value());
  EXPECT_EQ(f.value, "Acme");
  EXPECT_TRUE(b.errs.empty());
}

TEST(BodyReaderTest, RequiredStringMissingOrNull) {
  Body b(R"({"b":null})");
  auto in = b.reader();
  auto a = in.str("a", {.required = true});
  auto n = in.str("b", {.required = true});
  EXPECT_FALSE(a.present);
  EXPECT_FALSE(a.has_value());
  EXPECT_TRUE(n.present);
  EXPECT_TRUE(n.null);
  EXPECT_FALSE(n.has_value());
  EXPECT_EQ(b.errors(), R"({"a":["The a field is required."],"b":["The b field is required."]})");
}

TEST(BodyReaderTest, OptionalStringAbsentNullAndNullable) {
  Body b(R"({"strict":null,"loose":null})");
  auto in = b.reader();
  auto absent = in.str("absent", {});
  auto strict = in.str("strict", {});
  auto loose = in.str("loose", {.nullable = true});
  // Absent: neither present nor null, and no error.
  EXPECT_FALSE(absent.present);
  EXPECT_FALSE(absent.null);
  // Null where null is allowed: present and null, no error (partial updates clear a field).
  EXPECT_TRUE(loose.present);
  EXPECT_TRUE(loose.null);
  EXPECT_FALSE(loose.has_value());
  EXPECT_TRUE(strict.null);
  EXPECT_EQ(b.errors(), R"({"strict":["The strict field must not be null."]})");
}

TEST(BodyReaderTest, StringOfWrongTypeIsRefused) {
  Body b(R"({"a":5,"b":true,"c":{},"d":[],"e":1.5})");
  auto in = b.reader();
  for (const char* k : {"a", "b", "c", "d", "e"}) {
    auto f = in.str(k, {.required = true});
    EXPECT_FALSE(f.has_value()) << k;
  }
  EXPECT_EQ(b.errors(),
            R"({"a":["The a field must be a string."],"b":["The b field must be a string."],)"
            R"("c":["The c field must be a string."],"d":["The d field must be a string."],)"
            R"("e":["The e field must be a string."]})");
}

TEST(BodyReaderTest, TrimStripsAsciiWhitespaceOnly) {
  Body b(R"({"a":"  \t Acme Store \n\r ","b":"\u00a0x\u00a0","c":"a  b"})");
  auto in = b.reader();
  EXPECT_EQ(in.str("a", {.trim = true}).value, "Acme Store");
  // A no-break space is content, not ASCII whitespace.
  EXPECT_EQ(in.str("b", {.trim = true}).value, "\u00a0x\u00a0");
  EXPECT_EQ(in.str("c", {.trim = true}).value, "a  b");
  EXPECT_TRUE(b.errs.empty());
}

TEST(BodyReaderTest, UntrimmedStringKeepsItsSpaces) {
  Body b(R"({"a":"  x  "})");
  auto in = b.reader();
  EXPECT_EQ(in.str("a", {}).value, "  x  ");
}

TEST(BodyReaderTest, RequiredBlankStringIsMissing) {
  Body b(R"({"a":"   ","b":"","c":""})");
  auto in = b.reader();
  EXPECT_FALSE(in.str("a", {.required = true, .trim = true}).has_value());
  EXPECT_FALSE(in.str("b", {.required = true}).has_value());
  // An optional empty string is a value.
  auto c = in.str("c", {});
  EXPECT_TRUE(c.has_value());
  EXPECT_EQ(c.value, "");
  EXPECT_EQ(b.errors(), R"({"a":["The a field is required."],"b":["The b field is required."]})");
}

TEST(BodyReaderTest, LengthIsCountedInCodePointsNotBytes) {
  // "é" is 2 bytes, "日" 3 bytes, "🎉" 4 bytes: each one character.
  Body b(R"({"ok3":"é日🎉","long4":"é日🎉x","short1":"🎉","ok_min":"日日"})");
  auto in = b.reader();
  auto ok3 = in.str("ok3", {.max = 3});
  auto long4 = in.str("long4", {.max = 3});
  auto short1 = in.str("short1", {.min = 2});
  auto ok_min = in.str("ok_min", {.min = 2, .max = 2});
  EXPECT_TRUE(ok3.has_value());
  EXPECT_EQ(ok3.value, "é日🎉");
  EXPECT_FALSE(long4.has_value());
  EXPECT_FALSE(short1.has_value());
  EXPECT_TRUE(ok_min.has_value());
  EXPECT_EQ(b.errors(), R"({"long4":["The long4 field must not be greater than 3 characters."],)"
                        R"("short1":["The short1 field must be at least 2 characters."]})");
}

TEST(BodyReaderTest, LengthIsCheckedAfterTrimming) {
  Body b(R"({"a":"  abc  ","b":"   a   "})");
  auto in = b.reader();
  EXPECT_EQ(in.str("a", {.trim = true, .max = 3}).value, "abc");
  EXPECT_FALSE(in.str("b", {.trim = true, .min = 2}).has_value());
  EXPECT_EQ(b.errors(), R"({"b":["The b field must be at least 2 characters."]})");
}

TEST(BodyReaderTest, OneOfIsExactAndCaseSensitive) {
  Body b(R"({"ok":"ADMIN","lower":"admin","other":"OWNER","spaced":" ADMIN"})");
  auto in = b.reader();
  auto ok = in.str("ok", {.required = true, .one_of = {"ADMIN", "MEMBER"}});
  EXPECT_TRUE(ok.has_value());
  EXPECT_EQ(ok.value, "ADMIN");
  EXPECT_FALSE(in.str("lower", {.one_of = {"ADMIN", "MEMBER"}}).has_value());
  EXPECT_FALSE(in.str("other", {.one_of = {"ADMIN", "MEMBER"}}).has_value());
  EXPECT_FALSE(in.str("spaced", {.one_of = {"ADMIN", "MEMBER"}}).has_value());
  EXPECT_EQ(b.errors(), R"({"lower":["The selected lower is invalid."],)"
                        R"("other":["The selected other is invalid."],)"
                        R"("spaced":["The selected spaced is invalid."]})");
}

TEST(BodyReaderTest, MissingOneOfFieldSaysRequiredOnly) {
  Body b(R"({"role":null})");
  auto in = b.reader();
  EXPECT_FALSE(in.str("role", {.required = true, .one_of = {"ADMIN", "MEMBER"}}).has_value());
  EXPECT_EQ(b.errors(), R"({"role":["The role field is required."]})");
}

// --- integers ----------------------------------------------------------------

TEST(BodyReaderTest, IntegerValuesAndBounds) {
  Body b(R"({"a":7,"b":-3,"c":0,"low":-1,"high":101,"big":9007199254740991,"neg0":-0,"e":1e3})");
  auto in = b.reader();
  EXPECT_EQ(in.integer("a", {.required = true}).value, 7);
  EXPECT_EQ(in.integer("b", {}).value, -3);
  EXPECT_EQ(in.integer("c", {.min = 0}).value, 0);
  EXPECT_FALSE(in.integer("low", {.min = 0}).has_value());
  EXPECT_FALSE(in.integer("high", {.min = 1, .max = 100}).has_value());
  EXPECT_EQ(in.integer("big", {}).value, 9007199254740991);
  EXPECT_EQ(in.integer("neg0", {}).value, 0);
  // 1e3 is a whole number, so an integer.
  EXPECT_EQ(in.integer("e", {}).value, 1000);
  EXPECT_EQ(b.errors(), R"({"low":["The low field must be at least 0."],)"
                        R"("high":["The high field must not be greater than 100."]})");
}

TEST(BodyReaderTest, NonIntegersAreRefused) {
  Body b(R"({"frac":1.5,"tiny":0.0001,"str":"5","bool":true,"obj":{},"arr":[1],)"
         R"("huge":1e19,"int64max":9223372036854775807,"neghuge":-1e30})");
  auto in = b.reader();
  for (const char* k :
       {"frac", "tiny", "str", "bool", "obj", "arr", "huge", "int64max", "neghuge"}) {
    auto f = in.integer(k, {.required = true});
    EXPECT_FALSE(f.has_value()) << k;
    EXPECT_FALSE(f.present) << k;
  }
  // Whole numbers a double cannot hold exactly (9223372036854775807 rounds
  // to 2^63) are out of range rather than silently changed.
  EXPECT_EQ(b.errors(),
            R"({"frac":["The frac field must be an integer."],)"
            R"("tiny":["The tiny field must be an integer."],)"
            R"("str":["The str field must be an integer."],)"
            R"("bool":["The bool field must be an integer."],)"
            R"("obj":["The obj field must be an integer."],)"
            R"("arr":["The arr field must be an integer."],)"
            R"("huge":["The huge field must not be greater than 9007199254740991."],)"
            R"("int64max":["The int64max field must not be greater than 9007199254740991."],)"
            R"("neghuge":["The neghuge field must be at least -9007199254740991."]})");
}

// Past 2^53 a double skips integers: 9007199254740993 would arrive as ...992,
// another id. Bounds past 2^53 - 1 are held to it; tighter rules still apply.
TEST(BodyReaderTest, IntegersPastTwoToThe53AreOutOfRange) {
  Body b(R"({"max":9007199254740991,"min":-9007199254740991,"p53":9007199254740992,)"
         R"("p53plus1":9007199254740993,"m53":-9007199254740992,"small":9007199254740993})");
  auto in = b.reader();
  EXPECT_EQ(in.integer("max", {}).value, 9007199254740991);
  EXPECT_EQ(in.integer("min", {}).value, -9007199254740991);
  EXPECT_FALSE(in.integer("p53", {.min = 1}).present);
  EXPECT_FALSE(in.integer("p53plus1", {}).present);
  EXPECT_FALSE(in.integer("m53", {}).present);
  EXPECT_FALSE(in.integer("small", {.max = 100}).present);
  EXPECT_EQ(b.errors(),
            R"({"p53":["The p53 field must not be greater than 9007199254740991."],)"
            R"("p53plus1":["The p53plus1 field must not be greater than 9007199254740991."],)"
            R"("m53":["The m53 field must be at least -9007199254740991."],)"
            R"("small":["The small field must not be greater than 100."]})");
}

TEST(BodyReaderTest, IntegerAbsentNullAndRequired) {
  Body b(R"({"n":null,"m":null})");
  auto in = b.reader();
  auto absent = in.integer("absent", {});
  auto n = in.integer("n", {.nullable = true});
  auto m = in.integer("m", {});
  auto req = in.integer("req", {.required = true});
  EXPECT_FALSE(absent.present);
  EXPECT_TRUE(n.present);
  EXPECT_TRUE(n.null);
  EXPECT_TRUE(m.null);
  EXPECT_FALSE(req.present);
  EXPECT_EQ(b.errors(), R"({"m":["The m field must not be null."],)"
                        R"("req":["The req field is required."]})");
}

// --- numbers -------------------------------------------------------------------

TEST(BodyReaderTest, NumberValuesAndBounds) {
  Body b(R"({"price":12.5,"zero":0,"int":3,"neg":-0.01,"big":100.51})");
  auto in = b.reader();
  EXPECT_DOUBLE_EQ(in.number("price", {.required = true, .min = 0}).value, 12.5);
  EXPECT_DOUBLE_EQ(in.number("zero", {.min = 0}).value, 0.0);
  EXPECT_DOUBLE_EQ(in.number("int", {}).value, 3.0);
  EXPECT_FALSE(in.number("neg", {.min = 0}).has_value());
  EXPECT_FALSE(in.number("big", {.max = 100.5}).has_value());
  EXPECT_EQ(b.errors(), R"({"neg":["The neg field must be at least 0."],)"
                        R"("big":["The big field must not be greater than 100.5."]})");
}

TEST(BodyReaderTest, NonNumbersAndInfinityAreRefused) {
  // 1e400 overflows a double to infinity when parsed.
  Body b(R"({"s":"12.5","t":true,"o":{},"inf":1e400,"ninf":-1e400})");
  auto in = b.reader();
  for (const char* k : {"s", "t", "o", "inf", "ninf"}) {
    EXPECT_FALSE(in.number(k, {.required = true}).has_value()) << k;
  }
  EXPECT_EQ(b.errors(),
            R"({"s":["The s field must be a number."],"t":["The t field must be a number."],)"
            R"("o":["The o field must be a number."],)"
            R"("inf":["The inf field must be a number."],)"
            R"("ninf":["The ninf field must be a number."]})");
}

TEST(BodyReaderTest, NumberRequiredAndNull) {
  Body b(R"({"p":null})");
  auto in = b.reader();
  EXPECT_FALSE(in.number("p", {.required = true}).has_value());
  EXPECT_FALSE(in.number("q", {.required = true}).has_value());
  auto r = in.number("p", {.nullable = true});
  EXPECT_TRUE(r.present && r.null);
  EXPECT_EQ(b.errors(), R"({"p":["The p field is required."],"q":["The q field is required."]})");
}

// --- booleans, objects, arrays ----------------------------------------------------

TEST(BodyReaderTest, Booleans) {
  Body b(R"({"t":true,"f":false,"one":1,"s":"true","n":null})");
  auto in = b.reader();
  auto t = in.boolean("t", {.required = true});
  auto f = in.boolean("f", {.required = true});
  EXPECT_TRUE(t.has_value() && t.value);
  EXPECT_TRUE(f.has_value());
  EXPECT_FALSE(f.value);
  EXPECT_FALSE(in.boolean("one", {}).has_value());
  EXPECT_FALSE(in.boolean("s", {}).has_value());
  EXPECT_FALSE(in.boolean("n", {}).has_value());
  EXPECT_FALSE(in.boolean("missing", {.required = true}).has_value());
  EXPECT_FALSE(in.boolean("absent", {}).present);
  EXPECT_EQ(b.errors(), R"({"one":["The one field must be true or false."],)"
                        R"("s":["The s field must be true or false."],)"
                        R"("n":["The n field must not be null."],)"
                        R"("missing":["The missing field is required."]})");
}

TEST(BodyReaderTest, ObjectsAndArrays) {
  Body b(R"({"o":{"k":1},"a":[1,2],"os":"x","as":{},"on":null,"an":null})");
  auto in = b.reader();
  auto o = in.object("o", {.required = true});
  auto a = in.array("a", {.required = true});
  ASSERT_TRUE(o.has_value());
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(json_dump(o.value), R"({"k":1})");
  EXPECT_EQ(cJSON_GetArraySize(a.value), 2);
  EXPECT_FALSE(in.object("os", {}).has_value());
  EXPECT_FALSE(in.array("as", {}).has_value());
  EXPECT_FALSE(in.object("a", {}).has_value());  // an array is not an object
  auto on = in.object("on", {.nullable = true});
  EXPECT_TRUE(on.present && on.null);
  EXPECT_FALSE(in.array("an", {}).has_value());
  EXPECT_FALSE(in.object("mo", {.required = true}).has_value());
  EXPECT_FALSE(in.array("ma", {.required = true}).has_value());
  EXPECT_EQ(b.errors(), R"({"os":["The os field must be an object."],)"
                        R"("as":["The as field must be an array."],)"
                        R"("a":["The a field must be an object."],)"
                        R"("an":["The an field must not be null."],)"
                        R"("mo":["The mo field is required."],)"
                        R"("ma":["The ma field is required."]})");
}

// --- collecting errors ----------------------------------------------------------------

TEST(BodyReaderTest, EveryFailingFieldIsCollectedInCheckOrder) {
  Body b(R"({"title":"","type":"nope","priority":1.5,"is_public":"yes","price":-1})");
  auto in = b.reader();
  in.str("title", {.required = true, .max = 255});
  in.str("type", {.required = true, .one_of = {"info", "warning"}});
  in.integer("priority", {.min = 0, .max = 1});
  in.boolean("is_public", {});
  in.number("price", {.required = true, .min = 0});
  in.str("status", {.required = true});
  EXPECT_EQ(b.errors(), R"({"title":["The title field is required."],)"
                        R"("type":["The selected type is invalid."],)"
                        R"("priority":["The priority field must be an integer."],)"
                        R"("is_public":["The is_public field must be true or false."],)"
                        R"("price":["The price field must be at least 0."],)"
                        R"("status":["The status field is required."]})");
}

TEST(BodyReaderTest, PrefixGoesIntoKeysAndMessages) {
  Body b(R"({"qty":0,"size":5})");
  auto in = b.reader("order_items.0.");
  in.integer("product_id", {.required = true});
  in.integer("qty", {.required = true, .min = 1});
  in.str("size", {});
  in.fail("product_id", "The selected order_items.0.product_id is invalid.");
  EXPECT_EQ(in.key("qty"), "order_items.0.qty");
  EXPECT_TRUE(in.present("qty"));
  EXPECT_FALSE(in.present("product_id"));
  EXPECT_EQ(b.errors(),
            R"({"order_items.0.product_id":["The order_items.0.product_id field is required.",)"
            R"("The selected order_items.0.product_id is invalid."],)"
            R"("order_items.0.qty":["The order_items.0.qty field must be at least 1."],)"
            R"("order_items.0.size":["The order_items.0.size field must be a string."]})");
}

TEST(BodyReaderTest, PresentCountsNullAsSent) {
  Body b(R"({"a":null})");
  auto in = b.reader();
  EXPECT_TRUE(in.present("a"));
  EXPECT_FALSE(in.present("b"));
}

TEST(BodyReaderTest, KeysAreCaseSensitive) {
  Body b(R"({"Name":"x"})");
  auto in = b.reader();
  EXPECT_FALSE(in.str("name", {.required = true}).has_value());
  EXPECT_EQ(b.errors(), R"({"name":["The name field is required."]})");
}

// --- FieldErrors and error bodies ---------------------------------------------------------

TEST(FieldErrorsTest, KeepsFirstInsertionOrderAndEveryMessage) {
  FieldErrors e;
  EXPECT_TRUE(e.empty());
  e.add("z", "first z");
  e.add("a", "first a");
  e.add("z", "second z");
  EXPECT_FALSE(e.empty());
  EXPECT_TRUE(e.has("z"));
  EXPECT_FALSE(e.has("b"));
  EXPECT_EQ(json_dump(e.to_json().get()), R"({"z":["first z","second z"],"a":["first a"]})");
}

TEST(FieldErrorsTest, EmptyIsAnEmptyObject) {
  FieldErrors e;
  EXPECT_EQ(json_dump(e.to_json().get()), "{}");
}

// --- parse_json_object ------------------------------------------------------------------------

Request with_body(std::string body) {
  Request r;
  r.method = "POST";
  r.body = std::move(body);
  return r;
}

TEST(ParseJsonObjectTest, AcceptsAnObject) {
  auto r = parse_json_object(with_body(" {\"a\": 1}\n"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(json_dump(r.value().get()), R"({"a":1})");
}

TEST(ParseJsonObjectTest, RefusesAnythingElseWith400) {
  for (const char* body : {"", " ", "[]", "[{}]", "\"s\"", "1", "null", "true", "{", "{\"a\":}",
                           "{} {}", "{}x", "{'a':1}", "{\"a\":1,}"}) {
    auto r = parse_json_object(with_body(body));
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).status, 400) << body;
    EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).body,
              R"({"error":"Request body must be a JSON object"})")
        << body;
  }
}

TEST(ParseJsonObjectTest, RefusesInvalidUtf8With400) {
  auto r = parse_json_object(with_body("{\"name\":\"\xC3\x28\"}"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).status, 400);
  EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).body,
            R"({"error":"Request body is not valid UTF-8"})");
}

TEST(ParseJsonObjectTest, RefusesNulEscapesThatWouldTruncateStrings) {
  const std::string refused =
      R"j({"error":"Request body must not contain NUL characters (\\u0000)"})j";
  for (const char* body : {R"({"name":"ab\u0000cd"})", R"({"a\u0000":1})",
                           R"({"s":{"t":["\u0000"]}})", R"({"x":"\\\u0000"})"}) {
    auto r = parse_json_object(with_body(body));
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).status, 400) << body;
    EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).body, refused) << body;
  }
  // An escaped backslash followed by the text "u0000" is not a NUL.
  for (const char* body : {R"({"x":"\\u0000"})", R"({"x":"\u0001 \\ u0000"})"}) {
    auto r = parse_json_object(with_body(body));
    EXPECT_TRUE(r.ok()) << body;
  }
}

// Issue 27: cJSON takes raw control characters inside strings (RFC 8259 §7
// requires them escaped) and skips any of them between tokens as white
// space; they are refused like any other invalid JSON.
TEST(ParseJsonObjectTest, RefusesRawControlCharactersWith400) {
  const std::string refused =
      R"({"error":"Request body is not valid JSON: control characters (U+0000-U+001F) must be escaped"})";
  for (char c = 1; c < 0x20; ++c) {
    const std::string in_string[] = {std::string("{\"name\":\"a") + c + "b\"}",
                                     std::string("{\"k") + c + "\":1}"};
    const std::string between_tokens[] = {std::string("{") + c + "}",
                                          std::string("{\"a\":[1,") + c + "2]}"};
    for (const std::string& body : in_string) {
      auto r = parse_json_object(with_body(body));
      ASSERT_FALSE(r.ok()) << static_cast<int>(c) << " " << body;
      EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).status, 400);
      EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).body, refused)
          << static_cast<int>(c) << " " << body;
    }
    for (const std::string& body : between_tokens) {
      auto r = parse_json_object(with_body(body));
      // Tab, LF and CR are white space there.
      if (c == '\t' || c == '\n' || c == '\r') {
        EXPECT_TRUE(r.ok()) << static_cast<int>(c) << " " << body;
      } else {
        ASSERT_FALSE(r.ok()) << static_cast<int>(c) << " " << body;
        EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).body, refused)
            << static_cast<int>(c) << " " << body;
      }
    }
  }
  // A raw NUL keeps its own message; escaped control characters and DEL are fine.
  auto nul = parse_json_object(with_body(std::string("{\"a\":\"x\0y\"}", 11)));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(render(nul.error(), ErrorStyle::kPlain).body,
            R"j({"error":"Request body must not contain NUL characters (\\u0000)"})j");
  auto escaped = parse_json_object(with_body(R"({"a":"\u0001\t\n\u001f\"\\","b":""})"));
  ASSERT_TRUE(escaped.ok());
  EXPECT_EQ(json_get_str(escaped.value().get(), "a").value_or(""), "\x01\t\n\x1f\"\\");
}

// Found by tests/fuzz/body_fuzz.cc: cJSON reads an escape "\u" without four
// hex digits as U+0000 ("ab\uZZZZcd" was stored as "ab"), and hands
// numbers to strtod, which takes "01", "1." and "-.5". None is JSON.
TEST(ParseJsonObjectTest, RefusesEscapesAndNumbersCjsonTakesButJsonDoesNot) {
  const std::vector<std::string> bodies = {
      R"({"name":"ab\uZZZZcd"})",
      R"({"name":"\u12xy"})",
      R"({"name":"\u00e g"})",
      R"({"\u]0e9":1})",
      R"({"a":01})",
      R"({"a":-01})",
      R"({"a":1.})",
      R"({"a":-.5})",
      R"({"a":1.e5})",
      R"({"a":[1,2.]})",
      // The fuzzer's input: a raw NUL hidden inside a bad \u escape.
      std::string("{\"d\":\"\\u]0e9\\u\\\0@d8ude00\"}", 26),
  };
  for (const std::string& body : bodies) {
    EXPECT_TRUE(json_parse(body) != nullptr) << "cJSON refuses it already: " << body;
    auto r = parse_json_object(with_body(body));
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).status, 400) << body;
    EXPECT_EQ(render(r.error(), ErrorStyle::kPlain).body,
              R"({"error":"Request body must be a JSON object"})")
        << body;
  }
  for (const char* body : {R"({"a":-0,"b":0.5e-3,"c":1E+2,"d":10,"e":-1.25E-2})",
                           R"({"s":"\u00e9\u00C9\/\b\f\n\r\t\"\\"})"}) {
    EXPECT_TRUE(parse_json_object(with_body(body)).ok()) << body;
  }
}

// Issue 27: 1e-400 converts to 0 (and 1e-320 to a subnormal with digits
// lost): a nonzero literal below the smallest normal double is out of range,
// refused like 1e400, wherever it is.
TEST(ParseJsonObjectTest, NumbersBelowADoublesRangeAreRefusedLikeInfinity) {
  auto r = parse_json_object(
      with_body(R"({"tiny":1e-400,"neg":-1E-400,"sub":4.9e-324,"sub2":1e-310,"long":0.)" +
                std::string(320, '0') +
                R"(1,"deep":{"a":[1,{"b":2e-999}]},)"
                R"("zero":0e-999,"nzero":-0.000e-500,"least":2.2250738585072014e-308,)"
                R"("small":1e-300,"plain":0.5,"big":1e400,"s":"1e-400"})"));
  ASSERT_TRUE(r.ok());
  const cJSON* body = r.value().get();
  FieldErrors errs;
  BodyReader in(body, errs);
  for (const char* k : {"tiny", "neg", "sub", "sub2", "long", "big"}) {
    EXPECT_FALSE(in.number(k, {}).has_value()) << k;
  }
  EXPECT_FALSE(json_numbers_finite(json_get(body, "deep")));
  EXPECT_FALSE(in.integer("tiny", {}).has_value());
  EXPECT_EQ(in.number("zero", {}).value, 0.0);
  EXPECT_EQ(in.number("nzero", {}).value, 0.0);
  EXPECT_EQ(in.number("least", {}).value, 2.2250738585072014e-308);
  EXPECT_EQ(in.number("small", {}).value, 1e-300);
  EXPECT_EQ(in.number("plain", {}).value, 0.5);
  EXPECT_EQ(json_get_str(body, "s").value_or(""), "1e-400");
  EXPECT_EQ(
      json_dump(errs.to_json().get()),
      R"({"tiny":["The tiny field must be a number.","The tiny field must be an integer."],)"
      R"("neg":["The neg field must be a number."],"sub":["The sub field must be a number."],)"
      R"("sub2":["The sub2 field must be a number."],)"
      R"("long":["The long field must be a number."],"big":["The big field must be a number."]})");
}

// --- pagination -------------------------------------------------------------------------------

Request with_query(std::string query) {
  Request r;
  r.method = "GET";
  r.query = std::move(query);
  return r;
}

TEST(PageParamsTest, Defaults) {
  auto p = read_page_params(with_query(""), 15);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->page, 1);
  EXPECT_EQ(p->per_page, 15);
  EXPECT_EQ(p->offset(), 0);
  auto a = read_page_params(with_query("other=1"), 20);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->per_page, 20);
}

TEST(PageParamsTest, ExplicitValuesAndOffset) {
  auto p = read_page_params(with_query("page=3&per_page=10"), 15);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->page, 3);
  EXPECT_EQ(p->per_page, 10);
  EXPECT_EQ(p->offset(), 20);
  auto enc = read_page_params(with_query("p%61ge=%32"), 15);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->page, 2);
}

TEST(PageParamsTest, PerPageIsClampedTo100) {
  auto p = read_page_params(with_query("per_page=101"), 15);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->per_page, 100);
  auto q = read_page_params(with_query("per_page=100000"), 15);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->per_page, 100);
  auto r = read_page_params(with_query("per_page=100"), 15);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->per_page, 100);
}

TEST(PageParamsTest, HugePageIsAnEmptyPageNotAnOverflow) {
  auto p = read_page_params(with_query("page=999999999999&per_page=100"), 15);
  ASSERT_TRUE(p.ok());
  EXPECT_GT(p->offset(), 0);
}

// Past int64 too: read as the largest page and per_page, not refused.
TEST(PageParamsTest, ValuesOfAnyLengthAreClampedNotRefused) {
  auto p = read_page_params(with_query("page=99999999999999999999999999999&per_page="
                                       "1000000000000000000000"),
                            15);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->page, 1'000'000'000);
  EXPECT_EQ(p->per_page, 100);
  auto zeros = read_page_params(with_query("page=0000000000000000000000000"), 15);
  EXPECT_FALSE(zeros.ok());
  auto padded = read_page_params(with_query("page=0000000000000000000000007"), 15);
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ(padded->page, 7);
}

TEST(PageParamsTest, InvalidValuesAre422PlainShape) {
  for (const char* v : {"0", "-1", "abc", "", "1.5", "+1", " 1", "1e2", "0x10"}) {
    auto p = read_page_params(with_query(std::string("page=") + v), 15);
    ASSERT_FALSE(p.ok()) << v;
    EXPECT_EQ(render(p.error(), ErrorStyle::kPlain).status, 422) << v;
    EXPECT_EQ(render(p.error(), ErrorStyle::kPlain).body,
              R"({"message":"The given data was invalid.","errors":{"page":)"
              R"(["The page field must be an integer of at least 1."]}})")
        << v;
  }
}

TEST(PageParamsTest, BothInvalidAre422SuccessShape) {
  auto p = read_page_params(with_query("page=0&per_page=abc"), 20);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(render(p.error(), ErrorStyle::kSuccess).status, 422);
  EXPECT_EQ(render(p.error(), ErrorStyle::kSuccess).body,
            R"({"success":false,"errors":{"page":["The page field must be an integer of at )"
            R"(least 1."],"per_page":["The per_page field must be an integer of at least 1."]}})");
}

TEST(PaginatedTest, ShapeAndLastPage) {
  EXPECT_EQ(json_dump(paginated(json_array(), PageParams{1, 15}, 0).get()),
            R"({"data":[],"current_page":1,"last_page":1,"per_page":15,"total":0})");
  EXPECT_EQ(json_get_int(paginated(json_array(), PageParams{1, 15}, 30).get(), "last_page"), 2);
  EXPECT_EQ(json_get_int(paginated(json_array(), PageParams{1, 15}, 31).get(), "last_page"), 3);
  EXPECT_EQ(json_get_int(paginated(json_array(), PageParams{1, 15}, 1).get(), "last_page"), 1);
  Json rows = json_array();
  json_append(rows.get(), json_object());
  EXPECT_EQ(json_dump(paginated(std::move(rows), PageParams{4, 1}, 7).get()),
            R"({"data":[{}],"current_page":4,"last_page":7,"per_page":1,"total":7})");
}

TEST(MoneyTest, AtMostTwoDecimalsHoweverTheDoubleRounds) {
  for (double v : {0.0, 0.01, 4.35, 4.5, 19.99, 1005.0, 9999999999.99, 1e9 + 0.01}) {
    EXPECT_TRUE(has_at_most_two_decimals(v)) << v;
  }
  for (double v : {1.005, 0.001, 4.500000000001, 0.00000000001, 9999999999.991}) {
    EXPECT_FALSE(has_at_most_two_decimals(v)) << v;
  }
}
// --- email_plausible -------------------------------------------------------------

TEST(EmailPlausibleTest, AnAtWithTextOnBothSides) {
  for (const char* ok : {"a@b", "user.name+tag@example.com", "ü@bücher.de", "x@y@z",
                         "\"quoted\"@example.com", "o'neil@example.org"}) {
    EXPECT_TRUE(email_plausible(ok)) << ok;
  }
  for (const char* bad : {"", "@", "nope", "@example.com", "user@", "user@@"}) {
    EXPECT_FALSE(email_plausible(bad)) << bad;
  }
}

TEST(EmailPlausibleTest, NoControlCharactersOrWhiteSpaceOfAnyKind) {
  const std::vector<std::string> bad{
      "a b@x.local",        "a\tb@x.local",    "ab@x.local\n",    std::string("a\0b@x.local", 10),
      "a\x01@x.local",      "a\x0b@x.local",   "a\x7f@x.local",   "a\u0085@x.local",
      "nb\u00a0sp@x.local", "a\u1680@x.local", "a\u2003@x.local", "zw\u200b@x.local",
      "a\u2028@x.local",    "a@x\u202f.local", "a\u3000@x.local", "\ufeffa@x.local"};
  for (const std::string& e : bad) EXPECT_FALSE(email_plausible(e)) << e;
  // Not UTF-8 at all.
  EXPECT_FALSE(email_plausible("a\xff@x.local"));
  EXPECT_FALSE(email_plausible("a\xc3@x.local"));
  // Neighbours of the refused code points are letters like any other.
  for (const char* ok :
       {"a\u00a1@x.local", "a\u200c@x.local", "a\u2030@x.local", "a\U0001F600@x.local"}) {
    EXPECT_TRUE(email_plausible(ok)) << ok;
  }
}

}  // namespace
}  // namespace ca
