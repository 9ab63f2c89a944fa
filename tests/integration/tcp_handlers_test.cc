// Handlers on TCP, several hosts per group (docs/howto/scale-handlers.md, "Run
// a group on several hosts"): one group's handlers listen on 127.0.0.1 ports, started
// the two ways an operator would (spawn-fcgi -a/-p, which passes the socket
// on fd 0, and a socket activator that passes it as LISTEN_FDS on fd 3, as
// systemd does without StandardInput=socket), behind an nginx of this test
// rendered by scripts/render-nginx with HANDLER_HOSTS_PRODUCTS naming both.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "own_nginx.h"
#include "stack.h"

namespace ca::test {
namespace {

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(HandlersOnTcp, OneGroupOnTwoTcpHandlersBehindRenderedNginxAnswersFromBoth) {
  std::string dir = state_dir() + "/tcp-" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p " + shell_quote(dir + "/metrics")).c_str()), 0);
  int port_a = free_port(), port_b = free_port(), port_http = free_port();
  ASSERT_GT(port_a, 0);
  ASSERT_GT(port_b, 0);
  ASSERT_GT(port_http, 0);
  // JSON request lines, so that each handler's log tells which requests it served.
  std::map<std::string, std::string> env = {{"LOG_FORMAT", "json"},
                                            {"METRICS_DIR", dir + "/metrics"}};
  std::string handler = "\"$(command -v commerce-admin-products)\" --threads 2";
  pid_t a = start_with_stack_env(
      "spawn-fcgi -n -a 127.0.0.1 -p " + std::to_string(port_a) + " -- " + handler, dir + "/a.log",
      env);
  // systemd-socket-activate passes on only the variables named with -E: all of them.
  pid_t b = start_with_stack_env("systemd-socket-activate $(compgen -e | sed 's/^/-E /') -l " +
                                     ("127.0.0.1:" + std::to_string(port_b)) + " " + handler,
                                 dir + "/b.log", env);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  ASSERT_TRUE(wait_for_port(port_a)) << file_text(dir + "/a.log");
  ASSERT_TRUE(wait_for_port(port_b)) << file_text(dir + "/b.log");

  std::string render = "SOCKET_DIR=" + shell_quote(state_dir() + "/run") +
                       " LISTEN=127.0.0.1:" + std::to_string(port_http) +
                       " DOCS_DIR=" + shell_quote(dir) +
                       " RATE_LIMIT_RPS=0 LOGIN_RATE_LIMIT_RPS=0"
                       " HANDLER_HOSTS_PRODUCTS='127.0.0.1:" +
                       std::to_string(port_a) + " 127.0.0.1:" + std::to_string(port_b) + "' " +
                       CA_SOURCE_DIR + "/scripts/render-nginx --dev " +
                       shell_quote(dir + "/nginx") + " 2>" + shell_quote(dir + "/render.log");
  ASSERT_EQ(std::system(render.c_str()), 0) << file_text(dir + "/render.log");
  std::string conf = file_text(dir + "/nginx/commerce-admin.conf");
  EXPECT_NE(
      conf.find("upstream commerce_admin_products { server 127.0.0.1:" + std::to_string(port_a) +
                "; server 127.0.0.1:" + std::to_string(port_b) + "; keepalive 32;"),
      std::string::npos)
      << conf;
  pid_t nginx =
      start_with_stack_env("nginx -p " + shell_quote(dir + "/nginx") + " -c " +
                               shell_quote(dir + "/nginx/nginx.conf") + " -g 'daemon off;'",
                           dir + "/nginx.log");
  ASSERT_GT(nginx, 0);
  ASSERT_TRUE(wait_for_port(port_http)) << file_text(dir + "/nginx.log");

  Scope s = fresh_scope(admin_token());
  ASSERT_EQ(
      http("POST", "/api/v2/admin/products", s.call(R"({"name":"On TCP","price":1.5,"stock":3})"))
          .status,
      201);
  std::string via = "http://127.0.0.1:" + std::to_string(port_http);
  std::string prefix = unique("tcp");
  constexpr int kRequests = 20;
  for (int i = 0; i < kRequests; ++i) {
    Call call = s.call();
    call.base_url = via;
    call.headers = {"X-Request-Id: " + prefix + "-r" + std::to_string(i)};
    HttpResponse r = http("GET", "/api/v2/admin/products", call);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(int_of(r["data"], "total"), 1) << r.body;
  }
  // nginx's round robin sent requests to both; together they served each once.
  int served_a = count_of(file_text(dir + "/a.log"), "\"request_id\":\"" + prefix + "-r");
  int served_b = count_of(file_text(dir + "/b.log"), "\"request_id\":\"" + prefix + "-r");
  EXPECT_GE(served_a, 1) << file_text(dir + "/a.log");
  EXPECT_GE(served_b, 1) << file_text(dir + "/b.log");
  EXPECT_EQ(served_a + served_b, kRequests);

  EXPECT_TRUE(stop_process(nginx, 20));
  EXPECT_TRUE(stop_process(a, 20)) << file_text(dir + "/a.log");
  EXPECT_TRUE(stop_process(b, 20)) << file_text(dir + "/b.log");
}

}  // namespace
}  // namespace ca::test
