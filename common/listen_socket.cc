#include "listen_socket.h"

#include <fcgiapp.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "log.h"

namespace ca {
namespace {

// The first fd systemd passes (sd_listen_fds(3)).
constexpr int kSystemdFirstFd = 3;

// The socket passed by systemd's protocol (LISTEN_PID, LISTEN_FDS), as a
// unit without StandardInput=socket or systemd-socket-activate pass it: its
// fd, -1 when none was passed to this process, -2 after a line on stderr
// when more than one was. The variables are removed, as sd_listen_fds(1)
// does, so that nothing this process starts takes them for its own.
int systemd_listen_fd(const char* program) {
  const char* pid = std::getenv("LISTEN_PID");
  const char* fds = std::getenv("LISTEN_FDS");
  if (pid == nullptr || fds == nullptr || std::to_string(getpid()) != pid) return -1;
  std::string count = fds;
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  unsetenv("LISTEN_FDNAMES");
  if (count != "1") {
    std::fprintf(stderr, "%s%s: LISTEN_FDS=%s: expected exactly one listening socket\n",
                 log_priority_prefix(LogLevel::kError), program, count.c_str());
    return -2;
  }
  fcntl(kSystemdFirstFd, F_SETFD, FD_CLOEXEC);
  return kSystemdFirstFd;
}

}  // namespace

int take_listen_socket(const char* program, const char* socket_path, int* exit_code) {
  int listen_fd = 0;
  if (socket_path != nullptr) {
    unlink(socket_path);
    listen_fd = FCGX_OpenSocket(socket_path, 128);
    if (listen_fd < 0) {
      std::fprintf(stderr, "%s%s: cannot listen on %s: %s\n", log_priority_prefix(LogLevel::kError),
                   program, socket_path, std::strerror(errno));
      *exit_code = 1;
      return -1;
    }
    // libfcgi creates it 0755 root-owned; nginx workers must be able to connect.
    chmod(socket_path, 0666);
  } else {
    listen_fd = systemd_listen_fd(program);
    if (listen_fd == -2) {
      *exit_code = 2;
      return -1;
    }
    if (listen_fd < 0) listen_fd = 0;
    struct stat st;
    if (fstat(listen_fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
      std::fprintf(stderr,
                   "%s%s: fd %d is not a listening socket; start it with spawn-fcgi or systemd "
                   "socket activation, or pass --socket PATH\n",
                   log_priority_prefix(LogLevel::kError), program, listen_fd);
      *exit_code = 2;
      return -1;
    }
  }
  return listen_fd;
}

bool listen_socket_is_tcp(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  return getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 &&
         (addr.ss_family == AF_INET || addr.ss_family == AF_INET6);
}

void remove_listen_socket(const char* socket_path) {
  if (socket_path != nullptr) unlink(socket_path);
}

}  // namespace ca
