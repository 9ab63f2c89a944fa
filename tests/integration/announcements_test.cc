// Announcements over HTTP through nginx: create, lists, read state, update,
// archive, the outbox event, and the worker's scheduled publishing and push.
//
// Push tests use a Receiver on the fixed port the stack's PUSH_GATEWAY_URL
// points at (CA_PUSH_GATEWAY_PORT). Every test process shares that gateway,
// so requests are always matched by announcement_id, and answers are set as
// the fallback (not a script) so a stray push of another test cannot consume them.
// The two-worker test pauses the stack's worker and starts its own
// (StackWorkerPause, WorkerProcess in stack.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "receiver.h"
#include "stack.h"

namespace ca::test {
namespace {

const std::string kBase = "/api/v2/admin/announcements";

struct Tenant {
  std::string token;
  int64_t id = 0;
  std::string header;  // X-Tenant-ID
};

Tenant new_tenant() {
  Tenant t;
  t.token = admin_token();
  t.id = create_tenant(t.token, unique("ann"));
  t.header = to_string(t.id);
  return t;
}

// `n` new accounts that are members of `t` (written directly: a `users`
// push target must name members of the tenant). Their ids, in order.
std::vector<std::string> new_members(const Tenant& t, int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    std::string id = sql("INSERT INTO users (name, email, password_hash) VALUES ('Target', '" +
                         unique("target") + "@test.local', 'x') RETURNING id")
                         .at(0);
    sql("INSERT INTO memberships (tenant_id, user_id, role) VALUES (" + t.header + ", " + id +
        ", 'MEMBER')");
    ids.push_back(id);
  }
  return ids;
}

HttpResponse post(const Tenant& t, const std::string& path, const std::string& body) {
  return http("POST", path, {.token = t.token, .tenant = t.header, .body = body});
}

HttpResponse get(const Tenant& t, const std::string& path) {
  return http("GET", path, {.token = t.token, .tenant = t.header});
}

std::string path_of(int64_t id, const std::string& suffix = "") {
  return kBase + "/" + to_string(id) + suffix;
}

// Creates an announcement from `body` (asserting 201) and returns its id.
int64_t create(const Tenant& t, const std::string& body) {
  HttpResponse r = post(t, kBase, body);
  EXPECT_EQ(r.status, 201) << r.body;
  return json_get_int(r["data"], "id").value_or(-1);
}

std::string data_str(const HttpResponse& r, const char* key) {
  auto v = json_get_str(r["data"], key);
  return v ? std::string(*v) : "<not a string>";
}

std::vector<std::string> keys_of(const cJSON* object) {
  std::vector<std::string> out;
  for (const cJSON* c = object ? object->child : nullptr; c != nullptr; c = c->next) {
    out.emplace_back(c->string);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// A copy of `object` without `keys`.
Json without(const cJSON* object, std::initializer_list<const char*> keys) {
  Json copy(cJSON_Duplicate(object, true));
  for (const char* k : keys) cJSON_DeleteItemFromObjectCaseSensitive(copy.get(), k);
  return copy;
}

bool is_ts(const cJSON* v) {
  static const std::regex kTs(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$)");
  return cJSON_IsString(v) && std::regex_match(v->valuestring, kTs);
}

// The database's clock plus `seconds`, in the API's timestamp format.
std::string db_time_in(int seconds) {
  auto rows = sql("SELECT ca_ts(now() + make_interval(secs => " + std::to_string(seconds) + "))");
  return rows.empty() ? "" : rows[0];
}

// GETs the announcement until `done` holds for its record or `seconds` pass.
Json poll(const Tenant& t, int64_t id, const std::function<bool(const cJSON*)>& done,
          int seconds = 20) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  Json last;
  while (true) {
    HttpResponse r = get(t, path_of(id));
    EXPECT_EQ(r.status, 200) << r.body;
    const cJSON* data = r["data"];
    last.reset(data ? cJSON_Duplicate(data, true) : nullptr);
    if ((last && done(last.get())) || std::chrono::steady_clock::now() > deadline) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string field(const cJSON* record, const char* key) {
  auto v = json_get_str(record, key);
  return v ? std::string(*v) : "<not a string>";
}

int gateway_port() {
  const char* v = std::getenv("CA_PUSH_GATEWAY_PORT");
  if (v == nullptr || *v == '\0') {
    ADD_FAILURE() << "CA_PUSH_GATEWAY_PORT is not set: run the integration tests through "
                     "scripts/test";
    return 0;
  }
  return std::atoi(v);
}

std::string gateway_token() {
  const char* v = std::getenv("CA_PUSH_GATEWAY_TOKEN");
  return v ? v : "";
}

// The gateway requests about announcement `id`.
std::vector<ReceivedRequest> pushes_for(Receiver& gateway, int64_t id) {
  std::vector<ReceivedRequest> out;
  for (ReceivedRequest& r : gateway.requests()) {
    Json body = json_parse(r.body);
    if (json_get_int(body.get(), "announcement_id") == id) out.push_back(r);
  }
  return out;
}

struct Caller {
  int64_t id = 0;
  std::string name;
  std::string email;
};

Caller admin_caller() {
  auto rows = sql("SELECT id || '|' || name || '|' || email FROM users WHERE email = '" +
                  admin_email() + "'");
  Caller c;
  if (rows.empty()) return c;
  std::string row = rows[0];
  size_t a = row.find('|'), b = row.rfind('|');
  c.id = std::stoll(row.substr(0, a));
  c.name = row.substr(a + 1, b - a - 1);
  c.email = row.substr(b + 1);
  return c;
}

const std::vector<std::string> kFullKeys = sorted({"id",
                                                   "tenant_id",
                                                   "title",
                                                   "summary",
                                                   "content",
                                                   "type",
                                                   "priority",
                                                   "status",
                                                   "is_push_enabled",
                                                   "is_public",
                                                   "scheduled_at",
                                                   "expires_at",
                                                   "topic",
                                                   "push_title",
                                                   "push_body",
                                                   "push_data",
                                                   "target_type",
                                                   "target_value",
                                                   "push_status",
                                                   "push_error",
                                                   "sent_at",
                                                   "attachment_type",
                                                   "attachment_url",
                                                   "attachment_metadata",
                                                   "created_by",
                                                   "creator",
                                                   "created_at",
                                                   "updated_at"});

const std::vector<std::string> kListKeys = sorted({"id",
                                                   "tenant_id",
                                                   "title",
                                                   "summary",
                                                   "content",
                                                   "type",
                                                   "priority",
                                                   "status",
                                                   "is_push_enabled",
                                                   "is_public",
                                                   "scheduled_at",
                                                   "expires_at",
                                                   "topic",
                                                   "push_status",
                                                   "sent_at",
                                                   "attachment_type",
                                                   "attachment_url",
                                                   "created_by",
                                                   "creator",
                                                   "created_at",
                                                   "updated_at"});

const std::vector<std::string> kActiveKeys =
    sorted({"id", "tenant_id", "title", "summary", "content", "type", "priority", "status",
            "is_public", "expires_at", "topic", "attachment_type", "attachment_url",
            "attachment_metadata", "created_at", "is_read", "is_dismissed"});

constexpr const char* kMinimal = R"({"title":"Hello","type":"info","status":"draft"})";

// --- create -----------------------------------------------------------------

TEST(AnnouncementsCreate, MinimalBodyGetsEveryFieldWithTheDefaults) {
  Tenant t = new_tenant();
  Caller me = admin_caller();
  HttpResponse r = post(t, kBase, kMinimal);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(keys_of(r.json.get()), sorted({"success", "message", "data"}));
  EXPECT_TRUE(cJSON_IsTrue(r["success"]));
  EXPECT_EQ(r.str("message"), "Announcement created");
  const cJSON* data = r["data"];
  EXPECT_EQ(keys_of(data), kFullKeys);
  int64_t id = json_get_int(data, "id").value_or(-1);
  EXPECT_GT(id, 0);
  EXPECT_TRUE(is_ts(json_get(data, "created_at")));
  EXPECT_TRUE(json_eq(json_get(data, "updated_at"), json_dump(json_get(data, "created_at"))));
  Json rest = without(data, {"id", "created_at", "updated_at"});
  EXPECT_TRUE(json_eq(rest.get(), R"({
      "tenant_id": ")" + t.header + R"(", "title": "Hello", "summary": "", "content": "",
      "type": "info", "priority": 0, "status": "draft", "is_push_enabled": false,
      "is_public": false, "scheduled_at": null, "expires_at": null, "topic": null,
      "push_title": null, "push_body": null, "push_data": null, "target_type": "all",
      "target_value": null, "push_status": "skipped", "push_error": null, "sent_at": null,
      "attachment_type": null, "attachment_url": null, "attachment_metadata": null,
      "created_by": )" + to_string(me.id) +
                                      R"(,
      "creator": {"id": )" + to_string(me.id) +
                                      R"(, "name": )" + json_text(me.name) + R"(, "email": )" +
                                      json_text(me.email) + "}}"));

  // The single read shows the same record.
  HttpResponse read = get(t, path_of(id));
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(keys_of(read.json.get()), sorted({"success", "data"}));
  EXPECT_TRUE(cJSON_IsTrue(read["success"]));
  EXPECT_TRUE(json_eq(read["data"], json_dump(data)));
}

TEST(AnnouncementsCreate, StoresEveryFieldSentAndNormalisesTimestampsAndUserIds) {
  Tenant t = new_tenant();
  std::vector<std::string> m = new_members(t, 3);
  HttpResponse r = post(t, kBase,
                        R"({
      "title": "  Spring sale  ", "summary": "Up to 50% off", "content": "<p>Details</p>",
      "type": "success", "priority": 1, "status": "draft", "is_push_enabled": true,
      "is_public": true, "scheduled_at": "2030-03-01T10:00:00+02:00",
      "expires_at": "2030-03-08T23:59:59.5Z", "topic": "promotions", "push_title": "Sale!",
      "push_body": "Half price", "push_data": {"screen": "sale", "ids": [1, 2]},
      "target_type": "users", "target_value": " )" +
                            m[0] + ", " + m[1] + " ," + m[2] + R"(",
      "attachment_type": "button",
      "attachment_url": "https://shop.example.com/sale?x=1",
      "attachment_metadata": {"label": "Shop now"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  Json rest = without(r["data"], {"id", "created_at", "updated_at", "created_by", "creator"});
  EXPECT_TRUE(json_eq(rest.get(), R"({
      "tenant_id": ")" + t.header + R"(", "title": "Spring sale", "summary": "Up to 50% off",
      "content": "<p>Details</p>", "type": "success", "priority": 1, "status": "draft",
      "is_push_enabled": true, "is_public": true,
      "scheduled_at": "2030-03-01T08:00:00.000000Z", "expires_at": "2030-03-08T23:59:59.500000Z",
      "topic": "promotions", "push_title": "Sale!", "push_body": "Half price",
      "push_data": {"screen": "sale", "ids": [1, 2]}, "target_type": "users",
      "target_value": ")" + m[0] + "," +
                                      m[1] + "," + m[2] + R"(", "push_status": "pending",
      "push_error": null, "sent_at": null,
      "attachment_type": "button", "attachment_url": "https://shop.example.com/sale?x=1",
      "attachment_metadata": {"label": "Shop now"}})"));
}

TEST(AnnouncementsCreate, RequiresTitleTypeAndStatus) {
  Tenant t = new_tenant();
  HttpResponse r = post(t, kBase, "{}");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {
      "title": ["The title field is required."], "type": ["The type field is required."],
      "status": ["The status field is required."]}})"));

  r = post(t, kBase, R"({"title": "   ", "type": null, "status": ""})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {
      "title": ["The title field is required."], "type": ["The type field is required."],
      "status": ["The status field is required."]}})"));
}

TEST(AnnouncementsCreate, ReportsEveryInvalidFieldAtOnce) {
  Tenant t = new_tenant();
  HttpResponse r = post(t, kBase, R"({
      "title": 5, "summary": false, "content": [], "type": "news", "priority": 2,
      "status": "live", "is_push_enabled": "yes", "is_public": 1,
      "scheduled_at": "2026-02-30T10:00:00Z", "expires_at": "tomorrow", "topic": {},
      "push_title": 1, "push_body": 2, "push_data": [1], "target_type": "everyone",
      "target_value": 3, "attachment_type": "video", "attachment_url": "ftp://files.example.com/a",
      "attachment_metadata": "x"})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {
      "title": ["The title field must be a string."],
      "summary": ["The summary field must be a string."],
      "content": ["The content field must be a string."],
      "type": ["The selected type is invalid."],
      "priority": ["The priority field must not be greater than 1."],
      "status": ["The selected status is invalid."],
      "is_push_enabled": ["The is_push_enabled field must be true or false."],
      "is_public": ["The is_public field must be true or false."],
      "scheduled_at": ["The scheduled_at field must be a valid ISO 8601 date-time such as 2026-12-01T10:00:00Z."],
      "expires_at": ["The expires_at field must be a valid ISO 8601 date-time such as 2026-12-01T10:00:00Z."],
      "topic": ["The topic field must be a string."],
      "push_title": ["The push_title field must be a string."],
      "push_body": ["The push_body field must be a string."],
      "push_data": ["The push_data field must be an object."],
      "target_type": ["The selected target_type is invalid."],
      "target_value": ["The target_value field must be a string."],
      "attachment_type": ["The selected attachment_type is invalid."],
      "attachment_url": ["The attachment_url field must be a valid http or https URL."],
      "attachment_metadata": ["The attachment_metadata field must be an object."]}})"));
  EXPECT_EQ(sql("SELECT count(*) FROM announcements WHERE tenant_id = " + t.header)[0], "0");
}

