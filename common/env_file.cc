#include "env_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "small_file.h"

namespace ca {
namespace {

constexpr size_t kMaxEnvFileBytes = 1 << 20;

// systemd's NEWLINE: a carriage return ends a line too.
bool is_newline(char c) { return c == '\n' || c == '\r'; }
bool is_space(char c) { return c == ' ' || c == '\t' || is_newline(c); }

// A valid environment variable name as systemd's env_name_is_valid checks
// it: letters, digits and underscores, not starting with a digit.
bool valid_name(const std::string& key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  for (char c : key) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_env_file(const std::string& text) {
  enum State {
    kPreKey,
    kKey,
    kPreValue,
    kValue,
    kValueEscape,
    kSingleQuote,
    kDoubleQuote,
    kDoubleQuoteEscape,
    kComment,
    kCommentEscape,
  };
  std::vector<std::pair<std::string, std::string>> out;
  State state = kPreKey;
  std::string key, value;
  size_t key_end = 0;    // key length without trailing whitespace
  size_t value_end = 0;  // value length without trailing unquoted whitespace
  auto push = [&] {
    key.resize(key_end);
    value.resize(value_end);
    if (valid_name(key)) out.emplace_back(key, value);
    key.clear();
    value.clear();
    key_end = value_end = 0;
  };
  for (char c : text) {
    switch (state) {
      case kPreKey:
        if (c == '#' || c == ';') {
          state = kComment;
        } else if (!is_space(c)) {
          state = kKey;
          key.assign(1, c);
          key_end = 1;
        }
        break;
      case kKey:
        if (is_newline(c)) {
          state = kPreKey;  // no '=': ignored
          key.clear();
          key_end = 0;
        } else if (c == '=') {
          state = kPreValue;
          value.clear();
          value_end = 0;
        } else {
          key.push_back(c);
          if (!is_space(c)) key_end = key.size();
        }
        break;
      case kPreValue:
        if (is_newline(c)) {
          state = kPreKey;
          push();
        } else if (c == '\'') {
          state = kSingleQuote;
        } else if (c == '"') {
          state = kDoubleQuote;
        } else if (c == '\\') {
          state = kValueEscape;
        } else if (!is_space(c)) {
          state = kValue;
          value.push_back(c);
          value_end = value.size();
        }
        break;
      case kValue:
        if (is_newline(c)) {
          state = kPreKey;
          push();
        } else if (c == '\\') {
          state = kValueEscape;
          value_end = value.size();
        } else {
          value.push_back(c);
          if (!is_space(c)) value_end = value.size();
        }
        break;
      case kValueEscape:
        state = kValue;
        if (!is_newline(c)) {  // backslash-newline continues the line
          value.push_back(c);
          value_end = value.size();
        }
        break;
      case kSingleQuote:
        if (c == '\'') {
          state = kPreValue;
        } else {
          value.push_back(c);
          value_end = value.size();
        }
        break;
      case kDoubleQuote:
        if (c == '"') {
          state = kPreValue;
        } else if (c == '\\') {
          state = kDoubleQuoteEscape;
        } else {
          value.push_back(c);
          value_end = value.size();
        }
        break;
      case kDoubleQuoteEscape:
        state = kDoubleQuote;
        if (c == '"' || c == '\\' || c == '`' || c == '$') {
          value.push_back(c);
        } else if (c != '\n') {
          value.push_back('\\');
          value.push_back(c);
        }
        value_end = value.size();
        break;
      case kComment:
        if (c == '\\') {
          state = kCommentEscape;
        } else if (is_newline(c)) {
          state = kPreKey;
        }
        break;
      case kCommentEscape:
        state = kComment;
        break;
    }
  }
  // The last line, without its newline.
  if (state == kPreValue || state == kValue || state == kValueEscape || state == kSingleQuote ||
      state == kDoubleQuote || state == kDoubleQuoteEscape) {
    push();
  }
  return out;
}

void env_file_fill_environment_or_exit(const char* program) {
  const char* url = std::getenv("DATABASE_URL");
  if (url != nullptr && *url != '\0') return;
  const char* override_path = std::getenv("COMMERCE_ADMIN_ENV_FILE");
  std::string path =
      override_path != nullptr && *override_path != '\0' ? override_path : kEnvFilePath;
  SmallFile file = read_small_file(path, kMaxEnvFileBytes);
  if (!file.ok() && file.error == ENOENT) return;
  if (!file.ok() && file.error != 0) {
    std::fprintf(stderr,
                 "%s: DATABASE_URL is not set and %s %s (run this as root or as the service's "
                 "account, or set DATABASE_URL)\n",
                 program, path.c_str(), file.problem.c_str());
    std::exit(2);
  }
  if (!file.ok()) {
    std::fprintf(stderr, "%s: %s %s\n", program, path.c_str(), file.problem.c_str());
    std::exit(2);
  }
  const std::string& text = file.text;
  // The environment wins over the file (MIGRATE_DATABASE_URL=... on the
  // command line); within the file, the last assignment of a key wins.
  std::vector<std::pair<std::string, std::string>> vars = parse_env_file(text);
  std::vector<std::string> from_environment;
  for (const auto& [key, value] : vars) {
    if (std::getenv(key.c_str()) != nullptr) from_environment.push_back(key);
  }
  for (const auto& [key, value] : vars) {
    bool keep = false;
    for (const std::string& k : from_environment) keep = keep || k == key;
    // DATABASE_URL was empty or unset, so the file's value always applies.
    if (keep && key != "DATABASE_URL") continue;
    setenv(key.c_str(), value.c_str(), 1);
  }
}

}  // namespace ca
