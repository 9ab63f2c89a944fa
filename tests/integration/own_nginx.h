// An nginx of a test's own, rendered by scripts/render-nginx like the
// stack's, in front of handlers of the test's own on loopback TCP ports
// (HANDLER_HOSTS_<GROUP>); the groups not named use the stack's sockets.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ca::test {

// A loopback port nothing listens on now (the kernel's choice, released).
int free_port();
// Waits up to 20 s until something accepts connections on 127.0.0.1:port.
bool wait_for_port(int port);

// `executable` (a handler on the stack's PATH) with `args`, under spawn-fcgi
// on 127.0.0.1:port, with the stack's environment plus `env`; its stderr in
// `log`. 0 when it did not start listening.
pid_t start_tcp_handler(const std::string& executable, const std::string& args, int port,
                        const std::string& log, const std::map<std::string, std::string>& env);

class OwnNginx {
 public:
  // Renders into `dir`/nginx with `env` on top of the test defaults (the
  // stack's sockets, every rate limit off) and starts nginx on a free port.
  // `extra_conf`, when set, is written to the rendered config's conf.d/ (the
  // http context) first: servers of the test's own beside the API's.
  // `edits` replace text of the rendered API config (every occurrence of
  // each first by its second), for a directive no setting changes; one that
  // matches nothing is an error.
  OwnNginx(const std::string& dir, const std::map<std::string, std::string>& env,
           const std::string& extra_conf = "",
           const std::vector<std::pair<std::string, std::string>>& edits = {});
  ~OwnNginx();
  OwnNginx(const OwnNginx&) = delete;
  OwnNginx& operator=(const OwnNginx&) = delete;

  bool running() const { return pid_ > 0; }
  // http://127.0.0.1:<port>, for Call::base_url.
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  // What went wrong (render-nginx's or nginx's stderr) when it is not running.
  const std::string& error() const { return error_; }
  // nginx's access log (log_format commerce_admin, flushed within 1 s).
  std::string access_log_path() const { return dir_ + "/nginx/access.log"; }
  // nginx's error log (its stderr: the dev configuration logs there at warn).
  std::string error_log_path() const { return dir_ + "/nginx.log"; }

 private:
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = 0;
  std::string error_;
};

}  // namespace ca::test
