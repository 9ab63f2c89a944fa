// The shape functions (ca_<resource>_json, docs/design/json-rendering.md)
// are called with named arguments, and each call names exactly the
// parameters of one definition in sql/: a parameter renamed, added or
// dropped in a migration, or an argument forgotten or misnamed in a
// statement, fails here instead of in a request. The calls are read from
// tests/statements.sql, every statement text the handlers send with its
// macros expanded (StatementList.MatchesTheGoldenFile keeps it true).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "unit_helpers.h"

namespace ca {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

// Splits at the commas outside parentheses, brackets and quotes.
std::vector<std::string> top_level_split(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  bool quoted = false;
  std::string cur;
  for (char c : s) {
    if (c == '\'') quoted = !quoted;
    if (!quoted) {
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') --depth;
      if (c == ',' && depth == 0) {
        out.push_back(trim(cur));
        cur.clear();
        continue;
      }
    }
    cur += c;
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

// Every ca_*_json function's parameter names (and ca_order_create's, sql/060), per definition
// (overloads by arity; a later CREATE OR REPLACE of the same arity replaces an earlier).
std::map<std::string, std::map<size_t, std::vector<std::string>>> shape_signatures() {
  std::map<std::string, std::map<size_t, std::vector<std::string>>> out;
  const std::regex def(
      R"(CREATE (?:OR REPLACE )?FUNCTION (ca_\w+_json|ca_order_create)\s*\(([^)]*)\))");
  for (const std::string& text : migration_texts()) {
    for (std::sregex_iterator m(text.begin(), text.end(), def), end; m != end; ++m) {
      std::vector<std::string> names;
      for (const std::string& param : top_level_split((*m)[2])) {
        if (param.rfind("OUT ", 0) == 0) continue;  // a result column, never an argument
        names.push_back(param.substr(0, param.find_first_of(" \t\n")));
      }
      out[(*m)[1]][names.size()] = names;
    }
  }
  return out;
}

struct Call {
  std::string function;
  std::vector<std::string> args;
};

// Every call of a ca_*_json function in the statement texts.
std::vector<Call> shape_calls() {
  std::string text;
  std::istringstream lines(source_text("tests/statements.sql"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("--", 0) == 0) continue;
    text += line + " ";  // the file breaks long texts at single spaces
  }
  std::vector<Call> out;
  const std::regex call(R"(\b(ca_\w+_json|ca_order_create)\()");
  for (std::sregex_iterator m(text.begin(), text.end(), call), end; m != end; ++m) {
    size_t start = static_cast<size_t>(m->position(0) + m->length(0));
    int depth = 1;
    bool quoted = false;
    size_t i = start;
    for (; i < text.size() && depth > 0; ++i) {
      if (text[i] == '\'') quoted = !quoted;
      if (quoted) continue;
      if (text[i] == '(') ++depth;
      if (text[i] == ')') --depth;
    }
    out.push_back({(*m)[1], top_level_split(text.substr(start, i - 1 - start))});
  }
  return out;
}

TEST(ShapeCalls, EveryCallNamesEveryParameterOfADefinitionInSql) {
  auto signatures = shape_signatures();
  ASSERT_GE(signatures.size(), 20u) << "no shape functions read from sql/";
  std::vector<Call> calls = shape_calls();
  ASSERT_GE(calls.size(), 20u) << "no calls read from tests/statements.sql";
  const std::regex named(R"(^(\w+)\s*=>\s*\S[\s\S]*$)");
  for (const Call& c : calls) {
    SCOPED_TRACE(c.function);
    auto defined = signatures.find(c.function);
    ASSERT_NE(defined, signatures.end()) << "no CREATE FUNCTION " << c.function << " in sql/";
    std::vector<std::string> names;
    for (const std::string& arg : c.args) {
      std::smatch m;
      EXPECT_TRUE(std::regex_match(arg, m, named)) << "positional argument: " << arg;
      names.push_back(m.empty() ? arg : m[1].str());
    }
    auto overload = defined->second.find(names.size());
    ASSERT_NE(overload, defined->second.end())
        << c.function << " has no definition of " << names.size() << " parameters";
    EXPECT_EQ(names, overload->second) << "the call names other parameters (or another order)";
  }
}

TEST(ShapeCalls, EveryShapeTheHandlersRenderIsCalledSomewhere) {
  // The reading above finds the calls of the shapes the handlers render
  // (an empty list would pass the test above).
  std::set<std::string> called;
  for (const Call& c : shape_calls()) called.insert(c.function);
  for (const char* f : {"ca_announcement_json", "ca_order_json", "ca_category_json", "ca_user_json",
                        "ca_webhook_json", "ca_delivery_json", "ca_event_json", "ca_member_json",
                        "ca_tenant_json", "ca_audit_json", "ca_order_create"}) {
    EXPECT_TRUE(called.count(f)) << f;
  }
}

}  // namespace
}  // namespace ca