TEST(AnnouncementsCreate, PriorityIsZeroOrOneAndAnInteger) {
  Tenant t = new_tenant();
  for (const char* bad : {"-1", "1.5", "\"1\"", "true", "null"}) {
    HttpResponse r =
        post(t, kBase,
             std::string(R"({"title":"P","type":"info","status":"draft","priority":)") + bad + "}");
    ASSERT_EQ(r.status, 422) << bad << ": " << r.body;
    EXPECT_EQ(keys_of(r["errors"]), std::vector<std::string>{"priority"}) << bad;
  }
  HttpResponse r = post(t, kBase, R"({"title":"P","type":"info","status":"draft","priority":-1})");
  EXPECT_TRUE(json_eq(r["errors"], R"({"priority": ["The priority field must be at least 0."]})"));
  r = post(t, kBase, R"({"title":"P","type":"info","status":"draft","priority":1.5})");
  EXPECT_TRUE(json_eq(r["errors"], R"({"priority": ["The priority field must be an integer."]})"));
  r = post(t, kBase, R"({"title":"P","type":"alert","status":"draft","priority":1})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json_get_int(r["data"], "priority"), 1);
}

TEST(AnnouncementsCreate, LengthLimitsCountCharactersNotBytes) {
  Tenant t = new_tenant();
  auto body = [](int title, int summary, int topic, int push_title, int push_body,
                 const std::string& unit) {
    return R"({"type":"info","status":"draft","title":)" + json_text(repeat(unit, title)) +
           R"(,"summary":)" + json_text(repeat(unit, summary)) + R"(,"topic":)" +
           json_text(repeat(unit, topic)) + R"(,"push_title":)" +
           json_text(repeat(unit, push_title)) + R"(,"push_body":)" +
           json_text(repeat(unit, push_body)) + "}";
  };
  // At the limit: accepted, in ASCII, 2-byte, 3-byte and 4-byte characters.
  for (const std::string unit : {"a", "\u00e9", "\u20ac", "\U0001F600"}) {
    HttpResponse r = post(t, kBase, body(255, 500, 100, 100, 200, unit));
    ASSERT_EQ(r.status, 201) << unit << ": " << r.body;
    EXPECT_EQ(data_str(r, "title"), repeat(unit, 255));
    EXPECT_EQ(data_str(r, "summary"), repeat(unit, 500));
    EXPECT_EQ(data_str(r, "topic"), repeat(unit, 100));
    EXPECT_EQ(data_str(r, "push_title"), repeat(unit, 100));
    EXPECT_EQ(data_str(r, "push_body"), repeat(unit, 200));
  }
  // One character over: refused, every field at once.
  for (const std::string unit : {"a", "\u00e9"}) {
    HttpResponse r = post(t, kBase, body(256, 501, 101, 101, 201, unit));
    ASSERT_EQ(r.status, 422) << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {
        "title": ["The title field must not be greater than 255 characters."],
        "summary": ["The summary field must not be greater than 500 characters."],
        "topic": ["The topic field must not be greater than 100 characters."],
        "push_title": ["The push_title field must not be greater than 100 characters."],
        "push_body": ["The push_body field must not be greater than 200 characters."]}})"));
  }
}

TEST(AnnouncementsCreate, TimestampsAreIso8601AndComeBackInUtc) {
  Tenant t = new_tenant();
  const std::vector<std::pair<std::string, std::string>> good = {
      {"2026-12-01T10:00:00Z", "2026-12-01T10:00:00.000000Z"},
      {"2026-12-01T10:00:00+02:00", "2026-12-01T08:00:00.000000Z"},
      {"2026-12-01T10:00:00-05:30", "2026-12-01T15:30:00.000000Z"},
      {"2026-12-01T10:00:00.123456Z", "2026-12-01T10:00:00.123456Z"},
      {"2026-12-01T10:00:00.5+01:00", "2026-12-01T09:00:00.500000Z"},
      {"2028-02-29T00:00:00Z", "2028-02-29T00:00:00.000000Z"},
      {"2026-12-01", "2026-12-01T00:00:00.000000Z"},
  };
  for (const auto& [in, out] : good) {
    HttpResponse r = post(t, kBase,
                          R"({"title":"T","type":"info","status":"draft","expires_at":")" + in +
                              R"(","scheduled_at":"2026-01-01T00:00:00Z"})");
    ASSERT_EQ(r.status, 201) << in << ": " << r.body;
    EXPECT_EQ(data_str(r, "expires_at"), out) << in;
  }
  for (const char* bad :
       {"2026-02-30T10:00:00Z", "2027-02-29T10:00:00Z", "2026-13-01T00:00:00Z",
        "2026-12-01T25:00:00Z", "2026-12-01T10:61:00Z", "garbage", "", "2026-12-01T10:00:00+25:00",
        "01/12/2026", "2026-12-01T10:00:00Zjunk", "1700000000"}) {
    HttpResponse r = post(t, kBase,
                          std::string(R"({"title":"T","type":"info","status":"draft",)") +
                              R"("scheduled_at":")" + bad + "\"}");
    if (std::string(bad).empty()) {
      // An empty value means "none", like null.
      EXPECT_EQ(r.status, 201) << r.body;
      continue;
    }
    ASSERT_EQ(r.status, 422) << bad << ": " << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {"scheduled_at": [
        "The scheduled_at field must be a valid ISO 8601 date-time such as 2026-12-01T10:00:00Z."]}})"))
        << bad;
  }
  HttpResponse r =
      post(t, kBase, R"({"title":"T","type":"info","status":"draft","expires_at":1700000000})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(
      json_eq(r["errors"], R"({"expires_at": ["The expires_at field must be a string."]})"));
}

TEST(AnnouncementsCreate, ScheduledNeedsScheduledAtAndExpiryComesAfterIt) {
  Tenant t = new_tenant();
  HttpResponse r = post(t, kBase, R"({"title":"S","type":"info","status":"scheduled"})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {"scheduled_at": [
      "The scheduled_at field is required when status is scheduled."]}})"));
  r = post(t, kBase, R"({"title":"S","type":"info","status":"scheduled","scheduled_at":null})");
  ASSERT_EQ(r.status, 422) << r.body;

  r = post(t, kBase, R"({"title":"S","type":"info","status":"scheduled",
      "scheduled_at":"2030-01-02T00:00:00Z","expires_at":"2030-01-01T00:00:00Z"})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {"expires_at": [
      "The expires_at field must be a date-time after scheduled_at."]}})"));
  r = post(t, kBase, R"({"title":"S","type":"info","status":"scheduled",
      "scheduled_at":"2030-01-02T00:00:00Z","expires_at":"2030-01-02T00:00:00Z"})");
  ASSERT_EQ(r.status, 422) << r.body;

  r = post(t, kBase, R"({"title":"S","type":"info","status":"scheduled",
      "scheduled_at":"2030-01-02T00:00:00Z","expires_at":"2030-01-02T00:00:01Z"})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(data_str(r, "status"), "scheduled");
  EXPECT_EQ(data_str(r, "scheduled_at"), "2030-01-02T00:00:00.000000Z");
}

TEST(AnnouncementsCreate, AttachmentUrlMustBeAValidUrlWhenAttachmentTypeIsGiven) {
  Tenant t = new_tenant();
  HttpResponse r = post(t, kBase, R"({"title":"A","type":"info","status":"draft",
      "attachment_type":"image"})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {"attachment_url": [
      "The attachment_url field is required when attachment_type is set."]}})"));
  for (const char* bad :
       {"not a url", "javascript:alert(1)", "ftp://example.com/a.png", "https://",
        "//example.com/a.png", "https://exa mple.com/", "https://example.com:99999/"}) {
    r = post(
        t, kBase,
        std::string(R"({"title":"A","type":"info","status":"draft","attachment_type":"link",)") +
            R"("attachment_url":)" + json_text(bad) + "}");
    ASSERT_EQ(r.status, 422) << bad << ": " << r.body;
    EXPECT_TRUE(json_eq(r["errors"], R"({"attachment_url": [
        "The attachment_url field must be a valid http or https URL."]})"))
        << bad;
  }
  for (const char* type : {"image", "link", "button"}) {
    r = post(t, kBase,
             std::string(R"({"title":"A","type":"info","status":"draft","attachment_type":")") +
                 type + R"(","attachment_url":"http://cdn.example.com:8080/a.png"})");
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(data_str(r, "attachment_type"), type);
    EXPECT_EQ(data_str(r, "attachment_url"), "http://cdn.example.com:8080/a.png");
  }
}

