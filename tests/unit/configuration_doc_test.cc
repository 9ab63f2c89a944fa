// docs/reference/configuration.md stays true: every environment variable the
// code reads (common/ and handlers/ through getenv or the config readers,
// scripts/run and scripts/render-nginx through ${NAME:-default}, and what
// scripts/run passes on to the handlers) has a row in its table, and every
// row names a variable the code reads. The tree is read from CA_SOURCE_DIR.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void add_matches(const std::string& text, const std::regex& re, std::set<std::string>* out) {
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    out->insert((*it)[1].str());
  }
}

// The names the C++ code reads: getenv("X"), str_env("X"),
// int_env(program, "X", ...), bool_env(program, "X").
std::set<std::string> names_read_by_the_programs(const fs::path& root) {
  static const std::regex kRead(R"re((?:getenv|_env)\((?:program,\s*)?"([A-Z][A-Z0-9_]*)")re");
  std::set<std::string> names;
  for (const char* dir : {"common", "handlers"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (entry.path().extension() == ".cc") add_matches(read(entry.path()), kRead, &names);
    }
  }
  return names;
}

// The names the scripts take from the environment: ${X:-default} or ${X-...},
// the variables scripts/run writes into its env file for the handlers
// ("for v in ...; do"), and render-nginx's HANDLER_HOSTS_<GROUP>.
std::set<std::string> names_read_by_the_scripts(const fs::path& root) {
  static const std::regex kDefaulted(R"re(\$\{([A-Z][A-Z0-9_]*):?-)re");
  static const std::regex kPassedOn(R"re(for v in ([A-Z0-9_ \\\n]*); do)re");
  static const std::regex kName(R"re(([A-Z][A-Z0-9_]*))re");
  std::set<std::string> names;
  std::string run = read(root / "scripts/run");
  std::string nginx = read(root / "scripts/render-nginx");
  add_matches(run, kDefaulted, &names);
  add_matches(nginx, kDefaulted, &names);
  std::smatch list;
  EXPECT_TRUE(std::regex_search(run, list, kPassedOn)) << "scripts/run's pass-through list moved";
  if (!list.empty()) {
    std::string words = list[1].str();
    add_matches(words, kName, &names);
  }
  if (nginx.find("var=HANDLER_HOSTS_") != std::string::npos) names.insert("HANDLER_HOSTS_<GROUP>");
  return names;
}

// The first cell of each row of the reference's table: | `NAME` | ...
std::set<std::string> names_in_the_reference(const fs::path& root) {
  static const std::regex kRow(R"re((?:^|\n)\| `([A-Z][A-Z0-9_]*(?:<GROUP>)?)` \|)re");
  std::set<std::string> names;
  add_matches(read(root / "docs/reference/configuration.md"), kRow, &names);
  return names;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

TEST(ConfigurationReference, EverySettingTheCodeReadsHasARowAndEveryRowIsRead) {
  const fs::path root(CA_SOURCE_DIR);
  std::set<std::string> code = names_read_by_the_programs(root);
  std::set<std::string> scripts = names_read_by_the_scripts(root);
  code.insert(scripts.begin(), scripts.end());
  std::set<std::string> documented = names_in_the_reference(root);
  ASSERT_GT(documented.size(), 40u) << "docs/reference/configuration.md lost its table";

  std::set<std::string> undocumented, unread;
  for (const std::string& n : code) {
    if (!documented.count(n)) undocumented.insert(n);
  }
  for (const std::string& n : documented) {
    if (!code.count(n)) unread.insert(n);
  }
  EXPECT_EQ(joined(undocumented), "")
      << "read by the code, missing from docs/reference/configuration.md";
  EXPECT_EQ(joined(unread), "")
      << "rows of docs/reference/configuration.md that nothing in the code reads";
}

// The readers above do find what they look for (a regex that matched
// nothing would make the test above pass on an empty table).
TEST(ConfigurationReference, TheReadersFindTheKnownSettings) {
  const fs::path root(CA_SOURCE_DIR);
  std::set<std::string> code = names_read_by_the_programs(root);
  std::set<std::string> scripts = names_read_by_the_scripts(root);
  for (const char* n : {"DATABASE_URL", "TOKEN_TTL_SECONDS", "WEBHOOK_ALLOW_ANY_PORT", "LOG_LEVEL",
                        "MIGRATE_DATABASE_URL", "METRICS_DIR"}) {
    EXPECT_EQ(code.count(n), 1u) << n;
  }
  for (const char* n : {"PORT", "CONN_LIMIT_PER_IP", "HANDLER_HOSTS_<GROUP>", "HEALTHZ_CACHE_MS"}) {
    EXPECT_EQ(scripts.count(n), 1u) << n;
  }
}

}  // namespace
