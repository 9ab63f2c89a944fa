#include "small_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ca {

SmallFile read_small_file(const std::string& path, size_t max_bytes) {
  SmallFile f;
  auto refuse = [&f](std::string problem, int error) {
    f.text.clear();
    f.problem = std::move(problem);
    f.error = error;
    return f;
  };
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int error = errno;
    return refuse(std::string("cannot be read: ") + std::strerror(error), error);
  }
  if (fstat(fd, &f.st) != 0 || !S_ISREG(f.st.st_mode)) {
    close(fd);
    return refuse("is not a regular file", 0);
  }
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      close(fd);
      return refuse(std::string("cannot be read: ") + std::strerror(error), error);
    }
    if (n == 0) break;
    f.text.append(buf, static_cast<size_t>(n));
    if (f.text.size() > max_bytes) {
      close(fd);
      return refuse("is larger than " + std::to_string(max_bytes) + " bytes", 0);
    }
  }
  close(fd);
  return f;
}

}  // namespace ca