TEST(AnnouncementsCreate, TargetValueFollowsTargetType) {
  Tenant t = new_tenant();
  auto with_target = [&](const std::string& target) {
    return post(t, kBase, R"({"title":"T","type":"info","status":"draft",)" + target + "}");
  };
  std::vector<std::string> m = new_members(t, 3);
  HttpResponse r = with_target(R"("target_type":"users","target_value":")" + m[0] + ", " + m[1] +
                               "," + m[2] + "\"");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(data_str(r, "target_value"), m[0] + "," + m[1] + "," + m[2]);
  // A member of another tenant cannot be targeted.
  Tenant other = new_tenant();
  std::vector<std::string> outsider = new_members(other, 1);
  r = with_target(R"("target_type":"users","target_value":")" + m[0] + "," + outsider[0] + "\"");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {"target_value": [
      "The target_value field must list members of this tenant."]}})"));
  r = with_target(R"("target_type":"topic","target_value":"news")");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(data_str(r, "target_value"), "news");
  r = with_target(R"("target_type":"all","target_value":null)");
  ASSERT_EQ(r.status, 201) << r.body;

  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"("target_type":"users")", "The target_value field is required when target_type is users."},
      {R"("target_type":"users","target_value":"")",
       "The target_value field is required when target_type is users."},
      {R"("target_type":"users","target_value":"0")",
       "The target_value field must be a comma-separated list of user ids when target_type is "
       "users."},
      {R"("target_type":"users","target_value":"1,,2")",
       "The target_value field must be a comma-separated list of user ids when target_type is "
       "users."},
      {R"("target_type":"users","target_value":"alice")",
       "The target_value field must be a comma-separated list of user ids when target_type is "
       "users."},
      {R"("target_type":"topic")", "The target_value field is required when target_type is topic."},
      {R"("target_type":"topic","target_value":")" + repeat("t", 101) + "\"",
       "The target_value field must not be greater than 100 characters when target_type is "
       "topic."},
      {R"("target_value":"1,2")", "The target_value field must be empty when target_type is all."},
  };
  for (const auto& [target, message] : bad) {
    r = with_target(target);
    ASSERT_EQ(r.status, 422) << target << ": " << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), R"({"success": false, "errors": {"target_value": [)" +
                                          json_text(message) + "]}}"))
        << target;
  }
}

TEST(AnnouncementsCreate, PushDataAndAttachmentMetadataAreObjects) {
  Tenant t = new_tenant();
  for (const char* bad : {"\"x\"", "[1]", "5", "true"}) {
    HttpResponse r =
        post(t, kBase,
             std::string(R"({"title":"O","type":"info","status":"draft","push_data":)") + bad +
                 R"(,"attachment_metadata":)" + bad + "}");
    ASSERT_EQ(r.status, 422) << bad << ": " << r.body;
    EXPECT_TRUE(json_eq(r["errors"], R"({
        "push_data": ["The push_data field must be an object."],
        "attachment_metadata": ["The attachment_metadata field must be an object."]})"));
  }
  HttpResponse r = post(t, kBase, R"({"title":"O","type":"info","status":"draft",
      "push_data":{"deep":{"x":[1,{"y":null}]}},"attachment_metadata":{}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(json_eq(json_get(r["data"], "push_data"), R"({"deep":{"x":[1,{"y":null}]}})"));
  EXPECT_TRUE(json_eq(json_get(r["data"], "attachment_metadata"), "{}"));
}

// 1e400 parses as infinity, which would be stored as null, and -1e-999 as
// 0: refused, on create and on update, and nothing is written.
TEST(AnnouncementsCreate, NumbersBeyondADoubleInPushDataOrAttachmentMetadataAre422) {
  Tenant t = new_tenant();
  const char* expected = R"({
      "push_data": ["The push_data field must not hold a number beyond 1.8e308, or a nonzero one below 2.2250738585072014e-308 in magnitude."],
      "attachment_metadata": ["The attachment_metadata field must not hold a number beyond 1.8e308, or a nonzero one below 2.2250738585072014e-308 in magnitude."]})";
  std::string count = "SELECT count(*) FROM announcements WHERE tenant_id = " + to_string(t.id);
  HttpResponse r = post(t, kBase, R"({"title":"N","type":"info","status":"draft",
      "push_data":{"k":1e400},"attachment_metadata":{"a":[{"b":-1e-999}]}})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r["errors"], expected)) << r.body;
  EXPECT_EQ(sql(count), (std::vector<std::string>{"0"}));

  HttpResponse created = post(t, kBase, R"({"title":"N","type":"info","status":"draft",
      "push_data":{"k":1e308}})");
  ASSERT_EQ(created.status, 201) << created.body;
  int64_t id = json_get_int(created["data"], "id").value_or(-1);
  r = post(t, path_of(id), R"({"push_data":{"k":2e308},"attachment_metadata":{"a":1E309}})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r["errors"], expected)) << r.body;
  EXPECT_TRUE(json_eq(get(t, path_of(id))["data"], json_dump(created["data"])));
}

TEST(AnnouncementsCreate, PushStatusIsPendingOnlyWhenPushIsEnabled) {
  Tenant t = new_tenant();
  HttpResponse r = post(t, kBase, R"({"title":"P","type":"info","status":"draft",
      "is_push_enabled":true})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(data_str(r, "push_status"), "pending");
  r = post(t, kBase, R"({"title":"P","type":"info","status":"draft","is_push_enabled":false})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(data_str(r, "push_status"), "skipped");
  // Nothing will ever be sent for an announcement created archived.
  r = post(t, kBase, R"({"title":"P","type":"info","status":"archived","is_push_enabled":true})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(data_str(r, "push_status"), "skipped");
}

// --- access -----------------------------------------------------------------

TEST(AnnouncementsAccess, TokenTenantHeaderAndMembershipAreChecked) {
  Tenant t = new_tenant();
  int64_t id = create(t, kMinimal);
  // A second account that is a member of another tenant only.
  Tenant other = new_tenant();
  TestUser outsider = add_user(other.token, other.id);

  const std::vector<std::pair<std::string, std::string>> endpoints = {
      {"GET", kBase},
      // Bad paging is still refused for access first (the page is read in
      // the same round trip as the access check).
      {"GET", kBase + "?page=0"},
      {"POST", kBase},
      {"GET", kBase + "/active"},
      {"GET", path_of(id)},
      {"POST", path_of(id)},
      {"DELETE", path_of(id)},
      {"POST", path_of(id, "/read")},
      {"POST", path_of(id, "/dismiss")},
  };
  for (const auto& [method, path] : endpoints) {
    SCOPED_TRACE(method + " " + path);
    HttpResponse r = http(method, path, {.tenant = t.header, .body = kMinimal});
    EXPECT_EQ(r.status, 401) << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), R"({"error":"Unauthenticated"})"));
    EXPECT_EQ(r.headers["www-authenticate"], "Bearer");

    r = http(method, path, {.token = t.token, .body = kMinimal});
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), R"({"error":"The X-Tenant-ID header is required"})"));

    r = http(method, path, {.token = t.token, .tenant = "abc", .body = kMinimal});
    EXPECT_EQ(r.status, 400) << r.body;

    r = http(method, path, {.token = outsider.token, .tenant = t.header, .body = kMinimal});
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), R"({"error":"You are not a member of this tenant"})"));
  }
  // Nothing changed through the refused calls.
  HttpResponse read = get(t, path_of(id));
  EXPECT_EQ(data_str(read, "status"), "draft");
  EXPECT_EQ(sql("SELECT count(*) FROM announcements WHERE tenant_id = " + t.header)[0], "1");
}

TEST(AnnouncementsAccess, AnyMemberMayCreateAndBodyMustBeAJsonObject) {
  Tenant t = new_tenant();
  TestUser member = add_user(t.token, t.id, "MEMBER");
  HttpResponse r =
      http("POST", kBase, {.token = member.token, .tenant = t.header, .body = kMinimal});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json_get_int(r["data"], "created_by"), member.id);
  EXPECT_TRUE(json_eq(json_get(r["data"], "creator"), R"({"id":)" + to_string(member.id) +
                                                          R"(,"name":"Test User","email":)" +
                                                          json_text(member.email) + "}"));

  for (const char* bad : {"[1]", "not json", "\"x\""}) {
    r = post(t, kBase, bad);
    EXPECT_EQ(r.status, 400) << bad << ": " << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), R"({"error":"Request body must be a JSON object"})"));
  }
}

TEST(AnnouncementsAccess, UnknownPathsAndMethods) {
  Tenant t = new_tenant();
  HttpResponse r = http("PUT", kBase, {.token = t.token, .tenant = t.header});
  EXPECT_EQ(r.status, 405) << r.body;
  EXPECT_EQ(r.headers["allow"], "GET, POST");
  r = get(t, kBase + "/abc");
  EXPECT_EQ(r.status, 404) << r.body;
  r = http("DELETE", kBase + "/active", {.token = t.token, .tenant = t.header});
  EXPECT_EQ(r.status, 405) << r.body;
  EXPECT_EQ(r.headers["allow"], "GET");
}

// --- list ---------------------------------------------------------------------

TEST(AnnouncementsList, PaginatesNewestFirstWithoutThePushDetails) {
  Tenant t = new_tenant();
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(create(t, R"({"title":"L)" + std::to_string(i) + R"(","type":"info",
        "status":"published","push_title":"x","push_data":{"a":1},"target_type":"topic",
        "target_value":"t","attachment_type":"link","attachment_url":"https://e.com",
        "attachment_metadata":{"b":2}})"));
  }
  // Another tenant's announcement never shows.
  Tenant other = new_tenant();
  create(other, kMinimal);

  HttpResponse r = get(t, kBase);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(keys_of(r.json.get()), sorted({"success", "data"}));
  EXPECT_TRUE(cJSON_IsTrue(r["success"]));
  Json meta = without(r["data"], {"data"});
  EXPECT_TRUE(json_eq(meta.get(), R"({"current_page":1,"last_page":1,"per_page":20,"total":3})"));
  const cJSON* list = json_get(r["data"], "data");
  ASSERT_EQ(cJSON_GetArraySize(list), 3);
  for (int i = 0; i < 3; ++i) {
    const cJSON* item = cJSON_GetArrayItem(list, i);
    EXPECT_EQ(keys_of(item), kListKeys);
    EXPECT_EQ(json_get_int(item, "id"), ids[2 - i]);
  }
  // The list item is the full record minus the omitted fields.
  HttpResponse full = get(t, path_of(ids[2]));
  Json trimmed = without(full["data"], {"push_title", "push_body", "push_data", "target_type",
                                        "target_value", "push_error", "attachment_metadata"});
  EXPECT_TRUE(json_eq(cJSON_GetArrayItem(list, 0), json_dump(trimmed.get())));

  r = get(t, kBase + "?page=2&per_page=2");
  ASSERT_EQ(r.status, 200) << r.body;
  meta = without(r["data"], {"data"});
  EXPECT_TRUE(json_eq(meta.get(), R"({"current_page":2,"last_page":2,"per_page":2,"total":3})"));
  list = json_get(r["data"], "data");
  ASSERT_EQ(cJSON_GetArraySize(list), 1);
  EXPECT_EQ(json_get_int(cJSON_GetArrayItem(list, 0), "id"), ids[0]);

  r = get(t, kBase + "?page=9");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(
      json_eq(r["data"], R"({"data":[],"current_page":9,"last_page":1,"per_page":20,"total":3})"));

  // Announcements clamp at 50, not 100 (docs/decisions/0020-announcement-size-bounds.md).
  r = get(t, kBase + "?per_page=500");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_get_int(r["data"], "per_page"), 50);

  r = get(t, kBase + "?page=0&per_page=x");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success":false,"errors":{
      "page":["The page field must be an integer of at least 1."],
      "per_page":["The per_page field must be an integer of at least 1."]}})"));
}

