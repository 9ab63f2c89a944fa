// Every writable field of every endpoint at its maximum (accepted) and one
// past it (422 naming exactly that field, nothing written), from one table
// (issue 42; docs/security.md, "Resource limits"). Then the bounds the
// maxima exist for: the largest announcement.published body and the largest
// pages of announcements (docs/security.md, "Largest answers").
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "receiver.h"
#include "stack.h"

namespace ca::test {
namespace {

// What the rows' requests need, made once per test.
struct Fixture {
  Scope s;
  int64_t user = 0;  // the scope's admin
  int64_t product = 0;
  int64_t category = 0;
  int64_t announcement = 0;  // a draft
  int64_t address = 0;
  TestUser longest;  // an account with the longest email and password
};

enum class Shape { kPlain, kSuccess };  // 422 {message, errors} or {success: false, errors}

struct FieldLimit {
  const char* method;
  std::string path;    // {tenant}, {product}, {category}, {announcement} filled in
  bool tenant_header;  // sends X-Tenant-ID
  std::string field;   // the error key
  // The body with `value` (JSON text) in the field.
  std::function<std::string(const Fixture&, const std::string& value)> body;
  std::string at_max;  // JSON text
  std::string past_max;
  Shape shape;
  std::string message;
  // The rows that must not change on a 422 (and do change when accepted):
  // a table and its condition ({tenant}, {user}, {login_user} filled in).
  std::string table;
  std::string where;
};

std::string str_of(const std::string& unit, int n) { return json_text(repeat(unit, n)); }

std::string fill(std::string text, const Fixture& f) {
  const std::pair<const char*, int64_t> names[] = {
      {"{tenant}", f.s.tenant},           {"{product}", f.product}, {"{category}", f.category},
      {"{announcement}", f.announcement}, {"{address}", f.address}, {"{user}", f.user},
      {"{login_user}", f.longest.id}};
  for (const auto& [name, value] : names) {
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name)) {
      text.replace(at, std::string(name).size(), to_string(value));
    }
  }
  return text;
}

// A body template with `@` where the value goes.
std::function<std::string(const Fixture&, const std::string&)> with(std::string tmpl) {
  return [tmpl](const Fixture& f, const std::string& value) {
    std::string out = fill(tmpl, f);
    out.replace(out.find('@'), 1, value);
    return out;
  };
}

// A fresh invitation to the scope's tenant and the accept body for it.
std::function<std::string(const Fixture&, const std::string&)> accept_with(std::string tmpl) {
  return [tmpl](const Fixture& f, const std::string& value) {
    TestInvitation inv = invite_user(f.s.token, f.s.tenant, unique("accept") + "@example.com");
    std::string out = R"({"token":)" + json_text(inv.token) + "," + tmpl + "}";
    out.replace(out.find('@'), 1, value);
    return out;
  };
}

// `n` order items of the fixture's product.
std::string items(const Fixture& f, int n) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    out += (i ? "," : "") + std::string(R"({"product_id":)") + to_string(f.product) +
           R"(,"qty":1,"amount":0})";
  }
  return out + "]";
}

std::string order_with_item(const std::string& item_field) {
  return R"({"address_id":{address},"payment_type":1,"total_amount":0,"order_items":[)"
         R"({"product_id":{product},"qty":1,"amount":0,)" +
         item_field + R"(:@}]})";
}

// {"k":"aaa..."}: `bytes` bytes of compact JSON.
std::string object_of_size(size_t bytes) {
  return R"({"k":)" + json_text(std::string(bytes - 8, 'a')) + "}";
}

// {"n":[1e300 x 54],"s":"..."}: 16,322 + `pad` bytes as PostgreSQL keeps it.
std::string stored_object(int pad) {
  return R"({"n":[)" + repeat("1e300,", 53) + R"(1e300],"s":)" + json_text(std::string(pad, 's')) +
         "}";
}

// `n` ids, all the user's own (a `users` target must list members).
std::string id_list(int64_t id, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? "," : "") + to_string(id);
  return json_text(out);
}

std::string chars_max(const std::string& field, size_t n) {
  return "The " + field + " field must not be greater than " + std::to_string(n) + " characters.";
}

const std::string kAnnouncementBase = R"("title":"T","type":"info","status":"draft")";

