#include "log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace ca {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
const char* g_program = "commerce-admin";

void vlog(LogLevel level, const char* tag, const char* fmt, va_list ap) {
  if (static_cast<int>(level) < g_level.load(std::memory_order_relaxed)) return;
  char line[2048];
  vsnprintf(line, sizeof line, fmt, ap);
  std::fprintf(stderr, "%s: %s: %s\n", g_program, tag, line);
}

}  // namespace

void log_set_level(LogLevel level) { g_level.store(static_cast<int>(level)); }
void log_set_program(const char* name) { g_program = name; }

bool log_parse_level(const char* text, LogLevel* out) {
  struct {
    const char* name;
    LogLevel level;
  } const kLevels[] = {{"debug", LogLevel::kDebug},
                       {"info", LogLevel::kInfo},
                       {"warn", LogLevel::kWarn},
                       {"error", LogLevel::kError}};
  for (const auto& l : kLevels) {
    if (std::strcmp(text, l.name) == 0) {
      *out = l.level;
      return true;
    }
  }
  return false;
}

#define CA_DEFINE_LOG(fn, level, tag) \
  void fn(const char* fmt, ...) {     \
    va_list ap;                       \
    va_start(ap, fmt);                \
    vlog(level, tag, fmt, ap);        \
    va_end(ap);                       \
  }

CA_DEFINE_LOG(log_debug, LogLevel::kDebug, "debug")
CA_DEFINE_LOG(log_info, LogLevel::kInfo, "info")
CA_DEFINE_LOG(log_warn, LogLevel::kWarn, "warning")
CA_DEFINE_LOG(log_error, LogLevel::kError, "error")

}  // namespace ca