TEST(AnnouncementsList, EmptyTenantHasAnEmptyFirstPage) {
  Tenant t = new_tenant();
  HttpResponse r = get(t, kBase);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success":true,"data":{"data":[],"current_page":1,
      "last_page":1,"per_page":20,"total":0}})"));
}

// --- active list --------------------------------------------------------------

// The item for `id` in the active list as `token` sees it; empty if absent.
Json active_item(const Tenant& t, const std::string& token, int64_t id) {
  HttpResponse list = http("GET", kBase + "/active", {.token = token, .tenant = t.header});
  EXPECT_EQ(list.status, 200) << list.body;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, list["data"]) {
    if (json_get_int(item, "id") == id) return Json(cJSON_Duplicate(item, true));
  }
  return nullptr;
}

// The active item docs/openapi.yaml describes for `id`, built from the single read.
std::string expected_active(const Tenant& t, int64_t id, bool read, bool dismissed) {
  HttpResponse full = get(t, path_of(id));
  const cJSON* rec = full["data"];
  Json expected = json_object();
  for (const char* k : {"id", "tenant_id", "title", "summary", "content", "type", "priority",
                        "status", "is_public", "expires_at", "topic", "attachment_type",
                        "attachment_url", "attachment_metadata", "created_at"}) {
    cJSON_AddItemToObject(expected.get(), k, cJSON_Duplicate(json_get(rec, k), true));
  }
  json_add_bool(expected.get(), "is_read", read);
  json_add_bool(expected.get(), "is_dismissed", dismissed);
  return json_dump(expected.get());
}

std::vector<int64_t> active_ids(const Tenant& t, const std::string& token) {
  HttpResponse r = http("GET", kBase + "/active", {.token = token, .tenant = t.header});
  EXPECT_EQ(r.status, 200) << r.body;
  std::vector<int64_t> out;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, r["data"]) out.push_back(json_get_int(item, "id").value_or(-1));
  return out;
}

TEST(AnnouncementsActive, OnlyActiveOnesOrderedByPriorityThenNewest) {
  Tenant t = new_tenant();
  std::string past = db_time_in(-3600), future = db_time_in(3600);
  auto make = [&](const std::string& status, int priority, const std::string& extra) {
    return create(t, R"({"title":"A","type":"warning","status":")" + status + R"(","priority":)" +
                         std::to_string(priority) + extra + "}");
  };
  int64_t low_old = make("published", 0, "");
  int64_t high_old = make("published", 1, "");
  int64_t draft = make("draft", 1, "");
  int64_t expired = make("published", 1, R"(,"expires_at":")" + past + "\"");
  int64_t not_yet = make("published", 1, R"(,"scheduled_at":")" + future + "\"");
  int64_t scheduled = make("scheduled", 1, R"(,"scheduled_at":")" + future + "\"");
  int64_t archived = make("published", 1, "");
  ASSERT_EQ(http("DELETE", path_of(archived), {.token = t.token, .tenant = t.header}).status, 200);
  int64_t low_new =
      make("published", 0, R"(,"scheduled_at":")" + past + R"(","expires_at":")" + future + "\"");
  int64_t high_new = make("published", 1, R"(,"expires_at":")" + future + "\"");
  (void)draft, (void)expired, (void)not_yet, (void)scheduled;
  // Another tenant's published announcement never shows.
  Tenant other = new_tenant();
  create(other, R"({"title":"X","type":"info","status":"published","priority":1})");

  EXPECT_EQ(active_ids(t, t.token), (std::vector<int64_t>{high_new, high_old, low_new, low_old}));

  HttpResponse r = get(t, kBase + "/active");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(keys_of(r.json.get()), sorted({"success", "data"}));
  const cJSON* first = cJSON_GetArrayItem(r["data"], 0);
  EXPECT_EQ(keys_of(first), kActiveKeys);
  EXPECT_TRUE(json_eq(first, expected_active(t, high_new, false, false)));
}

// Each active item is rendered by PostgreSQL when the row is written
// (sql/016): every kind of write must render it again, and it must say what
// the single read says, whatever the text holds.
TEST(AnnouncementsActive, EachItemIsTheRecordAsItIsNowAfterEveryKindOfWrite) {
  Tenant t = new_tenant();
  const std::string text = "Say \"hi\" \\ 100%\n\t\x01 \xC3\xA9 \xE6\x97\xA5 </b> \xF0\x9F\x8D\xB5";
  int64_t id = create(t, R"({"title":)" + json_text(text) + R"(,"summary":)" + json_text(text) +
                             R"(,"content":)" + json_text(text) + R"(,"type":"alert",
      "priority":1,"status":"published","is_public":true,"expires_at":")" +
                             db_time_in(3600) + R"(","topic":"Deals \"x\"",
      "attachment_type":"link","attachment_url":"https://example.com/a?b=1&c=\"2\"",
      "attachment_metadata":{"label":"Shop \"now\"","n":[1,2.5,{"x":null}],"ok":true}})");
  const std::string& token = t.token;
  EXPECT_TRUE(json_eq(active_item(t, token, id).get(), expected_active(t, id, false, false)));
  EXPECT_EQ(data_str(get(t, path_of(id)), "title"), text);
  // The metadata is printed as stored (jsonb's text), by both.
  const std::string stored =
      R"("attachment_metadata":)" +
      sql("SELECT attachment_metadata::text FROM announcements WHERE id = " + to_string(id)).at(0);
  EXPECT_NE(stored.find(R"("n": [1, 2.5, {"x": null}])"), std::string::npos) << stored;
  EXPECT_NE(get(t, path_of(id)).body.find(stored), std::string::npos);
  EXPECT_NE(get(t, kBase + "/active").body.find(stored), std::string::npos);

  // Through the API.
  HttpResponse r = post(t, path_of(id), R"({"title":"Renamed","content":"","priority":0,
      "expires_at":")" + db_time_in(7200) + R"(","attachment_metadata":{"label":"Other"}})");
  ASSERT_EQ(r.status, 200) << r.body;
  Json item = active_item(t, token, id);
  EXPECT_EQ(json_get_str(item.get(), "title").value_or(""), "Renamed");
  EXPECT_TRUE(json_eq(item.get(), expected_active(t, id, false, false)));

  // The caller's own read state goes with it.
  ASSERT_EQ(post(t, path_of(id, "/read"), "").status, 200);
  EXPECT_TRUE(json_eq(active_item(t, token, id).get(), expected_active(t, id, true, false)));

  // By anyone else writing the row, here with SQL.
  sql("UPDATE announcements SET summary = 'From SQL', attachment_metadata = NULL, "
      "created_at = '2001-02-03 04:05:06+00' WHERE tenant_id = " +
      t.header + " AND id = " + to_string(id));
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  item = active_item(t, token, id);
  EXPECT_EQ(json_get_str(item.get(), "created_at").value_or(""), "2001-02-03T04:05:06.000000Z");
  EXPECT_TRUE(json_eq(item.get(), expected_active(t, id, true, false)));
}

TEST(AnnouncementsActive, ReadAndDismissAreEachCallersOwn) {
  Tenant t = new_tenant();
  TestUser member = add_user(t.token, t.id, "MEMBER");
  int64_t a = create(t, R"({"title":"A","type":"info","status":"published"})");
  int64_t b = create(t, R"({"title":"B","type":"info","status":"published"})");

  HttpResponse r = post(t, path_of(a, "/read"), "");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success":true,"message":"Announcement marked as read"})"));
  r = post(t, path_of(b, "/dismiss"), "");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success":true,"message":"Announcement dismissed"})"));

  auto flags = [&](const std::string& token) {
    HttpResponse list = http("GET", kBase + "/active", {.token = token, .tenant = t.header});
    std::string out;
    const cJSON* item = nullptr;
    cJSON_ArrayForEach(item, list["data"]) {
      out += to_string(json_get_int(item, "id").value_or(-1)) + ":" +
             (cJSON_IsTrue(json_get(item, "is_read")) ? "read" : "unread") + ":" +
             (cJSON_IsTrue(json_get(item, "is_dismissed")) ? "dismissed" : "shown") + " ";
    }
    return out;
  };
  EXPECT_EQ(flags(t.token), to_string(a) + ":read:shown ");
  EXPECT_EQ(flags(member.token), to_string(b) + ":unread:shown " + to_string(a) + ":unread:shown ");

  r = http("POST", path_of(b, "/read"), {.token = member.token, .tenant = t.header});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(flags(member.token), to_string(b) + ":read:shown " + to_string(a) + ":unread:shown ");
  EXPECT_EQ(flags(t.token), to_string(a) + ":read:shown ");
}

// The handlers keep each tenant's active list in memory (one copy per
// thread of each process, sql/019). Each check below asks many times, so
// that most of those copies are asked after every change: a copy that
// outlived its list would answer one of them.
constexpr int kAskEveryCopy = 16;

// The ids of the active list, as every ask returned them, or a
// description of the first ask that differed from the others.
std::vector<int64_t> active_ids_every_time(const Tenant& t, const std::string& token) {
  std::vector<int64_t> first = active_ids(t, token);
  for (int i = 1; i < kAskEveryCopy; ++i) {
    std::vector<int64_t> again = active_ids(t, token);
    if (again != first) {
      ADD_FAILURE() << "ask " << i << " gave " << again.size() << " ids, the first "
                    << first.size();
      return {-1};
    }
  }
  return first;
}

