// /etc/commerce-admin/env as the CLI reads it (common/env_file.h): the way
// systemd's EnvironmentFile= reads it, so the CLI run by hand and the units
// see the same settings.
#include "env_file.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ca {
namespace {

using Vars = std::vector<std::pair<std::string, std::string>>;

TEST(EnvFile, UnquotedValuesKeepTheirInnerSpaces) {
  // What the issue met: a shell truncates this at the first space; systemd does not.
  EXPECT_EQ(parse_env_file("DATABASE_URL=host=/run/postgresql dbname=commerce_admin\n"),
            (Vars{{"DATABASE_URL", "host=/run/postgresql dbname=commerce_admin"}}));
}

TEST(EnvFile, QuotedValuesLoseTheirQuotes) {
  EXPECT_EQ(parse_env_file("A=\"host=/run/postgresql user=commerce_admin_app\"\nB='x  y'\n"),
            (Vars{{"A", "host=/run/postgresql user=commerce_admin_app"}, {"B", "x  y"}}));
  // Quoted parts join up (whitespace between them is dropped), and an
  // unquoted part after them; once unquoted, quotes are characters.
  EXPECT_EQ(parse_env_file("A=\"a b\" 'c'd 'e'\n"), (Vars{{"A", "a bcd 'e'"}}));
}

TEST(EnvFile, DoubleQuotesTakeShellEscapes) {
  EXPECT_EQ(parse_env_file("A=\"a\\\"b\\\\c\\$d\\`e\\nf\"\n"), (Vars{{"A", "a\"b\\c$d`e\\nf"}}));
  // Single quotes take everything literally.
  EXPECT_EQ(parse_env_file("A='a\\\"b'\n"), (Vars{{"A", "a\\\"b"}}));
}

TEST(EnvFile, CommentsBlankLinesAndWhitespace) {
  EXPECT_EQ(parse_env_file("# a comment\n; another\n\n  KEY  =   value with end spaces   \n"
                           "#DATABASE_URL=commented out\n"),
            (Vars{{"KEY", "value with end spaces"}}));
}

TEST(EnvFile, BackslashesOutsideQuotes) {
  EXPECT_EQ(parse_env_file("A=one\\\ntwo\nB=a\\ \\#b\n"), (Vars{{"A", "onetwo"}, {"B", "a #b"}}));
}

TEST(EnvFile, LinesWithoutAssignmentOrBadNamesAreIgnored) {
  EXPECT_EQ(parse_env_file("no assignment\n1BAD=x\nBAD-NAME=y\nGOOD_1=z\n"),
            (Vars{{"GOOD_1", "z"}}));
}

TEST(EnvFile, EmptyValuesAndTheLastLineWithoutNewline) {
  EXPECT_EQ(parse_env_file("EMPTY=\nLAST=\"quoted at the end\""),
            (Vars{{"EMPTY", ""}, {"LAST", "quoted at the end"}}));
}

TEST(EnvFile, CarriageReturnsEndLines) {
  EXPECT_EQ(parse_env_file("A=1\r\nB=2\r\n"), (Vars{{"A", "1"}, {"B", "2"}}));
}

}  // namespace
}  // namespace ca
