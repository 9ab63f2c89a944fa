// Logging to stderr, one line per message (journald adds the time and unit).
// Thread-safe: each message is written with a single fprintf.
#pragma once

namespace ca {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

void log_set_level(LogLevel level);
// Parses "debug", "info", "warn", "error"; false when unknown.
bool log_parse_level(const char* text, LogLevel* out);
void log_set_program(const char* name);

void log_debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ca
