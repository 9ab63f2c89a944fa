// The handlers' FastCGI side, spoken directly: connections nginx keeps open
// (FCGI_KEEP_CONN) must not tie up a thread while idle. A handler with one
// thread is started on a socket of its own and given two connections; the
// second is answered while the first stays open, and the first again after.
// (libfcgi's own loop blocks its thread in read() on the first connection,
// and the second request then never gets an answer.)
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "stack.h"

namespace ca::test {
namespace {

constexpr uint8_t kBeginRequest = 1;
constexpr uint8_t kEndRequest = 3;
constexpr uint8_t kParams = 4;
constexpr uint8_t kStdin = 5;
constexpr uint8_t kStdout = 6;
constexpr uint8_t kResponder = 1;
constexpr uint8_t kKeepConn = 1;

std::string record(uint8_t type, const std::string& content) {
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

// Names and values under 128 bytes: one length byte each.
std::string pair(const std::string& name, const std::string& value) {
  return std::string(1, static_cast<char>(name.size())) +
         std::string(1, static_cast<char>(value.size())) + name + value;
}

std::string ping_request() {
  std::string begin = {0, static_cast<char>(kResponder), static_cast<char>(kKeepConn), 0, 0, 0, 0,
                       0};
  std::string params = pair("REQUEST_METHOD", "GET") + pair("DOCUMENT_URI", "/api/v2/admin/ping") +
                       pair("QUERY_STRING", "") + pair("REMOTE_ADDR", "127.0.0.1");
  return record(kBeginRequest, begin) + record(kParams, params) + record(kParams, "") +
         record(kStdin, "");
}

// A FastCGI connection with a receive timeout: a request nobody serves ends
// the wait as a failure instead of hanging the test.
class Connection {
 public:
  explicit Connection(const std::string& path) : fd_(socket(AF_UNIX, SOCK_STREAM, 0)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Connection() { close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool connected() const { return connected_; }

  // Sends one request and returns the STDOUT it is answered with ("" when no
  // answer came within the timeout or the connection closed first).
  std::string ping() {
    std::string request = ping_request();
    // MSG_NOSIGNAL: a connection the handler closed is a failed ping, not SIGPIPE.
    if (send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      return "";
    }
    std::string out;
    for (;;) {
      std::string header = read_exactly(8);
      if (header.size() != 8) return "";
      auto type = static_cast<uint8_t>(header[1]);
      size_t length = (static_cast<uint8_t>(header[4]) << 8) | static_cast<uint8_t>(header[5]);
      std::string content = read_exactly(length + static_cast<uint8_t>(header[6]));
      if (content.size() != length + static_cast<uint8_t>(header[6])) return "";
      if (type == kStdout) out += content.substr(0, length);
      if (type == kEndRequest) return out;
    }
  }

 private:
  std::string read_exactly(size_t n) {
    std::string data(n, '\0');
    size_t got = 0;
    while (got < n) {
      ssize_t r = read(fd_, data.data() + got, n - got);
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    data.resize(got);
    return data;
  }

  int fd_;
  bool connected_ = false;
};

const std::string kPingAnswer =
    "Status: 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"status\":\"ok\"}";

class OneThreadHandler : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = state_dir() + "/run/fcgi-test-" + std::to_string(getpid()) + ".sock";
    pid_ = start_with_stack_env("commerce-admin-auth --threads 1 --socket " + socket_,
                                state_dir() + "/log/fcgi-test.log");
    ASSERT_GT(pid_, 0);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!Connection(socket_).connected() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  void TearDown() override {
    if (pid_ > 0) {
      EXPECT_TRUE(stop_process(pid_, 20)) << "the handler did not stop cleanly";
    }
  }

  std::string socket_;
  pid_t pid_ = 0;
};

TEST_F(OneThreadHandler, ServesASecondConnectionWhileAKeptOneIsIdle) {
  Connection first(socket_);
  ASSERT_TRUE(first.connected());
  EXPECT_EQ(first.ping(), kPingAnswer);
  // `first` stays open and idle (nginx would keep it); the only thread must
  // still take a new connection.
  Connection second(socket_);
  ASSERT_TRUE(second.connected());
  EXPECT_EQ(second.ping(), kPingAnswer);
  EXPECT_EQ(first.ping(), kPingAnswer);
  EXPECT_EQ(second.ping(), kPingAnswer);
}

TEST_F(OneThreadHandler, AKeptConnectionThatNginxClosesGivesItsThreadBack) {
  {
    Connection kept(socket_);
    ASSERT_TRUE(kept.connected());
    EXPECT_EQ(kept.ping(), kPingAnswer);
  }  // closed while idle, as nginx does with connections it no longer keeps
  Connection next(socket_);
  ASSERT_TRUE(next.connected());
  EXPECT_EQ(next.ping(), kPingAnswer);
}

TEST_F(OneThreadHandler, StopsWhileAKeptConnectionIsOpen) {
  Connection kept(socket_);
  ASSERT_TRUE(kept.connected());
  EXPECT_EQ(kept.ping(), kPingAnswer);
  EXPECT_TRUE(stop_process(pid_, 20));
  pid_ = 0;
  EXPECT_EQ(kept.ping(), "");  // closed with the process
}

}  // namespace
}  // namespace ca::test
