// read_small_file: a regular file whole, within its bound; anything else
// refused with one reason (common/small_file.h).
#include "small_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>

namespace ca {
namespace {

class SmallFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/small-file-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(SmallFileTest, AFileWithinItsBoundIsReadWholeWithItsStat) {
  std::string path = write("secret", std::string(4096, 'k'));
  SmallFile f = read_small_file(path, 4096);
  EXPECT_TRUE(f.ok()) << f.problem;
  EXPECT_EQ(f.text, std::string(4096, 'k'));
  EXPECT_EQ(f.st.st_size, 4096);
  EXPECT_EQ(f.error, 0);
  SmallFile empty = read_small_file(write("empty", ""), 10);
  EXPECT_TRUE(empty.ok());
  EXPECT_EQ(empty.text, "");
}

TEST_F(SmallFileTest, OneByteOverTheBoundIsRefusedWithNothingKept) {
  SmallFile f = read_small_file(write("big", std::string(4097, 'k')), 4096);
  EXPECT_FALSE(f.ok());
  EXPECT_EQ(f.problem, "is larger than 4096 bytes");
  EXPECT_EQ(f.text, "");
}

TEST_F(SmallFileTest, AMissingFileSaysSoWithItsErrno) {
  SmallFile f = read_small_file(dir_ + "/none", 10);
  EXPECT_EQ(f.problem, "cannot be read: No such file or directory");
  EXPECT_EQ(f.error, ENOENT);
}

// A directory, a device that never ends, and a FIFO nobody writes to: each
// refused at once, none read or waited on.
TEST_F(SmallFileTest, WhatIsNotARegularFileIsRefusedWithoutReadingOrWaiting) {
  std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {dir_, std::string("/dev/zero"), fifo}) {
    SmallFile f = read_small_file(path, 4096);
    EXPECT_EQ(f.problem, "is not a regular file") << path;
    EXPECT_EQ(f.text, "") << path;
  }
}

}  // namespace
}  // namespace ca
