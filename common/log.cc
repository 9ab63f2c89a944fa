#include "log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace ca {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::atomic<int> g_format{static_cast<int>(LogFormat::kText)};
const char* g_program = "commerce-admin";
thread_local LogRequestContext t_request;

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

// UTC with milliseconds: 2026-11-25T00:01:02.123Z.
void format_time(char (&out)[32]) {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  tm utc{};
  gmtime_r(&ts.tv_sec, &utc);
  size_t n = std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(out + n, sizeof out - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

// Whether stderr is a stream to the journal: systemd sets JOURNAL_STREAM to
// its device and inode ("dev:ino") when it connects a service's stderr
// there (systemd.exec(5)); a stderr redirected elsewhere does not match.
bool stderr_is_journal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  struct stat st {};
  if (stream == nullptr || fstat(STDERR_FILENO, &st) != 0) return false;
  unsigned long long dev = 0, ino = 0;
  return std::sscanf(stream, "%llu:%llu", &dev, &ino) == 2 && dev == st.st_dev && ino == st.st_ino;
}

// The syslog priority prefix journald reads from the start of a line
// (sd-daemon(3), SyslogLevelPrefix=): without it every line is stored at
// the unit's SyslogLevel, info, and `journalctl -p warning` or a
// severity-based forwarder misses every warning and error. Only when
// writing to the journal: in a terminal or a file it would be noise.
}  // namespace

const char* log_priority_prefix(LogLevel level) {
  static const bool journal = stderr_is_journal();
  if (!journal) return "";
  switch (level) {
    case LogLevel::kDebug:
      return "<7>";
    case LogLevel::kInfo:
      return "<6>";
    case LogLevel::kWarn:
      return "<4>";
    case LogLevel::kError:
      return "<3>";
  }
  return "<6>";
}

namespace {

// One line, one fprintf, in the configured format.
void emit(LogLevel level, std::string_view message, const cJSON* fields) {
  const char* prefix = log_priority_prefix(level);
  if (log_format() == LogFormat::kJson) {
    char time[32];
    format_time(time);
    Json line = json_object();
    json_add_str(line.get(), "time", time);
    json_add_str(line.get(), "level", level_name(level));
    json_add_str(line.get(), "program", g_program);
    if (!t_request.request_id.empty()) {
      json_add_str(line.get(), "request_id", t_request.request_id);
    }
    json_add_str(line.get(), "message", message);
    for (const cJSON* f = fields ? fields->child : nullptr; f != nullptr; f = f->next) {
      json_add_copied_key(line.get(), f->string, Json(cJSON_Duplicate(f, true)));
    }
    std::string text = json_dump(line.get());
    std::fprintf(stderr, "%s%s\n", prefix, text.c_str());
    return;
  }
  std::string text(message);
  for (const cJSON* f = fields ? fields->child : nullptr; f != nullptr; f = f->next) {
    text += ' ';
    text += f->string;
    text += '=';
    text += cJSON_IsString(f) ? std::string(f->valuestring) : json_dump(f);
  }
  if (!t_request.request_id.empty()) {
    std::fprintf(stderr, "%s%s: %s: %s request_id=%s\n", prefix, g_program, level_name(level),
                 text.c_str(), t_request.request_id.c_str());
  } else {
    std::fprintf(stderr, "%s%s: %s: %s\n", prefix, g_program, level_name(level), text.c_str());
  }
}

void vlog(LogLevel level, const char* fmt, va_list ap) {
  if (!log_enabled(level)) return;
  char line[2048];
  vsnprintf(line, sizeof line, fmt, ap);
  emit(level, line, nullptr);
}

}  // namespace

void log_set_level(LogLevel level) { g_level.store(static_cast<int>(level)); }
bool log_enabled(LogLevel level) {
  return static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}
void log_set_format(LogFormat format) { g_format.store(static_cast<int>(format)); }
LogFormat log_format() { return static_cast<LogFormat>(g_format.load(std::memory_order_relaxed)); }
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

bool log_parse_format(const char* text, LogFormat* out) {
  if (std::strcmp(text, "text") == 0) {
    *out = LogFormat::kText;
  } else if (std::strcmp(text, "json") == 0) {
    *out = LogFormat::kJson;
  } else {
    return false;
  }
  return true;
}

void log_fields(LogLevel level, std::string_view message, const cJSON* fields) {
  if (log_enabled(level)) emit(level, message, fields);
}

LogRequestContext& log_request_context() { return t_request; }

void log_request_begin(std::string_view request_id) {
  t_request.request_id.assign(request_id);
  t_request.route = nullptr;
  t_request.tenant_id = 0;
  t_request.user_id = 0;
  t_request.api_key_id = 0;
  t_request.api_key_outcome = 0;
  t_request.db_time = std::chrono::nanoseconds(0);
  t_request.db_round_trips = 0;
}

void log_request_end() { t_request.request_id.clear(); }

#define CA_DEFINE_LOG(fn, level)  \
  void fn(const char* fmt, ...) { \
    va_list ap;                   \
    va_start(ap, fmt);            \
    vlog(level, fmt, ap);         \
    va_end(ap);                   \
  }

CA_DEFINE_LOG(log_debug, LogLevel::kDebug)
CA_DEFINE_LOG(log_info, LogLevel::kInfo)
CA_DEFINE_LOG(log_warn, LogLevel::kWarn)
CA_DEFINE_LOG(log_error, LogLevel::kError)

bool once_a_second(std::atomic<int64_t>& last_logged) {
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  return last_logged.exchange(now) != now;
}

}  // namespace ca
