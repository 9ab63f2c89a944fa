// Settings and secrets kept in files (the token secret, the env file, the
// mail credentials): a regular file read whole, with a bound. It is opened
// without blocking, so a FIFO is refused instead of waited on, and read up
// to its bound, so /dev/zero is refused instead of read until memory runs
// out.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace ca {

struct SmallFile {
  std::string text;
  struct stat st {};
  // Why it was refused ("cannot be read: No such file or directory", "is
  // not a regular file", "is larger than 4096 bytes"); empty when read.
  std::string problem;
  // errno of the open or the read that failed, else 0 (ENOENT: no file).
  int error = 0;
  bool ok() const { return problem.empty(); }
};

SmallFile read_small_file(const std::string& path, size_t max_bytes);

}  // namespace ca