TEST(AnnouncementsActive, KeptListsFollowEveryWriteWhoeverMakesIt) {
  Tenant t = new_tenant();
  EXPECT_TRUE(active_ids_every_time(t, t.token).empty());  // a tenant with no announcements
  int64_t a = create(t, R"({"title":"A","type":"info","status":"published"})");
  EXPECT_EQ(active_ids_every_time(t, t.token), std::vector<int64_t>{a});

  int64_t b = create(t, R"({"title":"B","type":"info","status":"published","priority":1})");
  EXPECT_EQ(active_ids_every_time(t, t.token), (std::vector<int64_t>{b, a}));

  // An edit of what an item shows.
  ASSERT_EQ(post(t, path_of(a), R"({"title":"A2"})").status, 200);
  for (int i = 0; i < kAskEveryCopy; ++i) {
    ASSERT_EQ(json_get_str(active_item(t, t.token, a).get(), "title").value_or(""), "A2") << i;
  }
  // Of the order.
  ASSERT_EQ(post(t, path_of(b), R"({"priority":0})").status, 200);
  EXPECT_EQ(active_ids_every_time(t, t.token), (std::vector<int64_t>{b, a}));
  ASSERT_EQ(post(t, path_of(a), R"({"priority":1})").status, 200);
  EXPECT_EQ(active_ids_every_time(t, t.token), (std::vector<int64_t>{a, b}));
  // Of whether it is live: archived, back to draft, scheduled later.
  ASSERT_EQ(http("DELETE", path_of(a), {.token = t.token, .tenant = t.header}).status, 200);
  EXPECT_EQ(active_ids_every_time(t, t.token), std::vector<int64_t>{b});
  ASSERT_EQ(post(t, path_of(b), R"({"scheduled_at":")" + db_time_in(3600) + "\"}").status, 200);
  EXPECT_TRUE(active_ids_every_time(t, t.token).empty());

  // Writes with SQL, bypassing the API: an update, an insert, a delete.
  sql("UPDATE announcements SET scheduled_at = NULL WHERE tenant_id = " + t.header +
      " AND id = " + to_string(b));
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  EXPECT_EQ(active_ids_every_time(t, t.token), std::vector<int64_t>{b});
  auto inserted = sql(
      "INSERT INTO announcements (tenant_id, title, type, status, created_by) SELECT " + t.header +
      ", 'S', 'info', 'published', created_by FROM announcements WHERE id = " + to_string(b) +
      " RETURNING id");
  ASSERT_EQ(inserted.size(), 1u);
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  int64_t c = std::stoll(inserted[0]);
  EXPECT_EQ(active_ids_every_time(t, t.token), (std::vector<int64_t>{c, b}));
  sql("DELETE FROM announcements WHERE tenant_id = " + t.header + " AND id = " + to_string(b));
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  EXPECT_EQ(active_ids_every_time(t, t.token), std::vector<int64_t>{c});

  // The caller's read state is the caller's own, kept apart for each.
  TestUser member = add_user(t.token, t.id, "MEMBER");
  ASSERT_EQ(active_ids_every_time(t, member.token), std::vector<int64_t>{c});
  ASSERT_EQ(post(t, path_of(c, "/dismiss"), "").status, 200);
  EXPECT_TRUE(active_ids_every_time(t, t.token).empty());
  EXPECT_EQ(active_ids_every_time(t, member.token), std::vector<int64_t>{c});
  // Read records written with SQL: a dismissal taken back, a read removed.
  sql("UPDATE announcement_reads SET dismissed = false, dismissed_at = NULL WHERE tenant_id = " +
      t.header + " AND announcement_id = " + to_string(c));
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  for (int i = 0; i < kAskEveryCopy; ++i) {
    Json item = active_item(t, t.token, c);
    ASSERT_TRUE(cJSON_IsTrue(json_get(item.get(), "is_read"))) << i;
  }
  sql("DELETE FROM announcement_reads WHERE tenant_id = " + t.header +
      " AND announcement_id = " + to_string(c));
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  for (int i = 0; i < kAskEveryCopy; ++i) {
    Json item = active_item(t, t.token, c);
    ASSERT_TRUE(cJSON_IsFalse(json_get(item.get(), "is_read"))) << i;
  }
}

// No write happens at a row's scheduled_at or expires_at: the list changes
// with the clock, and a kept list must end there.
TEST(AnnouncementsActive, KeptListsEndWhenARowComesDueOrExpires) {
  Tenant t = new_tenant();
  std::string soon = db_time_in(2);
  int64_t expiring =
      create(t, R"({"title":"E","type":"info","status":"published","expires_at":")" + soon + "\"}");
  int64_t coming = create(
      t, R"({"title":"C","type":"info","status":"published","scheduled_at":")" + soon + "\"}");
  ASSERT_EQ(active_ids_every_time(t, t.token), std::vector<int64_t>{expiring});

  for (int i = 0; i < 100 && sql("SELECT now() >= '" + soon + "'") != std::vector<std::string>{"t"};
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(sql("SELECT now() >= '" + soon + "'"), std::vector<std::string>{"t"});
  EXPECT_EQ(active_ids_every_time(t, t.token), std::vector<int64_t>{coming});
}

// The version a kept list is checked against (sql/019) moves with every
// write of what the list shows, and not with the worker's push bookkeeping.
TEST(AnnouncementsActive, ListVersionMovesWithWhatTheListShows) {
  Tenant t = new_tenant();
  auto version = [&] {
    auto rows = sql("SELECT version FROM announcement_list_versions WHERE tenant_id = " + t.header);
    return rows.empty() ? std::string("none") : rows[0];
  };
  EXPECT_EQ(version(), "none");
  int64_t id = create(t, R"({"title":"V","type":"info","status":"draft"})");
  EXPECT_EQ(version(), "1");
  ASSERT_EQ(post(t, path_of(id), R"({"title":"V2"})").status, 200);
  EXPECT_EQ(version(), "2");
  std::string where = " WHERE tenant_id = " + t.header + " AND id = " + to_string(id);
  sql("UPDATE announcements SET push_status = 'failed', push_error = 'x', "
      "push_lease_until = now()" +
      where);
  EXPECT_EQ(version(), "2");
  sql("UPDATE announcements SET scheduled_at = now() + interval '1 day'" + where);
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  EXPECT_EQ(version(), "3");
  sql("DELETE FROM announcements" + where);
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  EXPECT_EQ(version(), "4");
  // Deleting the tenant takes its version with it.
  sql("DELETE FROM tenants WHERE id = " + t.header);
  EXPECT_EQ(version(), "none");
}

// Likewise each caller's read version in a tenant, with that caller's
// read records and dismissals, and not with a read repeated.
TEST(AnnouncementsActive, ReadVersionMovesWithTheCallersReadRecords) {
  Tenant t = new_tenant();
  Caller me = admin_caller();
  TestUser member = add_user(t.token, t.id, "MEMBER");
  auto version = [&](int64_t user) {
    auto rows = sql("SELECT version FROM announcement_read_versions WHERE tenant_id = " + t.header +
                    " AND user_id = " + to_string(user));
    return rows.empty() ? std::string("none") : rows[0];
  };
  int64_t id = create(t, R"({"title":"R","type":"info","status":"published"})");
  EXPECT_EQ(version(me.id), "none");
  ASSERT_EQ(post(t, path_of(id, "/read"), "").status, 200);
  EXPECT_EQ(version(me.id), "1");
  ASSERT_EQ(post(t, path_of(id, "/read"), "").status, 200);
  EXPECT_EQ(version(me.id), "1");
  ASSERT_EQ(post(t, path_of(id, "/dismiss"), "").status, 200);
  EXPECT_EQ(version(me.id), "2");
  ASSERT_EQ(post(t, path_of(id, "/dismiss"), "").status, 200);
  EXPECT_EQ(version(me.id), "2");
  EXPECT_EQ(version(member.id), "none");
  ASSERT_EQ(http("POST", path_of(id, "/read"), {.token = member.token, .tenant = t.header}).status,
            200);
  EXPECT_EQ(version(member.id), "1");
  EXPECT_EQ(version(me.id), "2");
  // Deleting the announcement deletes the read records.
  sql("DELETE FROM announcements WHERE tenant_id = " + t.header + " AND id = " + to_string(id));
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  EXPECT_EQ(version(me.id), "3");
  EXPECT_EQ(version(member.id), "2");
}

// The ids of an active list's answer, in order.
std::vector<int64_t> active_ids(const HttpResponse& r) {
  std::vector<int64_t> ids;
  for (const cJSON* a = r["data"] ? r["data"]->child : nullptr; a != nullptr; a = a->next) {
    ids.push_back(json_get_int(a, "id").value_or(-1));
  }
  return ids;
}

TEST(AnnouncementsActive, AtMostTheFirst50InListOrderEvenAfterADismissal) {
  Tenant t = new_tenant();
  TestUser member = add_user(t.token, t.id, "MEMBER");
  // 53 active ones; the 11th and 21st have high priority.
  std::vector<int64_t> created;
  for (int i = 0; i < 53; ++i) {
    bool high = i == 10 || i == 20;
    created.push_back(create(t, R"({"title":"A)" + std::to_string(i) +
                                    R"(","type":"info","status":"published","priority":)" +
                                    (high ? "1" : "0") + "}"));
  }
  ASSERT_FALSE(HasFailure());
  // Priority first, then newest first.
  std::vector<int64_t> order = {created[20], created[10]};
  for (int i = 52; i >= 0; --i) {
    if (i != 10 && i != 20) order.push_back(created[i]);
  }
  const std::vector<int64_t> first50(order.begin(), order.begin() + 50);
  auto member_get = [&] {
    return http("GET", kBase + "/active", {.token = member.token, .tenant = t.header});
  };
  // From the database, then from the list the process keeps.
  for (int pass = 0; pass < 2; ++pass) {
    HttpResponse r = get(t, kBase + "/active");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(active_ids(r), first50) << "pass " << pass;
    EXPECT_EQ(active_ids(member_get()), first50) << "pass " << pass;
  }
  // The caller who dismisses one of them sees the 51st in its place; others
  // still see the first 50.
  ASSERT_EQ(post(t, path_of(order[2], "/dismiss"), "").status, 200);
  std::vector<int64_t> after(order.begin(), order.begin() + 51);
  after.erase(after.begin() + 2);
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(active_ids(get(t, kBase + "/active")), after) << "pass " << pass;
    EXPECT_EQ(active_ids(member_get()), first50) << "pass " << pass;
  }
}

// --- read and dismiss -----------------------------------------------------------

TEST(AnnouncementsReadState, ReadIsIdempotentAndDismissAlsoMarksRead) {
  Tenant t = new_tenant();
  Caller me = admin_caller();
  int64_t id = create(t, R"({"title":"R","type":"info","status":"published"})");
  std::string key = "tenant_id = " + t.header + " AND announcement_id = " + to_string(id) +
                    " AND user_id = " + to_string(me.id);
  auto state = [&] {
    return sql_one(
        "SELECT ca_ts(read_at) || '|' || dismissed || '|' || "
        "coalesce(ca_ts(dismissed_at), '-') FROM announcement_reads WHERE " +
        key);
  };

  ASSERT_EQ(post(t, path_of(id, "/read"), "").status, 200);
  std::string first = state();
  ASSERT_EQ(first.substr(first.find('|')), "|false|-");
  ASSERT_EQ(post(t, path_of(id, "/read"), "").status, 200);
  EXPECT_EQ(state(), first) << "a second read keeps the first read_at";

  ASSERT_EQ(post(t, path_of(id, "/dismiss"), "").status, 200);
  std::string dismissed = state();
  EXPECT_EQ(dismissed.substr(0, dismissed.find('|')), first.substr(0, first.find('|')));
  EXPECT_NE(dismissed.find("|true|"), std::string::npos) << dismissed;
  ASSERT_EQ(post(t, path_of(id, "/dismiss"), "").status, 200);
  EXPECT_EQ(state(), dismissed) << "a second dismissal keeps the first dismissed_at";
  ASSERT_EQ(post(t, path_of(id, "/read"), "").status, 200);
  EXPECT_EQ(state(), dismissed) << "reading again does not undo the dismissal";
  EXPECT_TRUE(active_ids(t, t.token).empty());

  // Dismissing first creates a read record too.
  int64_t other = create(t, R"({"title":"R2","type":"info","status":"published"})");
  ASSERT_EQ(post(t, path_of(other, "/dismiss"), "").status, 200);
  auto rows =
      sql("SELECT (read_at IS NOT NULL) || '|' || dismissed || '|' || "
          "(dismissed_at IS NOT NULL) FROM announcement_reads WHERE announcement_id = " +
          to_string(other) + " AND tenant_id = " + t.header);
  EXPECT_EQ(rows, std::vector<std::string>{"true|true|true"});
}

