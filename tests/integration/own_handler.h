// A handler process of a test's own, spoken to over FastCGI as nginx would.
//
// For settings the stack's handlers do not run with (an environment
// override such as LOG_FORMAT=json or a stricter webhook target policy): the
// test starts the executable on a socket of its own with the stack's
// environment plus the overrides, and stops it when the object goes.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

namespace ca::test {

// One FastCGI record of request 1 (type, content under 64 KiB).
std::string fcgi_record(uint8_t type, const std::string& content);
// A name or value length as FastCGI encodes it (1 byte under 128, else 4).
std::string fcgi_length(size_t n);

struct OwnCall {
  std::string method = "GET";
  std::string uri{};
  std::string token{};  // no Authorization header when empty
  std::string body{};
  std::string request_id{};               // REQUEST_ID param, as nginx sets it; none when empty
  std::string remote_addr = "127.0.0.1";  // REMOTE_ADDR, nginx's $remote_addr
  // More FastCGI parameters (HTTP_X_TENANT_ID, HTTP_IDEMPOTENCY_KEY, ...).
  std::map<std::string, std::string> params{};
};

struct OwnAnswer {
  std::string status;  // "Status: 200 OK"; empty when no answer came
  std::string body{};
};

struct OwnFullAnswer {
  OwnAnswer answer;
  std::string headers{};  // the header lines after Status, "\r\n"-separated
};

class OwnHandler {
 public:
  // `executable` is a handler of build/ (e.g. "commerce-admin-webhooks");
  // `tag` names its socket and log in the stack's state directory.
  // `inherit`: the test makes the listening socket and the handler gets it
  // on fd 0, as spawn-fcgi and systemd's StandardInput=socket pass it; the
  // test keeps its own descriptor of it (listen_fd()), sharing its flags.
  enum class Socket { own, inherited };
  OwnHandler(const std::string& executable, const std::string& tag,
             const std::map<std::string, std::string>& overrides, int threads = 1,
             Socket socket = Socket::own);
  ~OwnHandler();
  OwnHandler(const OwnHandler&) = delete;
  OwnHandler& operator=(const OwnHandler&) = delete;

  const std::string& log() const { return log_; }
  // Where the handler tagged `tag` writes its stderr (the file may be made
  // before the handler starts).
  static std::string log_path(const std::string& tag);
  // The test's descriptor of an inherited listening socket; -1 otherwise.
  int listen_fd() const { return listen_fd_; }
  OwnAnswer call(const OwnCall& request) const { return call_full(request).answer; }
  OwnFullAnswer call_full(const OwnCall& request) const;

 private:
  static int listen_unix(const std::string& path);
  int connect_socket() const;

  std::string socket_;
  std::string log_;
  pid_t pid_ = 0;
  int listen_fd_ = -1;
};

}  // namespace ca::test
