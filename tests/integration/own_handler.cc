#include "own_handler.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "stack.h"

namespace ca::test {

using namespace std::chrono_literals;

std::string fcgi_record(uint8_t type, const std::string& content) {
  std::string r = {1,
                   static_cast<char>(type),
                   0,
                   1,
                   static_cast<char>(content.size() >> 8),
                   static_cast<char>(content.size() & 0xff),
                   0,
                   0};
  return r + content;
}

std::string fcgi_length(size_t n) {
  if (n < 128) return std::string(1, static_cast<char>(n));
  return {static_cast<char>((n >> 24) | 0x80), static_cast<char>((n >> 16) & 0xff),
          static_cast<char>((n >> 8) & 0xff), static_cast<char>(n & 0xff)};
}

OwnHandler::OwnHandler(const std::string& executable, const std::string& tag,
                       const std::map<std::string, std::string>& overrides, int threads,
                       Socket socket)
    : socket_(state_dir() + "/run/" + tag + "-" + std::to_string(getpid()) + ".sock"),
      log_(log_path(tag)) {
  std::string command = executable + " --threads " + std::to_string(threads);
  if (socket == Socket::inherited) {
    listen_fd_ = listen_unix(socket_);
    if (listen_fd_ < 0) return;
    command += " 0<&" + std::to_string(listen_fd_) + " " + std::to_string(listen_fd_) + "<&-";
  } else {
    command += " --socket " + socket_;
  }
  pid_ = start_with_stack_env(command, log_, overrides);
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (pid_ > 0 && std::chrono::steady_clock::now() < deadline) {
    int fd = connect_socket();
    if (fd >= 0) {
      close(fd);
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
}

std::string OwnHandler::log_path(const std::string& tag) {
  return state_dir() + "/log/" + tag + "-" + std::to_string(getpid()) + ".log";
}

OwnHandler::~OwnHandler() {
  if (pid_ > 0) {
    EXPECT_TRUE(stop_process(pid_, 20));
  }
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    unlink(socket_.c_str());
  }
}

// A listening unix socket at `path`, inheritable (no close-on-exec: the
// handler's shell takes it as fd 0); -1 after a test failure.
int OwnHandler::listen_unix(const std::string& path) {
  unlink(path.c_str());
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 128) != 0) {
    ADD_FAILURE() << "cannot listen on " << path;
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

int OwnHandler::connect_socket() const {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  socket_.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  close(fd);
  return -1;
}

OwnFullAnswer OwnHandler::call_full(const OwnCall& request) const {
  std::vector<std::pair<std::string, std::string>> params = {
      {"REQUEST_METHOD", request.method},
      {"DOCUMENT_URI", request.uri},
      {"QUERY_STRING", ""},
      {"REMOTE_ADDR", request.remote_addr},
      {"CONTENT_LENGTH", std::to_string(request.body.size())}};
  // No token: no Authorization header, as a caller without one sends.
  if (!request.token.empty()) params.emplace_back("HTTP_AUTHORIZATION", "Bearer " + request.token);
  if (!request.body.empty()) params.emplace_back("CONTENT_TYPE", "application/json");
  if (!request.request_id.empty()) params.emplace_back("REQUEST_ID", request.request_id);
  // A parameter of the call's own replaces a default of the same name
  // (QUERY_STRING, REMOTE_ADDR): libfcgi would read only the first.
  for (const auto& [name, value] : request.params) {
    auto same = std::find_if(params.begin(), params.end(),
                             [&name = name](const auto& p) { return p.first == name; });
    if (same != params.end()) {
      same->second = value;
    } else {
      params.emplace_back(name, value);
    }
  }
  std::string encoded;
  for (const auto& [name, value] : params) {
    encoded += fcgi_length(name.size()) + fcgi_length(value.size()) + name + value;
  }
  std::string begin = {0, 1, 0, 0, 0, 0, 0, 0};  // responder, no keep-alive
  std::string wire = fcgi_record(1, begin) + fcgi_record(4, encoded) + fcgi_record(4, "") +
                     (request.body.empty() ? "" : fcgi_record(5, request.body)) +
                     fcgi_record(5, "");
  int fd = connect_socket();
  if (fd < 0) return {};
  timeval timeout{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string out;
  if (send(fd, wire.data(), wire.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(wire.size())) {
    std::string in;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) in.append(buf, static_cast<size_t>(n));
    for (size_t at = 0; at + 8 <= in.size();) {
      size_t length = (static_cast<uint8_t>(in[at + 4]) << 8) | static_cast<uint8_t>(in[at + 5]);
      if (in[at + 1] == 6) out += in.substr(at + 8, length);  // FCGI_STDOUT
      at += 8 + length + static_cast<uint8_t>(in[at + 6]);
    }
  }
  close(fd);
  size_t split = out.find("\r\n\r\n");
  if (split == std::string::npos) return {};
  size_t status_end = out.find("\r\n");
  return {{out.substr(0, status_end), out.substr(split + 4)},
          status_end < split ? out.substr(status_end + 2, split - status_end - 2) : ""};
}

}  // namespace ca::test