TEST(AnnouncementsReadState, MissingOrOtherTenantsAnnouncementIs404) {
  Tenant t = new_tenant();
  // The same admin is a member of both tenants: the header decides the scope.
  Tenant other{t.token, create_tenant(t.token, unique("ann-other")), ""};
  other.header = to_string(other.id);
  int64_t foreign = create(other, R"({"title":"F","type":"info","status":"published"})");
  const std::string not_found = R"({"success":false,"message":"Announcement not found"})";
  for (int64_t id : {foreign, int64_t{999999999}}) {
    SCOPED_TRACE(id);
    for (const char* action : {"/read", "/dismiss"}) {
      HttpResponse r = post(t, path_of(id, action), "");
      EXPECT_EQ(r.status, 404) << r.body;
      EXPECT_TRUE(json_eq(r.json.get(), not_found));
    }
    HttpResponse r = get(t, path_of(id));
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), not_found));
    r = post(t, path_of(id), R"({"title":"Hijack"})");
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), not_found));
    r = http("DELETE", path_of(id), {.token = t.token, .tenant = t.header});
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_TRUE(json_eq(r.json.get(), not_found));
  }
  // The other tenant's announcement is untouched.
  HttpResponse r = get(other, path_of(foreign));
  EXPECT_EQ(data_str(r, "title"), "F");
  EXPECT_EQ(data_str(r, "status"), "published");
  EXPECT_EQ(sql("SELECT count(*) FROM announcement_reads WHERE announcement_id = " +
                to_string(foreign))[0],
            "0");
}

TEST(AnnouncementsReadState, ConcurrentReadsAndDismissalsMakeOneRecord) {
  Tenant t = new_tenant();
  int64_t id = create(t, R"({"title":"C","type":"info","status":"published"})");
  constexpr int kCalls = 24;
  std::vector<long> statuses(kCalls);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCalls; ++i) {
    threads.emplace_back([&, i] {
      statuses[i] = post(t, path_of(id, i % 3 == 0 ? "/dismiss" : "/read"), "").status;
    });
  }
  for (std::thread& th : threads) th.join();
  for (int i = 0; i < kCalls; ++i) EXPECT_EQ(statuses[i], 200) << "call " << i;
  EXPECT_EQ(sql("SELECT count(*) || '|' || bool_and(dismissed) FROM announcement_reads WHERE "
                "tenant_id = " +
                t.header + " AND announcement_id = " + to_string(id))[0],
            "1|true");
}

// --- update and archive ---------------------------------------------------------

TEST(AnnouncementsUpdate, ChangesOnlyTheFieldsSent) {
  Tenant t = new_tenant();
  HttpResponse created = post(t, kBase, R"({"title":"Before","summary":"S","content":"C",
      "type":"info","status":"draft","topic":"news","push_data":{"a":1},
      "expires_at":"2031-01-01T00:00:00Z"})");
  ASSERT_EQ(created.status, 201) << created.body;
  int64_t id = json_get_int(created["data"], "id").value_or(-1);

  HttpResponse r = post(t, path_of(id), R"({"title":"After","topic":null,"push_data":{"b":2}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(keys_of(r.json.get()), sorted({"success", "message", "data"}));
  EXPECT_EQ(r.str("message"), "Announcement updated");
  EXPECT_EQ(keys_of(r["data"]), kFullKeys);
  // Everything else is as it was.
  Json before = without(created["data"], {"title", "topic", "push_data", "updated_at"});
  Json after = without(r["data"], {"title", "topic", "push_data", "updated_at"});
  EXPECT_TRUE(json_eq(after.get(), json_dump(before.get())));
  EXPECT_EQ(data_str(r, "title"), "After");
  EXPECT_TRUE(cJSON_IsNull(json_get(r["data"], "topic")));
  EXPECT_TRUE(json_eq(json_get(r["data"], "push_data"), R"({"b":2})"));
  EXPECT_GT(data_str(r, "updated_at"), data_str(created, "updated_at"));
  EXPECT_TRUE(json_eq(get(t, path_of(id))["data"], json_dump(r["data"])));

  // Field rules are the create rules; every failing field at once.
  r = post(t, path_of(id), R"({"title":"","type":"news","priority":5,"status":null,
      "expires_at":"2026-02-30"})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success":false,"errors":{
      "title":["The title field must not be empty."],
      "type":["The selected type is invalid."],
      "priority":["The priority field must not be greater than 1."],
      "status":["The status field must not be null."],
      "expires_at":["The expires_at field must be a valid ISO 8601 date-time such as 2026-12-01T10:00:00Z."]}})"));
  r = post(t, path_of(id), "{}");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(data_str(r, "title"), "After");
}

TEST(AnnouncementsUpdate, ValidatesTheMergedRecord) {
  Tenant t = new_tenant();
  int64_t id = create(t, R"({"title":"M","type":"info","status":"draft",
      "scheduled_at":"2031-01-01T00:00:00Z"})");
  // expires_at must follow the stored scheduled_at.
  HttpResponse r = post(t, path_of(id), R"({"expires_at":"2030-01-01T00:00:00Z"})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r["errors"], R"({"expires_at":[
      "The expires_at field must be a date-time after scheduled_at."]})"));
  // Clearing scheduled_at while moving to scheduled.
  r = post(t, path_of(id), R"({"status":"scheduled","scheduled_at":null})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r["errors"], R"({"scheduled_at":[
      "The scheduled_at field is required when status is scheduled."]})"));
  // The stored scheduled_at satisfies the rule.
  r = post(t, path_of(id), R"({"status":"scheduled"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(data_str(r, "status"), "scheduled");
  // An attachment type needs a URL, stored or sent.
  r = post(t, path_of(id), R"({"attachment_type":"image"})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_TRUE(json_eq(r["errors"], R"({"attachment_url":[
      "The attachment_url field is required when attachment_type is set."]})"));
  r = post(t, path_of(id), R"({"attachment_type":"image","attachment_url":"https://e.com/i.png"})");
  ASSERT_EQ(r.status, 200) << r.body;
  // Targets: switching to users needs ids; back to all clears the stored value.
  r = post(t, path_of(id), R"({"target_type":"users"})");
  ASSERT_EQ(r.status, 422) << r.body;
  std::vector<std::string> m = new_members(t, 2);
  r = post(t, path_of(id),
           R"({"target_type":"users","target_value":")" + m[0] + "," + m[1] + "\"}");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(data_str(r, "target_value"), m[0] + "," + m[1]);
  r = post(t, path_of(id), R"({"target_type":"all"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(cJSON_IsNull(json_get(r["data"], "target_value")));

  // Validation comes before existence: a bad body on a missing id is a 422.
  r = post(t, path_of(999999999), R"({"type":"news"})");
  EXPECT_EQ(r.status, 422) << r.body;
  r = post(t, path_of(999999999), R"({"type":"alert"})");
  EXPECT_EQ(r.status, 404) << r.body;
}

TEST(AnnouncementsUpdate, StatusMovesFollowTheLifecycle) {
  Tenant t = new_tenant();
  const std::vector<std::string> statuses = {"draft", "scheduled", "published", "archived"};
  const std::vector<std::pair<std::string, std::string>> allowed = {
      {"draft", "draft"},        {"draft", "scheduled"},     {"draft", "published"},
      {"draft", "archived"},     {"scheduled", "scheduled"}, {"scheduled", "published"},
      {"scheduled", "draft"},    {"scheduled", "archived"},  {"published", "published"},
      {"published", "archived"}, {"archived", "archived"},
  };
  for (const std::string& from : statuses) {
    for (const std::string& to : statuses) {
      SCOPED_TRACE(from + " -> " + to);
      int64_t id = create(t, R"({"title":"S","type":"info","status":")" + from +
                                 R"(","scheduled_at":"2031-01-01T00:00:00Z"})");
      HttpResponse r = post(t, path_of(id), R"({"status":")" + to + "\"}");
      bool ok =
          std::find(allowed.begin(), allowed.end(), std::make_pair(from, to)) != allowed.end();
      if (ok) {
        EXPECT_EQ(r.status, 200) << r.body;
        EXPECT_EQ(data_str(r, "status"), to);
      } else {
        EXPECT_EQ(r.status, 422) << r.body;
        std::string message = "The status cannot change from " + from + " to " + to +
                              (from == "archived" ? "; archived is final." : ".");
        EXPECT_TRUE(json_eq(
            r.json.get(), R"({"success":false,"errors":{"status":[)" + json_text(message) + "]}}"));
        EXPECT_EQ(data_str(get(t, path_of(id)), "status"), from);
      }
    }
  }
}

TEST(AnnouncementsUpdate, PushSettingFollowsIsPushEnabledUntilSent) {
  Tenant t = new_tenant();
  int64_t id = create(t, R"({"title":"P","type":"info","status":"draft"})");
  HttpResponse r = post(t, path_of(id), R"({"is_push_enabled":true})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(data_str(r, "push_status"), "pending");
  r = post(t, path_of(id), R"({"is_push_enabled":false})");
  EXPECT_EQ(data_str(r, "push_status"), "skipped");
  r = post(t, path_of(id), R"({"is_push_enabled":true})");
  EXPECT_EQ(data_str(r, "push_status"), "pending");
  // Archiving drops a push that has not gone out.
  r = post(t, path_of(id), R"({"status":"archived"})");
  EXPECT_EQ(data_str(r, "push_status"), "skipped");
}

TEST(AnnouncementsDelete, ArchivesAndIsIdempotent) {
  Tenant t = new_tenant();
  int64_t id = create(t, R"({"title":"D","type":"info","status":"published",
      "is_push_enabled":true,"scheduled_at":"2031-01-01T00:00:00Z"})");
  ASSERT_EQ(active_ids(t, t.token), std::vector<int64_t>{});  // not yet active
  HttpResponse r = http("DELETE", path_of(id), {.token = t.token, .tenant = t.header});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(json_eq(r.json.get(), R"({"success":true,"message":"Announcement archived"})"));
  HttpResponse read = get(t, path_of(id));
  EXPECT_EQ(data_str(read, "status"), "archived");
  EXPECT_EQ(data_str(read, "push_status"), "skipped");
  std::string updated = data_str(read, "updated_at");

  r = http("DELETE", path_of(id), {.token = t.token, .tenant = t.header});
  ASSERT_EQ(r.status, 200) << r.body;
  read = get(t, path_of(id));
  EXPECT_EQ(data_str(read, "status"), "archived");
  EXPECT_EQ(data_str(read, "updated_at"), updated);
  // Still listed (archived is a status, not a deletion), and never active.
  HttpResponse list = get(t, kBase);
  EXPECT_EQ(json_get_int(list["data"], "total"), 1);

  int64_t live = create(t, R"({"title":"D2","type":"info","status":"published"})");
  ASSERT_EQ(active_ids(t, t.token), std::vector<int64_t>{live});
  ASSERT_EQ(http("DELETE", path_of(live), {.token = t.token, .tenant = t.header}).status, 200);
  EXPECT_TRUE(active_ids(t, t.token).empty());
}

// --- events -------------------------------------------------------------------

std::string published_events(const Tenant& t, int64_t id) {
  return sql("SELECT count(*) FROM events WHERE tenant_id = " + t.header +
             " AND type = 'announcement.published' AND payload->>'id' = '" + to_string(id) +
             "'")[0];
}

TEST(AnnouncementsEvents, BecomingPublishedWritesOneOutboxEventWithTheRecord) {
  Tenant t = new_tenant();
  HttpResponse r = post(t, kBase, R"({"title":"E","type":"info","status":"published"})");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t published = json_get_int(r["data"], "id").value_or(-1);
  EXPECT_EQ(published_events(t, published), "1");
  auto payload = sql("SELECT payload::text FROM events WHERE tenant_id = " + t.header +
                     " AND type = 'announcement.published' AND payload->>'id' = '" +
                     to_string(published) + "'");
  ASSERT_EQ(payload.size(), 1u);
  Json event = json_parse(payload[0]);
  EXPECT_TRUE(json_eq(event.get(), json_dump(r["data"])));

  int64_t draft = create(t, R"({"title":"E2","type":"info","status":"draft"})");
  EXPECT_EQ(published_events(t, draft), "0");
  ASSERT_EQ(post(t, path_of(draft), R"({"title":"E2 edited"})").status, 200);
  EXPECT_EQ(published_events(t, draft), "0");
  ASSERT_EQ(post(t, path_of(draft), R"({"status":"published"})").status, 200);
  EXPECT_EQ(published_events(t, draft), "1");
  // Editing a published announcement does not publish it again.
  ASSERT_EQ(post(t, path_of(draft), R"({"title":"E2 again","status":"published"})").status, 200);
  EXPECT_EQ(published_events(t, draft), "1");
  // A refused change writes nothing.
  ASSERT_EQ(post(t, path_of(draft), R"({"status":"draft"})").status, 422);
  EXPECT_EQ(published_events(t, draft), "1");
  // Published with a future scheduled_at: published (and its event written)
  // now, active only from scheduled_at on.
  int64_t later = create(t, R"({"title":"E3","type":"info","status":"published",
      "scheduled_at":")" + db_time_in(3600) +
                                "\"}");
  EXPECT_EQ(published_events(t, later), "1");
  std::vector<int64_t> active = active_ids(t, t.token);
  std::sort(active.begin(), active.end());
  EXPECT_EQ(active, (std::vector<int64_t>{published, draft}));
}

// --- worker: scheduled publishing and push ---------------------------------------

TEST(AnnouncementsWorker, PublishesADueScheduledAnnouncementAndPushesIt) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  Receiver gateway(port);
  Tenant t = new_tenant();
  std::string at = db_time_in(3);
  HttpResponse r = post(t, kBase,
                        R"({"title":"Soon","summary":"Sum","type":"info",
      "status":"scheduled","is_push_enabled":true,"scheduled_at":")" +
                            at + "\"}");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t id = json_get_int(r["data"], "id").value_or(-1);
  EXPECT_EQ(data_str(r, "status"), "scheduled");
  EXPECT_EQ(published_events(t, id), "0");

  Json rec = poll(t, id, [](const cJSON* a) { return field(a, "status") == "published"; });
  ASSERT_EQ(field(rec.get(), "status"), "published");
  EXPECT_EQ(published_events(t, id), "1");
  auto published_at =
      sql("SELECT published_at >= scheduled_at FROM announcements WHERE id = " + to_string(id) +
          " AND tenant_id = " + t.header);
  EXPECT_EQ(published_at, std::vector<std::string>{"t"});
  EXPECT_EQ(active_ids(t, t.token), std::vector<int64_t>{id});
  // The worker's UPDATE rendered the stored item again (sql/016).
  EXPECT_TRUE(json_eq(active_item(t, t.token, id).get(), expected_active(t, id, false, false)));

  rec = poll(t, id, [](const cJSON* a) { return field(a, "push_status") == "success"; });
  EXPECT_EQ(field(rec.get(), "push_status"), "success");
  std::vector<ReceivedRequest> got = pushes_for(gateway, id);
  ASSERT_EQ(got.size(), 1u);
  // No push_title / push_body: the title and the summary stand in.
  EXPECT_TRUE(json_eq(json_parse(got[0].body).get(),
                      R"({"title":"Soon","body":"Sum","data":{},"topic":null,
      "target_type":"all","target_value":"tenant_)" +
                          t.header + R"(","announcement_id":)" + to_string(id) +
                          R"(,"tenant_id":)" + t.header + "}"));
}

