#include "own_nginx.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "stack.h"

namespace ca::test {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

bool accepts_connections(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(port);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

}  // namespace

int free_port() {
  int port = 0;
  int fd = bind_loopback(&port);
  if (fd < 0) return 0;
  close(fd);
  return port;
}

bool wait_for_port(int port) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!accepts_connections(port)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

pid_t start_tcp_handler(const std::string& executable, const std::string& args, int port,
                        const std::string& log, const std::map<std::string, std::string>& env) {
  pid_t pid = start_with_stack_env("spawn-fcgi -n -a 127.0.0.1 -p " + std::to_string(port) +
                                       " -- \"$(command -v " + executable + ")\" " + args,
                                   log, env);
  if (pid > 0 && !wait_for_port(port)) {
    stop_process(pid, 5);
    return 0;
  }
  return pid;
}

OwnNginx::OwnNginx(const std::string& dir, const std::map<std::string, std::string>& env,
                   const std::string& extra_conf,
                   const std::vector<std::pair<std::string, std::string>>& edits)
    : dir_(dir), port_(free_port()) {
  std::map<std::string, std::string> vars = {{"SOCKET_DIR", state_dir() + "/run"},
                                             {"LISTEN", "127.0.0.1:" + std::to_string(port_)},
                                             {"DOCS_DIR", dir},
                                             {"RATE_LIMIT_RPS", "0"},
                                             {"LOGIN_RATE_LIMIT_RPS", "0"},
                                             {"IP_RATE_LIMIT_RPS", "0"}};
  for (const auto& [name, value] : env) vars[name] = value;
  std::string render;
  for (const auto& [name, value] : vars) render += name + "=" + shell_quote(value) + " ";
  render += std::string(CA_SOURCE_DIR) + "/scripts/render-nginx --dev " +
            shell_quote(dir + "/nginx") + " 2>" + shell_quote(dir + "/render.log");
  if (std::system(("mkdir -p " + shell_quote(dir) + " && " + render).c_str()) != 0) {
    error_ = "render-nginx: " + file_text(dir + "/render.log");
    return;
  }
  if (!edits.empty()) {
    const std::string conf_path = dir + "/nginx/commerce-admin.conf";
    std::string conf = file_text(conf_path);
    for (const auto& [from, to] : edits) {
      size_t at = conf.find(from);
      if (from.empty() || at == std::string::npos) {
        error_ = "no '" + from + "' in " + conf_path;
        return;
      }
      for (; at != std::string::npos; at = conf.find(from, at + to.size())) {
        conf.replace(at, from.size(), to);
      }
    }
    std::ofstream(conf_path) << conf;
  }
  if (!extra_conf.empty()) {
    std::ofstream(dir + "/nginx/conf.d/test.conf") << extra_conf;
  }
  pid_ = start_with_stack_env("nginx -p " + shell_quote(dir + "/nginx") + " -c " +
                                  shell_quote(dir + "/nginx/nginx.conf") + " -g 'daemon off;'",
                              dir + "/nginx.log");
  if (pid_ > 0 && !wait_for_port(port_)) {
    stop_process(pid_, 5);
    pid_ = 0;
  }
  if (pid_ <= 0) error_ = "nginx: " + file_text(dir + "/nginx.log");
}

OwnNginx::~OwnNginx() {
  if (pid_ > 0) {
    EXPECT_TRUE(stop_process(pid_, 20));
  }
}

}  // namespace ca::test
