// Logging to stderr, one line per message (journald adds the time and unit).
// Thread-safe: each message is written with a single fprintf.
//
// Two formats (LOG_FORMAT, common/config.cc): `text`, "program: level:
// message", with " request_id=<id>" appended while the thread serves a
// request; and `json`, one object per line: {time, level, program,
// request_id?, message, ...fields} (encoded by cJSON). Nothing logged may
// hold a token, password, secret or webhook URL (tests/integration/
// observability_test.cc checks the stack's logs).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "json.h"

namespace ca {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
enum class LogFormat { kText, kJson };

void log_set_level(LogLevel level);
bool log_enabled(LogLevel level);
// Parses "debug", "info", "warn", "error"; false when unknown.
bool log_parse_level(const char* text, LogLevel* out);
void log_set_format(LogFormat format);
LogFormat log_format();
// Parses "text", "json"; false when unknown.
bool log_parse_format(const char* text, LogFormat* out);
void log_set_program(const char* name);

// "<3>", "<4>", "<6>" or "<7>" when stderr is the journal (JOURNAL_STREAM
// names it), else "": the syslog priority journald reads from the start of
// a line (sd-daemon(3)). Every line of this logger starts with it; a line
// written to stderr without it (a start-up error) must too.
const char* log_priority_prefix(LogLevel level);

void log_debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// True at most once a second per `last_logged` (a static of the caller's):
// for a line about a condition that repeats per request or connection.
bool once_a_second(std::atomic<int64_t>& last_logged);

// A line with named fields: in json mode they are members of the line's
// object (after `message`); in text mode "message key=value ...". `fields`
// is an object of strings and numbers (nullptr: none).
void log_fields(LogLevel level, std::string_view message, const cJSON* fields);

// What the serve loop knows of the request this thread serves, for its log
// lines and its per-request line. Filled by the serve loop (id, route), by
// common/auth.cc (user, tenant) and common/db.cc (database time).
struct LogRequestContext {
  std::string request_id;  // empty: no request (the worker, start-up)
  const char* route = nullptr;
  int64_t tenant_id = 0;
  int64_t user_id = 0;
  int64_t api_key_id = 0;  // the API key the request came with (common/auth.cc)
  // What became of that key's request (metrics.h, ApiKeyOutcome); kNone
  // without a key.
  int api_key_outcome = 0;
  std::chrono::nanoseconds db_time{0};
  int db_round_trips = 0;  // to PostgreSQL, a statement's first Parse included
};

// This thread's context.
LogRequestContext& log_request_context();
// Starts a request with that id (the previous one's context is cleared).
void log_request_begin(std::string_view request_id);
// Ends it: later lines of the thread carry no request id.
void log_request_end();

}  // namespace ca