// No worker ran between scheduled_at and expires_at: the announcement is
// still published, with its event, but never active, and its push fails.
TEST(AnnouncementsWorker, PublishesAScheduledAnnouncementThatExpiredMeanwhile) {
  Tenant t = new_tenant();
  HttpResponse r = post(t, kBase,
                        R"({"title":"Missed","type":"info","status":"scheduled",
      "is_push_enabled":true,"scheduled_at":")" +
                            db_time_in(-120) + R"(","expires_at":")" + db_time_in(-60) + "\"}");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t id = json_get_int(r["data"], "id").value_or(-1);
  Json rec = poll(t, id, [](const cJSON* a) {
    return field(a, "status") == "published" && field(a, "push_status") == "failed";
  });
  ASSERT_EQ(field(rec.get(), "status"), "published");
  EXPECT_EQ(field(rec.get(), "push_status"), "failed");
  EXPECT_EQ(field(rec.get(), "push_error"), "announcement expired before the push was sent");
  EXPECT_EQ(published_events(t, id), "1");
  EXPECT_TRUE(active_ids(t, t.token).empty());
}

TEST(AnnouncementsPush, SendsToTheGatewayOnceAndRecordsSuccess) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  Receiver gateway(port);
  Tenant t = new_tenant();
  std::vector<std::string> m = new_members(t, 2);
  std::string targets = m[0] + "," + m[1];
  HttpResponse r = post(t, kBase, R"({"title":"Flash sale","summary":"S","type":"alert",
      "status":"published","is_push_enabled":true,"topic":"deals","push_title":"Sale!",
      "push_body":"Half price today","push_data":{"screen":"sale"},"target_type":"users",
      "target_value":")" + targets + R"("})");
  ASSERT_EQ(r.status, 201) << r.body;
  int64_t id = json_get_int(r["data"], "id").value_or(-1);
  EXPECT_EQ(data_str(r, "push_status"), "pending");

  Json rec = poll(t, id, [](const cJSON* a) {
    return field(a, "push_status") != "pending" && field(a, "push_status") != "sending";
  });
  ASSERT_EQ(field(rec.get(), "push_status"), "success");
  EXPECT_TRUE(is_ts(json_get(rec.get(), "sent_at")));
  EXPECT_TRUE(cJSON_IsNull(json_get(rec.get(), "push_error")));

  std::vector<ReceivedRequest> got = pushes_for(gateway, id);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].method, "POST");
  EXPECT_EQ(got[0].path, "/push");
  EXPECT_EQ(got[0].headers["content-type"], "application/json");
  EXPECT_EQ(got[0].headers["authorization"], "Bearer " + gateway_token());
  EXPECT_TRUE(json_eq(json_parse(got[0].body).get(),
                      R"({"title":"Sale!","body":"Half price today","data":{"screen":"sale"},
      "topic":"tenant_)" + t.header +
                          R"(.deals","target_type":"users","target_value":")" + targets +
                          R"(","announcement_id":)" + to_string(id) + R"(,"tenant_id":)" +
                          t.header + "}"));

  // A later, published one is sent too; the first is not sent again.
  int64_t second = create(t, R"({"title":"Next","type":"info","status":"published",
      "is_push_enabled":true})");
  rec = poll(t, second, [](const cJSON* a) { return field(a, "push_status") == "success"; });
  ASSERT_EQ(field(rec.get(), "push_status"), "success");
  EXPECT_EQ(pushes_for(gateway, id).size(), 1u);
  EXPECT_EQ(pushes_for(gateway, second).size(), 1u);
}

// Topics reach the gateway in the tenant's namespace ("tenant_<id>."
// prefixed, `all` as the tenant's root topic), so a tenant that writes
// another tenant's topic, prefix and all, still only names its own.
TEST(AnnouncementsPush, TopicsAreScopedToTheTenant) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  Receiver gateway(port);
  Tenant a = new_tenant();
  Tenant b = new_tenant();
  int64_t from_a =
      create(a, R"({"title":"A","type":"info","status":"published",
      "is_push_enabled":true,"topic":"tenant_)" +
                    b.header + R"(.news","target_type":"topic","target_value":"tenant_)" +
                    b.header + R"(.news"})");
  int64_t from_b = create(b, R"({"title":"B","type":"info","status":"published",
      "is_push_enabled":true,"topic":"news","target_type":"topic","target_value":"news"})");
  for (auto [t, id] : {std::pair{&a, from_a}, std::pair{&b, from_b}}) {
    Json rec = poll(*t, id, [](const cJSON* x) { return field(x, "push_status") == "success"; });
    ASSERT_EQ(field(rec.get(), "push_status"), "success");
    // The record keeps what the client wrote.
    EXPECT_EQ(field(rec.get(), "target_value"),
              id == from_a ? "tenant_" + b.header + ".news" : "news");
  }
  std::vector<ReceivedRequest> got = pushes_for(gateway, from_a);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, R"({"title":"A","body":"","data":{},"topic":"tenant_)" + a.header +
                             ".tenant_" + b.header +
                             R"(.news","target_type":"topic","target_value":"tenant_)" + a.header +
                             ".tenant_" + b.header + R"(.news","announcement_id":)" +
                             to_string(from_a) + R"(,"tenant_id":)" + a.header + "}");
  got = pushes_for(gateway, from_b);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, R"({"title":"B","body":"","data":{},"topic":"tenant_)" + b.header +
                             R"(.news","target_type":"topic","target_value":"tenant_)" + b.header +
                             R"(.news","announcement_id":)" + to_string(from_b) +
                             R"(,"tenant_id":)" + b.header + "}");
}

// A `users` target is narrowed, when the push goes out, to those still
// members of the tenant: a user removed after the announcement was written
// is not sent it, and with nobody left nothing is sent at all.
TEST(AnnouncementsPush, UsersWhoLeftTheTenantBeforeThePushAreNotSentIt) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  Receiver gateway(port);
  Tenant t = new_tenant();
  std::vector<std::string> m = new_members(t, 3);
  std::string at = db_time_in(3);
  auto scheduled = [&](const std::string& targets) {
    return create(t, R"({"title":"Later","type":"info","status":"scheduled",
        "is_push_enabled":true,"target_type":"users","target_value":")" +
                         targets + R"(","scheduled_at":")" + at + "\"}");
  };
  int64_t some_left = scheduled(m[0] + "," + m[1] + "," + m[2]);
  int64_t none_left = scheduled(m[1]);
  ASSERT_EQ(
      http("DELETE", "/api/v2/admin/team-members/" + t.header + "/" + m[1], {.token = t.token})
          .status,
      200);

  Json rec = poll(t, some_left, [](const cJSON* a) {
    return field(a, "push_status") != "pending" && field(a, "push_status") != "sending";
  });
  ASSERT_EQ(field(rec.get(), "push_status"), "success");
  std::vector<ReceivedRequest> got = pushes_for(gateway, some_left);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(field(json_parse(got[0].body).get(), "target_value"), m[0] + "," + m[2]);

  rec = poll(t, none_left, [](const cJSON* a) { return field(a, "push_status") == "failed"; });
  EXPECT_EQ(field(rec.get(), "push_status"), "failed");
  EXPECT_EQ(field(rec.get(), "push_error"), "no target user is a member of the tenant any more");
  EXPECT_TRUE(pushes_for(gateway, none_left).empty());
}

