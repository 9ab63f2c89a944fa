// libFuzzer target: the request body reader and validator.
//
// The input is a request body. parse_json_object() must refuse it with 400
// {error} or accept a JSON object; an accepted body is then read field by
// field with every BodyReader rule (as the handlers read theirs), nested
// objects and arrays of objects too, and the validation errors rendered.
// Properties checked besides the sanitizers: an accepted body is valid UTF-8
// without raw control characters, prints back to JSON that parses again to
// the same text, and holds no number the parser could not represent.
#include <cjson/cJSON.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "error.h"
#include "fuzz_check.h"
#include "json.h"
#include "validate.h"

namespace {

void read_fields(const cJSON* object, ca::FieldErrors& errs, const std::string& prefix, int depth);

void read_member(ca::BodyReader& r, const cJSON* m, ca::FieldErrors& errs,
                 const std::string& prefix, int depth) {
  const char* name = m->string;
  (void)r.str(name, {.required = true, .trim = true, .min = 1, .max = 255});
  (void)r.str(name, {.nullable = true, .max = 10, .one_of = {"draft", "published"}});
  (void)r.integer(name, {.required = true, .min = 1});
  (void)r.integer(name, {.nullable = true, .min = -5, .max = 100});
  ca::Field<double> num = r.number(name, {.required = true, .min = 0, .max = 1e10});
  if (num.has_value()) {
    FUZZ_CHECK(std::isfinite(num.value) && num.value >= 0 && num.value <= 1e10);
    (void)ca::has_at_most_two_decimals(num.value);
  }
  (void)r.boolean(name, {.nullable = true});
  ca::Field<const cJSON*> obj = r.object(name, {.required = true});
  if (obj.has_value() && depth < 8) read_fields(obj.value, errs, prefix + name + ".", depth + 1);
  ca::Field<const cJSON*> arr = r.array(name, {.nullable = true});
  if (arr.has_value() && depth < 8) {
    int i = 0;
    for (const cJSON* item = arr.value->child; item != nullptr && i < 16; item = item->next, ++i) {
      if (cJSON_IsObject(item)) {
        read_fields(item, errs, prefix + name + "." + std::to_string(i) + ".", depth + 1);
      }
    }
  }
}

void read_fields(const cJSON* object, ca::FieldErrors& errs, const std::string& prefix, int depth) {
  ca::BodyReader r(object, errs, prefix);
  int n = 0;
  for (const cJSON* m = object->child; m != nullptr && n < 64; m = m->next, ++n) {
    read_member(r, m, errs, prefix, depth);
  }
  (void)r.present("name");
  (void)r.str("absent", {.required = true});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ca::Request req;
  req.body.assign(reinterpret_cast<const char*>(data), size);
  ca::Result<ca::Json> parsed = ca::parse_json_object(req);
  if (!parsed.ok()) {
    FUZZ_CHECK(parsed.error().kind == ca::ErrorKind::kBadRequest);
    return 0;
  }
  const cJSON* body = parsed.value().get();
  FUZZ_CHECK(cJSON_IsObject(body));
  FUZZ_CHECK(ca::utf8_valid(req.body));
  for (unsigned char c : req.body) FUZZ_CHECK(c >= 0x20 || c == '\t' || c == '\n' || c == '\r');
  FUZZ_CHECK(!ca::json_duplicate_key(body));

  // What is stored is the tree printed back: it must be JSON again, and
  // print the same way a second time.
  std::string printed = ca::json_dump(body);
  ca::Json again = ca::json_parse(printed);
  FUZZ_CHECK(again != nullptr);
  FUZZ_CHECK(ca::json_dump(again.get()) == printed);

  ca::FieldErrors errs;
  read_fields(body, errs, "", 0);
  ca::Response invalid = ca::render(ca::Error::invalid(errs), ca::ErrorStyle::kSuccess);
  FUZZ_CHECK(invalid.status == 422);
  FUZZ_CHECK(ca::json_parse(invalid.body) != nullptr);
  (void)ca::json_numbers_finite(body);
  return 0;
}