std::vector<FieldLimit> field_limits() {
  const std::string ann = "/api/v2/admin/announcements";
  const std::string products = "/api/v2/admin/products";
  const std::string sets_name = R"({"name":"N","description":@})";
  std::vector<FieldLimit> rows = {
      // Login: nothing stored, but both fields bounded.
      {"POST", "/api/v2/admin/login", false, "email",
       [](const Fixture& f, const std::string& v) {
         return R"({"email":)" + (v.empty() ? json_text(f.longest.email) : v) + R"(,"password":)" +
                json_text(f.longest.password) + "}";
       },
       "", json_text("a" + repeat("b", 242) + "@example.com"), Shape::kPlain,
       chars_max("email", 254), "sessions", "user_id = {login_user}"},
      {"POST", "/api/v2/admin/login", false, "password",
       [](const Fixture& f, const std::string& v) {
         return R"({"email":)" + json_text(f.longest.email) + R"(,"password":)" +
                (v.empty() ? json_text(f.longest.password) : v) + "}";
       },
       "", str_of("p", 1025), Shape::kPlain, chars_max("password", 1024), "sessions",
       "user_id = {login_user}"},
      // Tenants.
      {"POST", "/api/v2/admin/tenants", false, "name", with(R"({"name":@})"), str_of("n", 255),
       str_of("n", 256), Shape::kPlain, chars_max("name", 255), "memberships", "user_id = {user}"},
      {"POST", "/api/v2/admin/tenants/{tenant}", false, "name", with(R"({"name":@})"),
       str_of("n", 255), str_of("n", 256), Shape::kPlain, chars_max("name", 255), "tenants",
       "id = {tenant}"},
      {"POST", "/api/v2/admin/tenants/{tenant}", false, "settings", with(R"({"settings":@})"),
       object_of_size(16384), object_of_size(16385), Shape::kPlain,
       "The settings field must not be larger than 16384 bytes.", "tenants", "id = {tenant}"},
      // Team members: invitations and their acceptance.
      {"POST", "/api/v2/admin/team-members/{tenant}", false, "email",
       with(R"({"email":@,"role":"MEMBER"})"), json_text(repeat("i", 242) + "@example.com"),
       json_text(repeat("i", 243) + "@example.com"), Shape::kPlain, chars_max("email", 254),
       "invitations", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/invitations/accept", false, "name",
       accept_with(R"("name":@,"password":"password-1")"), str_of("n", 255), str_of("n", 256),
       Shape::kPlain, chars_max("name", 255), "memberships", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/invitations/accept", false, "password",
       accept_with(R"("name":"N","password":@)"), str_of("p", 1024), str_of("p", 1025),
       Shape::kPlain, chars_max("password", 1024), "memberships", "tenant_id = {tenant}"},
      // Addresses.
      {"POST", "/api/v2/admin/addresses", false, "street",
       with(R"({"street":@,"city":"C","country":"DE","postal_code":"1"})"), str_of("s", 255),
       str_of("s", 256), Shape::kPlain, chars_max("street", 255), "addresses", "user_id = {user}"},
      {"POST", "/api/v2/admin/addresses", false, "city",
       with(R"({"street":"S","city":@,"country":"DE","postal_code":"1"})"), str_of("c", 255),
       str_of("c", 256), Shape::kPlain, chars_max("city", 255), "addresses", "user_id = {user}"},
      {"POST", "/api/v2/admin/addresses", false, "country",
       with(R"({"street":"S","city":"C","country":@,"postal_code":"1"})"), str_of("c", 100),
       str_of("c", 101), Shape::kPlain, chars_max("country", 100), "addresses", "user_id = {user}"},
      {"POST", "/api/v2/admin/addresses", false, "postal_code",
       with(R"({"street":"S","city":"C","country":"DE","postal_code":@})"), str_of("1", 20),
       str_of("1", 21), Shape::kPlain, chars_max("postal_code", 20), "addresses",
       "user_id = {user}"},
      // Categories.
      {"POST", "/api/v2/admin/category/create", true, "name",
       with(R"({"name":@,"description":"D"})"), str_of("n", 255), str_of("n", 256), Shape::kSuccess,
       chars_max("name", 255), "categories", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/category/create", true, "description", with(sets_name),
       str_of("d", 10000), str_of("d", 10001), Shape::kSuccess, chars_max("description", 10000),
       "categories", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/category/{category}", true, "name", with(R"({"name":@})"),
       str_of("m", 255), str_of("m", 256), Shape::kSuccess, chars_max("name", 255), "categories",
       "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/category/{category}", true, "description",
       with(R"({"description":@})"), str_of("e", 10000), str_of("e", 10001), Shape::kSuccess,
       chars_max("description", 10000), "categories", "tenant_id = {tenant}"},
      // Products.
      {"POST", products, true, "name", with(R"({"name":@,"price":1})"), str_of("n", 255),
       str_of("n", 256), Shape::kPlain, chars_max("name", 255), "products", "tenant_id = {tenant}"},
      {"POST", products, true, "description", with(R"({"name":"N","price":1,"description":@})"),
       str_of("d", 10000), str_of("d", 10001), Shape::kPlain, chars_max("description", 10000),
       "products", "tenant_id = {tenant}"},
      {"POST", products, true, "price", with(R"({"name":"N","price":@})"), "9999999999.99",
       "10000000000", Shape::kPlain, "The price field must not be greater than 9999999999.99.",
       "products", "tenant_id = {tenant}"},
      {"POST", products, true, "stock", with(R"({"name":"N","price":1,"stock":@})"), "2147483647",
       "2147483648", Shape::kPlain, "The stock field must not be greater than 2147483647.",
       "products", "tenant_id = {tenant}"},
      {"POST", products + "/{product}", true, "name", with(R"({"name":@})"), str_of("u", 255),
       str_of("u", 256), Shape::kPlain, chars_max("name", 255), "products", "tenant_id = {tenant}"},
      {"POST", products + "/{product}", true, "description", with(R"({"description":@})"),
       str_of("v", 10000), str_of("v", 10001), Shape::kPlain, chars_max("description", 10000),
       "products", "tenant_id = {tenant}"},
      // Orders.
      {"POST", "/api/v2/admin/orders", true, "order_items",
       [](const Fixture& f, const std::string& v) {
         int n = std::stoi(v);
         return R"({"address_id":)" + to_string(f.address) +
                R"(,"payment_type":1,"total_amount":0,"order_items":)" + items(f, n) + "}";
       },
       "500", "501", Shape::kSuccess, "The order_items field must not have more than 500 items.",
       "orders", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/orders", true, "order_items.0.size",
       with(order_with_item(R"("size")")), str_of("s", 100), str_of("s", 101), Shape::kSuccess,
       chars_max("order_items.0.size", 100), "orders", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/orders", true, "order_items.0.notes",
       with(order_with_item(R"("notes")")), str_of("n", 1000), str_of("n", 1001), Shape::kSuccess,
       chars_max("order_items.0.notes", 1000), "orders", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/orders", true, "payment_type",
       with(R"({"address_id":{address},"payment_type":@,"total_amount":0,"order_items":[)"
            R"({"product_id":{product},"qty":1,"amount":0}]})"),
       "2147483647", "2147483648", Shape::kSuccess,
       "The payment_type field must not be greater than 2147483647.", "orders",
       "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/orders", true, "total_amount",
       with(R"({"address_id":{address},"payment_type":1,"total_amount":@,"order_items":[)"
            R"({"product_id":{product},"qty":1,"amount":0}]})"),
       "9999999999.99", "10000000000", Shape::kSuccess,
       "The total_amount field must not be greater than 9999999999.99.", "orders",
       "tenant_id = {tenant}"},
      // Webhooks.
      {"POST", "/api/v2/admin/webhooks/{tenant}", false, "url",
       with(R"({"url":@,"events":["order.created"]})"),
       json_text("http://127.0.0.1:1024/" + repeat("u", 2048 - 22)),
       json_text("http://127.0.0.1:1024/" + repeat("u", 2049 - 22)), Shape::kPlain,
       chars_max("url", 2048), "webhooks", "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/webhooks/{tenant}", false, "events",
       with(R"({"url":"http://127.0.0.1:1024/e","events":@})"),
       R"(["*","user.registered","member.role_updated","member.removed","order.created",)"
       R"("order.status_changed","order.completed","order.cancelled","product.created",)"
       R"("product.updated","product.deleted","category.created","announcement.published"])",
       R"(["*","user.registered","member.role_updated","member.removed","order.created",)"
       R"("order.status_changed","order.completed","order.cancelled","product.created",)"
       R"("product.updated","product.deleted","category.created","announcement.published",)"
       R"("order.created"])",
       Shape::kPlain, "The events field must not have more than 13 items.", "webhooks",
       "tenant_id = {tenant}"},
      {"POST", "/api/v2/admin/webhooks/{tenant}", false, "description",
       with(R"({"url":"http://127.0.0.1:1024/d","events":["*"],"description":@})"),
       str_of("d", 500), str_of("d", 501), Shape::kPlain, chars_max("description", 500), "webhooks",
       "tenant_id = {tenant}"},
  };
  // Announcements: create and update take the same fields and limits.
  struct AnnouncementField {
    std::string field, extra, at_max, past_max, message;
  };
  const std::vector<AnnouncementField> announcement_fields = {
      {"title", "", str_of("t", 255), str_of("t", 256), chars_max("title", 255)},
      {"summary", "", str_of("s", 500), str_of("s", 501), chars_max("summary", 500)},
      {"content", "", str_of("c", 65536), str_of("c", 65537), chars_max("content", 65536)},
      // 2 bytes a character in UTF-8: 65,536 of them are 131,072 bytes.
      {"content", "", str_of("é", 65536), json_text(repeat("é", 65535) + "€"),
       "The content field must not be larger than 131072 bytes written as a JSON string."},
      // A control character is written \u0001: 6 bytes.
      {"content", "", json_text(repeat("\x01", 21845) + "ab"),
       json_text(repeat("\x01", 21845) + "abc"),
       "The content field must not be larger than 131072 bytes written as a JSON string."},
      {"topic", "", str_of("t", 100), str_of("t", 101), chars_max("topic", 100)},
      {"push_title", "", str_of("p", 100), str_of("p", 101), chars_max("push_title", 100)},
      {"push_body", "", str_of("b", 200), str_of("b", 201), chars_max("push_body", 200)},
      {"push_data", "", object_of_size(16384), object_of_size(16385),
       "The push_data field must not be larger than 16384 bytes."},
      // Counted as stored: 1e300 is 301 digits there, so 54 of them and a
      // string of 62 are 16,384 bytes.
      {"push_data", "", stored_object(62), stored_object(63),
       "The push_data field must not be larger than 16384 bytes."},
      {"target_value", R"("target_type":"topic",)", str_of("t", 100), str_of("t", 101),
       "The target_value field must not be greater than 100 characters when target_type is "
       "topic."},
      {"target_value", R"("target_type":"users",)", "", "",
       "The target_value field must not list more than 1000 user ids."},
      {"target_value", R"("target_type":"users",)", "", "", chars_max("target_value", 20000)},
      {"attachment_url", R"("attachment_type":"link",)",
       json_text("https://example.com/" + repeat("u", 2048 - 20)),
       json_text("https://example.com/" + repeat("u", 2049 - 20)),
       chars_max("attachment_url", 2048)},
      {"attachment_metadata", "", object_of_size(16384), object_of_size(16385),
       "The attachment_metadata field must not be larger than 16384 bytes."},
  };
  for (const AnnouncementField& a : announcement_fields) {
    for (bool create : {true, false}) {
      std::string base =
          a.field == "title" ? R"("type":"info","status":"draft")" : kAnnouncementBase;
      std::string tmpl = "{" + (create ? base + "," : "") + a.extra + json_text(a.field) + ":@}";
      FieldLimit row{"POST",
                     create ? ann : ann + "/{announcement}",
                     true,
                     a.field,
                     with(tmpl),
                     a.at_max,
                     a.past_max,
                     Shape::kSuccess,
                     a.message,
                     "announcements",
                     "tenant_id = {tenant}"};
      if (a.message.find("1000 user ids") != std::string::npos) {
        row.body = [tmpl](const Fixture& f, const std::string& v) {
          std::string out = fill(tmpl, f);
          out.replace(out.find('@'), 1, id_list(f.user, v == "past" ? 1001 : 1000));
          return out;
        };
        row.at_max = "at";
        row.past_max = "past";
      } else if (a.message.find("20000") != std::string::npos) {
        // One id and blanks around it, which the list allows.
        row.body = [tmpl](const Fixture& f, const std::string& v) {
          std::string id = to_string(f.user);
          std::string value = id + std::string((v == "past" ? 20001 : 20000) - id.size(), ' ');
          std::string out = fill(tmpl, f);
          out.replace(out.find('@'), 1, json_text(value));
          return out;
        };
        row.at_max = "at";
        row.past_max = "past";
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// The rows of `table` that match `where`, as one text.
std::string snapshot(const FieldLimit& row, const Fixture& f) {
  std::vector<std::string> out =
      sql("SELECT COALESCE(string_agg(md5(t::text), ',' ORDER BY md5(t::text)), '') FROM " +
          row.table + " t WHERE " + fill(row.where, f));
  return out.empty() ? "" : out[0];
}

Fixture make_fixture() {
  Fixture f;
  f.s = fresh_scope(login(admin_email(), admin_password()));
  f.user = token_user_id(f.s.token);
  HttpResponse r = http("POST", "/api/v2/admin/products",
                        f.s.call(R"({"name":"Item","price":1,"stock":1000000})"));
  EXPECT_EQ(r.status, 201) << r.body;
  f.product = r.integer("id");
  r = http("POST", "/api/v2/admin/category/create",
           f.s.call(R"({"name":"Limits","description":"D"})"));
  EXPECT_EQ(r.status, 201) << r.body;
  f.category = int_of(r["data"], "id");
  r = http("POST", "/api/v2/admin/announcements",
           f.s.call(R"({"title":"Draft","type":"info","status":"draft"})"));
  EXPECT_EQ(r.status, 201) << r.body;
  f.announcement = int_of(r["data"], "id");
  r = http("POST", "/api/v2/admin/addresses",
           {.token = f.s.token,
            .body = R"({"street":"S","city":"C","country":"DE","postal_code":"1"})"});
  EXPECT_EQ(r.status, 201) << r.body;
  f.address = r.integer("id");
  // The longest email (254) and password (1024) an account can have.
  f.longest.email = unique("l") + "@example.com";
  f.longest.email = repeat("l", 254 - static_cast<int>(f.longest.email.size())) + f.longest.email;
  f.longest.password = repeat("w", 1024);
  TestInvitation inv = invite_user(f.s.token, f.s.tenant, f.longest.email);
  r = accept_as_new_account(inv.token, "Longest", f.longest.password);
  EXPECT_EQ(r.status, 201) << r.body;
  f.longest.id = std::stoll(sql("SELECT id FROM users WHERE email = '" + f.longest.email + "'")[0]);
  return f;
}

TEST(FieldLimits, EveryWritableFieldAtItsMaximumIsAcceptedAndOnePastIt422NamingIt) {
  Fixture f = make_fixture();
  ASSERT_FALSE(HasFailure());
  for (const FieldLimit& row : field_limits()) {
    std::string path = fill(row.path, f);
    SCOPED_TRACE(std::string(row.method) + " " + path + " " + row.field);
    Call call{.token = f.s.token};
    if (row.tenant_header) call.tenant = f.s.tid();
    // Logging in and accepting as a new account take no bearer token.
    if (row.path == "/api/v2/admin/login" || row.path == "/api/v2/admin/invitations/accept") {
      call.token.clear();
    }

    std::string before = snapshot(row, f);
    call.body = row.body(f, row.past_max);
    HttpResponse past = http(row.method, path, call);
    std::string errors = R"({)" + json_text(row.field) + ":[" + json_text(row.message) + "]}";
    expect_body(past, 422,
                row.shape == Shape::kPlain
                    ? R"({"message":"The given data was invalid.","errors":)" + errors + "}"
                    : R"({"success":false,"errors":)" + errors + "}");
    EXPECT_EQ(snapshot(row, f), before) << "a refused request wrote";

    call.body = row.body(f, row.at_max);
    HttpResponse at = http(row.method, path, call);
    EXPECT_GE(at.status, 200) << at.body.substr(0, 2000);
    EXPECT_LE(at.status, 299) << at.body.substr(0, 2000);
    EXPECT_NE(snapshot(row, f), before) << "an accepted request wrote nothing";
  }
}

// The longest text of `n` characters as JSON renders it: \u0001, 6 bytes each.
std::string worst_text(int n) { return json_text(repeat("\x01", n)); }

// An object of at most 16,384 stored bytes that PostgreSQL prints largest
// (jsonb puts a space after every ',' and ':'): {"a":[0,0,...]}.
std::string worst_object() { return R"({"a":[)" + repeat("0,", 8187) + "0]}"; }

// The largest announcement the limits allow (but for the creator's name and
// email and a `users` target, which the tenant's members bound).
std::string largest_announcement(const std::string& status) {
  return R"({"title":)" + worst_text(255) + R"(,"summary":)" + worst_text(500) + R"(,"content":)" +
         json_text(repeat("\x01", 21845) + "ab") + R"(,"type":"warning")" +
         R"(,"priority":1,"status":)" + json_text(status) +
         R"(,"is_push_enabled":false,"is_public":true,"topic":)" + worst_text(100) +
         R"(,"push_title":)" + worst_text(100) + R"(,"push_body":)" + worst_text(200) +
         R"(,"push_data":)" + worst_object() + R"(,"target_type":"topic","target_value":)" +
         worst_text(100) + R"(,"attachment_type":"button","attachment_url":)" +
         json_text("https://example.com/" + repeat("\"", 2048 - 20)) +
         R"(,"attachment_metadata":)" + worst_object() + "}";
}

TEST(FieldLimits, LargestAnnouncementPublishedWebhookBodyIsAtMost256KiB) {
  Scope s = fresh_scope(login(admin_email(), admin_password()));
  Receiver receiver;
  HttpResponse hook = http("POST", "/api/v2/admin/webhooks/" + s.tid(),
                           {.token = s.token,
                            .body = R"({"url":)" + json_text(receiver.url()) +
                                    R"(,"events":["announcement.published"]})"});
  ASSERT_EQ(hook.status, 201) << hook.body;
  // One byte more content (65,536 characters would be 393,218 bytes as JSON):
  // refused, and nothing is sent.
  std::string over = largest_announcement("published");
  over.replace(over.find(R"(ab","type")"), 2, "abc");
  HttpResponse refused = http("POST", "/api/v2/admin/announcements", s.call(over));
  EXPECT_EQ(refused.status, 422) << refused.body.substr(0, 300);
  HttpResponse r =
      http("POST", "/api/v2/admin/announcements", s.call(largest_announcement("published")));
  ASSERT_EQ(r.status, 201) << r.body.substr(0, 2000);
  ASSERT_TRUE(receiver.wait_for(1, std::chrono::seconds(30)));
  std::vector<ReceivedRequest> got = receiver.requests();
  ASSERT_EQ(got.size(), 1u);
  Json body = json_parse(got[0].body);
  ASSERT_TRUE(body);
  EXPECT_EQ(json_get_str(body.get(), "event"),
            std::optional<std::string_view>("announcement.published"));
  // Within the bound, and not far from the computed largest (docs/security.md,
  // "Largest answers": 176,120 bytes here, 201,000 at most).
  EXPECT_LE(got[0].body.size(), 262144u);
  EXPECT_GT(got[0].body.size(), 170000u);
}

TEST(FieldLimits, PagesOfTheLargestAnnouncementsStayUnder8MiB) {
  Scope s = fresh_scope(login(admin_email(), admin_password()));
  const std::string body = largest_announcement("published");
  for (int i = 0; i < 51; ++i) {
    HttpResponse r = http("POST", "/api/v2/admin/announcements", s.call(body));
    ASSERT_EQ(r.status, 201) << r.body.substr(0, 2000);
  }
  HttpResponse page = http("GET", "/api/v2/admin/announcements?per_page=100", s.call());
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(int_of(page["data"], "per_page"), 50);
  EXPECT_EQ(cJSON_GetArraySize(json_get(page["data"], "data")), 50);
  EXPECT_LE(page.body.size(), 8u << 20);
  EXPECT_GT(page.body.size(), 6u << 20);

  HttpResponse active = http("GET", "/api/v2/admin/announcements/active", s.call());
  ASSERT_EQ(active.status, 200);
  EXPECT_EQ(cJSON_GetArraySize(active["data"]), 50);
  EXPECT_LE(active.body.size(), 8u << 20);
  EXPECT_GT(active.body.size(), 6u << 20);
}

}  // namespace
}  // namespace ca::test