// A worker died while sending a push, and the announcement was archived
// (or its push turned off) before the lease ran out: nobody takes the push
// over, so it is failed, not left 'sending' for ever.
TEST(AnnouncementsPush, AnAbandonedPushOfAnArchivedAnnouncementIsFailed) {
  Tenant t = new_tenant();
  int64_t archived = create(t, R"({"title":"A","type":"info","status":"published"})");
  int64_t push_off = create(t, R"({"title":"B","type":"info","status":"published"})");
  std::string ids = to_string(archived) + ", " + to_string(push_off);
  sql("UPDATE announcements SET push_status = 'sending', push_claim = "
      "'5f0c1b6e-2d1a-4c55-9a51-0c1f5e2b7a10', "
      "push_lease_until = now() - interval '1 second', "
      "status = CASE WHEN id = " +
      to_string(archived) + " THEN 'archived' ELSE status END WHERE tenant_id = " + t.header +
      " AND id IN (" + ids + ")");
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  const std::string state =
      "SELECT push_status || ': ' || COALESCE(push_error, '') || ' ' || "
      "(push_claim IS NULL) FROM announcements WHERE tenant_id = " +
      t.header + " AND id IN (" + ids + ") ORDER BY id";
  const std::string failed =
      "failed: the worker stopped while sending; not retried: the announcement was archived or "
      "its push turned off true";
  std::vector<std::string> now;
  for (int i = 0; i < 200; ++i) {  // the stack's worker passes about every second
    now = sql(state);
    if (now == std::vector<std::string>{failed, failed}) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(now, (std::vector<std::string>{failed, failed}));
}

TEST(AnnouncementsPush, GatewayErrorIsRecordedAsFailed) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  Receiver gateway(port);
  gateway.set_fallback(Reply{.status = 500, .body = R"({"error":"boom"})"});
  Tenant t = new_tenant();
  int64_t id = create(t, R"({"title":"F","type":"info","status":"published",
      "is_push_enabled":true})");
  Json rec = poll(t, id, [](const cJSON* a) { return field(a, "push_status") == "failed"; });
  ASSERT_EQ(field(rec.get(), "push_status"), "failed");
  EXPECT_EQ(field(rec.get(), "push_error"), "push gateway answered 500");
  EXPECT_TRUE(cJSON_IsNull(json_get(rec.get(), "sent_at")));
  EXPECT_EQ(pushes_for(gateway, id).size(), 1u);
}

TEST(AnnouncementsPush, UnreachableGatewayIsRecordedAsFailed) {
  // Nothing listens on the gateway port during this test.
  Tenant t = new_tenant();
  int64_t id = create(t, R"({"title":"U","type":"info","status":"published",
      "is_push_enabled":true})");
  Json rec = poll(t, id, [](const cJSON* a) { return field(a, "push_status") == "failed"; });
  ASSERT_EQ(field(rec.get(), "push_status"), "failed");
  std::string error = field(rec.get(), "push_error");
  EXPECT_EQ(error.rfind("push gateway unreachable: ", 0), 0u) << error;
  EXPECT_GT(error.size(), std::string("push gateway unreachable: ").size());
  EXPECT_TRUE(cJSON_IsNull(json_get(rec.get(), "sent_at")));
}

TEST(AnnouncementsPush, OnlyPublishedActiveAnnouncementsWithPushOnAreSent) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  Receiver gateway(port);
  Tenant t = new_tenant();
  std::string past = db_time_in(-60), future = db_time_in(3600);
  int64_t draft =
      create(t, R"({"title":"D","type":"info","status":"draft","is_push_enabled":true})");
  int64_t off = create(t, R"({"title":"O","type":"info","status":"published"})");
  int64_t expired = create(t, R"({"title":"X","type":"info","status":"published",
      "is_push_enabled":true,"expires_at":")" +
                                  past + "\"}");
  int64_t later = create(t, R"({"title":"L","type":"info","status":"published",
      "is_push_enabled":true,"scheduled_at":")" +
                                future + "\"}");
  // Sent after the others were created: once it is done, the worker has looked at them.
  int64_t marker = create(t, R"({"title":"M","type":"info","status":"published",
      "is_push_enabled":true})");
  Json rec = poll(t, marker, [](const cJSON* a) { return field(a, "push_status") == "success"; });
  ASSERT_EQ(field(rec.get(), "push_status"), "success");
  rec = poll(t, expired, [](const cJSON* a) { return field(a, "push_status") == "failed"; });
  EXPECT_EQ(field(rec.get(), "push_status"), "failed");
  EXPECT_EQ(field(rec.get(), "push_error"), "announcement expired before the push was sent");

  EXPECT_EQ(data_str(get(t, path_of(draft)), "push_status"), "pending");
  EXPECT_EQ(data_str(get(t, path_of(off)), "push_status"), "skipped");
  EXPECT_EQ(data_str(get(t, path_of(later)), "push_status"), "pending");
  for (int64_t id : {draft, off, expired, later}) {
    EXPECT_TRUE(pushes_for(gateway, id).empty()) << id;
  }
}

TEST(AnnouncementsPush, AClaimedPushIsLeftAloneUntilItsLeaseRunsOut) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  Receiver gateway(port);
  Tenant t = new_tenant();
  // Held by another (simulated) worker whose lease is still running: not sent.
  int64_t held =
      create(t, R"({"title":"H","type":"info","status":"draft","is_push_enabled":true})");
  std::string where = " WHERE tenant_id = " + t.header + " AND id = " + to_string(held);
  // A literal claim: Citus refuses gen_random_uuid() in an UPDATE.
  sql("UPDATE announcements SET status = 'published', push_status = 'sending', "
      "push_claim = '5f0c1b6e-2d1a-4c55-9a51-0c1f5e2b7a11', "
      "push_lease_until = now() + interval '1 hour'" +
      where);
  sql("SELECT ca_recount(" + t.header + ")");  // written by hand (sql/032)
  int64_t marker = create(t, R"({"title":"M","type":"info","status":"published",
      "is_push_enabled":true})");
  Json rec = poll(t, marker, [](const cJSON* a) { return field(a, "push_status") == "success"; });
  ASSERT_EQ(field(rec.get(), "push_status"), "success");
  EXPECT_EQ(data_str(get(t, path_of(held)), "push_status"), "sending");
  EXPECT_TRUE(pushes_for(gateway, held).empty());

  // The lease ran out (its worker died): the next pass takes it over and sends it.
  sql("UPDATE announcements SET push_lease_until = now() - interval '1 second'" + where);
  rec = poll(t, held, [](const cJSON* a) { return field(a, "push_status") == "success"; });
  ASSERT_EQ(field(rec.get(), "push_status"), "success");
  EXPECT_EQ(pushes_for(gateway, held).size(), 1u);
  EXPECT_EQ(sql("SELECT (push_claim IS NULL) || '|' || (push_lease_until IS NULL) FROM "
                "announcements" +
                where),
            std::vector<std::string>{"true|true"});
}

// announcement id -> push_status of every announcement of the tenant (at most 50).
std::map<int64_t, std::string> push_statuses(const Tenant& t) {
  std::map<int64_t, std::string> out;
  HttpResponse r = get(t, kBase + "?per_page=50");
  EXPECT_EQ(r.status, 200) << r.body;
  const cJSON* rows = json_get(r["data"], "data");
  for (const cJSON* a = rows ? rows->child : nullptr; a != nullptr; a = a->next) {
    out[json_get_int(a, "id").value_or(-1)] = field(a, "push_status");
  }
  return out;
}

TEST(AnnouncementsPush, TwoWorkersAtOnceSendEachPushExactlyOnce) {
  int port = gateway_port();
  ASSERT_NE(port, 0);
  // Paused before the gateway listens, so the stack's worker cannot be
  // stopped halfway through a request to it (which would stall the gateway).
  StackWorkerPause pause;
  ASSERT_FALSE(::testing::Test::HasFailure()) << "the stack's worker must be paused";
  // Every worker's push lands here, one request at a time. The first answers
  // come at once, so the two workers' claim statements run at the same
  // moments (a claim that does not lock its row sends twice); the last ones
  // after 50 ms, so sends are still in flight when no pending row is left (a
  // claim that takes a row another worker holds sends twice).
  constexpr int kCount = 20;
  Receiver gateway(port);
  gateway.script(std::vector<Reply>(kCount * 3 / 4, Reply{.status = 200}));
  gateway.set_fallback(Reply{.status = 200, .delay_ms = 50});
  Tenant t = new_tenant();

  std::set<int64_t> ids;
  for (int i = 0; i < kCount; ++i) {
    HttpResponse r = post(t, kBase,
                          R"({"title":"Race )" + std::to_string(i) +
                              R"(","type":"info","status":"published",
        "is_push_enabled":true})");
    ASSERT_EQ(r.status, 201) << r.body;
    ids.insert(json_get_int(r["data"], "id").value_or(-1));
  }
  ASSERT_EQ(ids.size(), static_cast<size_t>(kCount));
  // Nothing went out while no worker ran.
  std::map<int64_t, std::string> statuses = push_statuses(t);
  ASSERT_EQ(statuses.size(), static_cast<size_t>(kCount));
  for (const auto& [id, status] : statuses) EXPECT_EQ(status, "pending") << id;
  for (const ReceivedRequest& r : gateway.requests()) {
    EXPECT_NE(json_get_int(json_parse(r.body).get(), "tenant_id"), t.id)
        << "sent before any worker ran: " << r.body;
  }

  // Both start at once and race for the same 20 pending rows.
  const std::map<std::string, std::string> env{{"PUSH_GATEWAY_URL", gateway.url("/push")}};
  WorkerProcess a(env), b(env);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto all_sent = [&] {
    return std::all_of(statuses.begin(), statuses.end(),
                       [](const auto& s) { return s.second == "success"; });
  };
  while (true) {
    statuses = push_statuses(t);
    if (all_sent() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const auto& [id, status] : statuses) EXPECT_EQ(status, "success") << id;
  // Their passes end, so a second send still in flight would have arrived by now.
  EXPECT_TRUE(a.stop()) << "the first worker did not run to the end";
  EXPECT_TRUE(b.stop()) << "the second worker did not run to the end";
  std::printf("pushes processed by the two workers: %d and %d\n", a.processed("push notifications"),
              b.processed("push notifications"));

  // Exactly one request per announcement of this tenant.
  std::map<int64_t, int> sent;
  for (const ReceivedRequest& r : gateway.requests()) {
    Json body = json_parse(r.body);
    if (json_get_int(body.get(), "tenant_id") != t.id) continue;
    EXPECT_EQ(r.path, "/push");
    ++sent[json_get_int(body.get(), "announcement_id").value_or(-1)];
  }
  EXPECT_EQ(sent.size(), static_cast<size_t>(kCount));
  for (const auto& [id, n] : sent) {
    EXPECT_EQ(n, 1) << "announcement " << id << " was pushed " << n << " times";
    EXPECT_EQ(ids.count(id), 1u) << "unexpected announcement " << id;
  }
  // Every claim was released by its holder with the outcome.
  EXPECT_EQ(sql("SELECT count(*) FROM announcements WHERE tenant_id = " + t.header +
                " AND push_status = 'success' AND sent_at IS NOT NULL AND push_claim IS NULL"
                " AND push_lease_until IS NULL"),
            std::vector<std::string>{std::to_string(kCount)});
}

}  // namespace
}  // namespace ca::test
