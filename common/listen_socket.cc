#include "listen_socket.h"

#include <fcgiapp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ca {

int take_listen_socket(const char* program, const char* socket_path, int* exit_code) {
  int listen_fd = 0;
  if (socket_path != nullptr) {
    unlink(socket_path);
    listen_fd = FCGX_OpenSocket(socket_path, 128);
    if (listen_fd < 0) {
      std::fprintf(stderr, "%s: cannot listen on %s: %s\n", program, socket_path,
                   std::strerror(errno));
      *exit_code = 1;
      return -1;
    }
    // libfcgi creates it 0755 root-owned; nginx workers must be able to connect.
    chmod(socket_path, 0666);
  } else {
    struct stat st;
    if (fstat(0, &st) != 0 || !S_ISSOCK(st.st_mode)) {
      std::fprintf(stderr,
                   "%s: fd 0 is not a listening socket; start it with spawn-fcgi or systemd "
                   "socket activation, or pass --socket PATH\n",
                   program);
      *exit_code = 2;
      return -1;
    }
  }
  return listen_fd;
}

void remove_listen_socket(const char* socket_path) {
  if (socket_path != nullptr) unlink(socket_path);
}

}  // namespace ca
