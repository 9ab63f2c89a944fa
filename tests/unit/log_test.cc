#include "log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "error.h"
#include "json.h"

namespace ca {
namespace {

// What `write` printed on stderr.
template <class Write>
std::string captured_stderr(Write&& write) {
  std::fflush(stderr);
  int saved = dup(2);
  FILE* tmp = std::tmpfile();
  dup2(fileno(tmp), 2);
  write();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string out;
  std::rewind(tmp);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) out.append(buf, n);
  std::fclose(tmp);
  return out;
}

// Restores the process-wide settings a test changes.
struct LogSettings {
  ~LogSettings() {
    log_set_format(LogFormat::kText);
    log_set_level(LogLevel::kInfo);
    log_set_program("commerce-admin");
    log_request_end();
  }
};

TEST(LogTest, ParsesTheFormats) {
  LogFormat f;
  EXPECT_TRUE(log_parse_format("json", &f));
  EXPECT_EQ(f, LogFormat::kJson);
  EXPECT_TRUE(log_parse_format("text", &f));
  EXPECT_EQ(f, LogFormat::kText);
  EXPECT_FALSE(log_parse_format("JSON", &f));
  EXPECT_FALSE(log_parse_format("", &f));
}

TEST(LogTest, TextLinesKeepTheirFormatAndNameTheRequest) {
  LogSettings restore;
  log_set_program("prog");
  EXPECT_EQ(captured_stderr([] { log_warn("disk %d%% full", 90); }),
            "prog: warning: disk 90% full\n");
  log_request_begin("abc-1");
  Json fields = json_object();
  json_add_int(fields.get(), "status", 200);
  json_add_str(fields.get(), "route", "/x/{id}");
  EXPECT_EQ(captured_stderr([&] { log_fields(LogLevel::kInfo, "request", fields.get()); }),
            "prog: info: request status=200 route=/x/{id} request_id=abc-1\n");
  log_request_end();
  EXPECT_EQ(captured_stderr([] { log_error("after"); }), "prog: error: after\n");
  // Below the level: nothing.
  EXPECT_EQ(captured_stderr([] { log_debug("hidden"); }), "");
}

TEST(LogTest, JsonLinesAreOneObjectWithTheRequestIdAndFields) {
  LogSettings restore;
  log_set_program("prog");
  log_set_format(LogFormat::kJson);
  log_request_begin("abc-2");
  Json fields = json_object();
  json_add_int(fields.get(), "tenant_id", 7);
  json_add_num(fields.get(), "duration_ms", 1.5);
  std::string text =
      captured_stderr([&] { log_fields(LogLevel::kWarn, "quote \" and\nnewline", fields.get()); });
  ASSERT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line: " << text;
  Json line = json_parse(text.substr(0, text.size() - 1));
  ASSERT_TRUE(line) << text;
  std::string time(json_get_str(line.get(), "time").value_or(""));
  EXPECT_EQ(time.size(), 24u) << time;  // 2026-11-25T00:01:02.123Z
  EXPECT_EQ(time.back(), 'Z');
  cJSON_DeleteItemFromObject(line.get(), "time");
  EXPECT_EQ(json_dump(line.get()),
            R"({"level":"warning","program":"prog","request_id":"abc-2",)"
            R"("message":"quote \" and\nnewline","tenant_id":7,"duration_ms":1.5})");
  log_request_end();
  Json plain = json_parse(captured_stderr([] { log_info("no request"); }));
  ASSERT_TRUE(plain);
  EXPECT_EQ(json_get(plain.get(), "request_id"), nullptr);
  EXPECT_EQ(json_get_str(plain.get(), "message").value_or(""), "no request");
}

TEST(LogTest, AFiveHundredBodyNamesTheRequestId) {
  LogSettings restore;
  captured_stderr([] {
    log_request_begin("req-500");
    Response plain = render(Error::internal("boom"), ErrorStyle::kPlain);
    EXPECT_EQ(plain.body, R"({"error":"Internal server error","request_id":"req-500"})");
    Response success = render(Error::internal("boom"), ErrorStyle::kSuccess);
    EXPECT_EQ(success.body,
              R"({"success":false,"message":"Internal server error","error":"The request could )"
              R"(not be completed; nothing was saved.","request_id":"req-500"})");
    log_request_end();
  });
}

}  // namespace
}  // namespace ca
