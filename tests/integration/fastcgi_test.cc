// The handlers' FastCGI side, spoken directly: connections nginx keeps open
// (FCGI_KEEP_CONN) must not tie up a thread while idle. A handler with one
// thread is started on a socket of its own and given two connections; the
// second is answered while the first stays open, and the first again after.
// (libfcgi's own loop blocks its thread in read() on the first connection,
// and the second request then never gets an answer.) Also: a body's closing
// record that comes late, a stop while a request's body is arriving, and a
// stop while nginx keeps connections open, and a listening socket another
// process made blocking.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>

#include "own_handler.h"
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

// A FastCGI name-value pair.
std::string pair(const std::string& name, const std::string& value) {
  return fcgi_length(name.size()) + fcgi_length(value.size()) + name + value;
}

// A kept-connection request up to its body: BEGIN_REQUEST and the
// parameters nginx sends. The body follows as STDIN records, then an empty
// one.
std::string request_head(const std::string& method, const std::string& uri, size_t content_length) {
  std::string begin = {0, static_cast<char>(kResponder), static_cast<char>(kKeepConn), 0, 0, 0, 0,
                       0};
  std::string params = pair("REQUEST_METHOD", method) + pair("DOCUMENT_URI", uri) +
                       pair("QUERY_STRING", "") + pair("REMOTE_ADDR", "127.0.0.1") +
                       pair("CONTENT_LENGTH", std::to_string(content_length));
  return fcgi_record(kBeginRequest, begin) + fcgi_record(kParams, params) +
         fcgi_record(kParams, "");
}

std::string ping_request() {
  return request_head("GET", "/api/v2/admin/ping", 0) + fcgi_record(kStdin, "");
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
  ~Connection() { close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool connected() const { return connected_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // Sends a ping and returns the STDOUT it is answered with ("" when no
  // answer came within the timeout or the connection closed first).
  std::string ping() { return send_all(ping_request()) ? answer() : ""; }

  bool send_all(const std::string& data) {
    // MSG_NOSIGNAL: a connection the handler closed is a failed send, not SIGPIPE.
    return send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  }

  // The STDOUT of the answer to the request sent ("" as for ping()).
  std::string answer() {
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
  void SetUp() override { start(); }
  // Starts the handler (with `overrides` on the stack's environment) and
  // waits until it takes connections.
  void start(const std::map<std::string, std::string>& overrides = {}) {
    socket_ = state_dir() + "/run/fcgi-test-" + std::to_string(getpid()) + ".sock";
    pid_ = start_with_stack_env("commerce-admin-auth --threads 1 --socket " + socket_,
                                state_dir() + "/log/fcgi-test.log", overrides);
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

// A stop leaves the connections nginx keeps for nginx to close: one the
// handler closed could be one nginx was sending a request on (a 502 for a
// POST). Until they close the handler serves them, and then it leaves.
TEST_F(OneThreadHandler, AStopServesKeptConnectionsUntilNginxClosesThem) {
  {
    Connection kept(socket_);
    ASSERT_TRUE(kept.connected());
    EXPECT_EQ(kept.ping(), kPingAnswer);
    ASSERT_EQ(kill(pid_, SIGTERM), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the stop is under way
    EXPECT_EQ(kept.ping(), kPingAnswer);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(kept.ping(), kPingAnswer);
  }  // nginx closes it
  // Well within the drain limit (8 s) that ends a stop nginx never lets go of.
  EXPECT_TRUE(stop_process(pid_, 3));
  pid_ = 0;
}

// With a drain limit of 2 s (HANDLER_DRAIN_SECONDS; 8 by default) instead
// of the default's 8 s wait: the stop waits that long for the kept
// connection, then ends.
TEST_F(OneThreadHandler, AStopEndsAfterTheDrainLimitIfAKeptConnectionStaysOpen) {
  ASSERT_TRUE(stop_process(pid_, 20));
  pid_ = 0;
  start({{"HANDLER_DRAIN_SECONDS", "2"}});
  Connection kept(socket_);
  ASSERT_TRUE(kept.connected());
  EXPECT_EQ(kept.ping(), kPingAnswer);
  auto stopping = std::chrono::steady_clock::now();
  EXPECT_TRUE(stop_process(pid_, 20));
  pid_ = 0;
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - stopping).count();
  EXPECT_GE(took, 1.9) << "the stop did not wait for the kept connection";
  EXPECT_LT(took, 6) << "the stop did not end at the drain limit";
  EXPECT_EQ(kept.ping(), "");  // closed with the process
}

// nginx ends a body with an empty STDIN record. When that record arrives
// after the body (in a later read), it is still this request's: left on the
// kept connection, it was read as the start of the next request, a protocol
// error, and the connection was closed under the request nginx sent next.
TEST_F(OneThreadHandler, ABodysLateEndIsNotTakenForTheNextRequest) {
  Connection kept(socket_);
  ASSERT_TRUE(kept.connected());
  ASSERT_TRUE(
      kept.send_all(request_head("POST", "/api/v2/admin/ping", 2) + fcgi_record(kStdin, "{}")));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(kept.send_all(fcgi_record(kStdin, "")));
  EXPECT_EQ(kept.answer().rfind("Status: 405 ", 0), 0u);
  EXPECT_EQ(kept.ping(), kPingAnswer);
}

// A stop lets a request in flight finish, even one whose body is still
// arriving: the worker reading it is not interrupted (a signal used to wake
// the workers, and libfcgi took the interrupted read() for the end of the
// body: the login below was answered 400, its JSON cut short).
TEST_F(OneThreadHandler, StoppingLetsARequestWhoseBodyIsStillComingFinish) {
  Connection c(socket_);
  ASSERT_TRUE(c.connected());
  const std::string body = R"({"email":"nobody@example.invalid","password":"secret"})";
  ASSERT_TRUE(c.send_all(request_head("POST", "/api/v2/admin/login", body.size()) +
                         fcgi_record(kStdin, body.substr(0, 10))));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the worker waits in read()
  ASSERT_EQ(kill(pid_, SIGTERM), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the stop is under way
  ASSERT_TRUE(c.send_all(fcgi_record(kStdin, body.substr(10)) + fcgi_record(kStdin, "")));
  std::string answer = c.answer();
  EXPECT_EQ(answer.rfind("Status: 401 ", 0), 0u) << answer;
  EXPECT_NE(answer.find(R"({"error":"Invalid credentials"})"), std::string::npos) << answer;
  c.close();  // as nginx does with the connections of a stopping handler
  EXPECT_TRUE(stop_process(pid_, 20));
  pid_ = 0;
}

// The listening socket is shared with every process that holds it, flags
// included: systemd clears O_NONBLOCK each time it starts a sibling with
// StandardInput=socket. A worker then blocked in accept4() for the next
// connection, holding the one it had just accepted unread: the request
// waited for the next one to arrive (a rolling restart hung requests until
// nginx gave up). Here the test clears the flag before every request.
TEST(SharedListeningSocket, MadeBlockingByAnotherProcessItStillAnswersEveryRequest) {
  OwnHandler handler("commerce-admin-auth", "blocking-listen", {}, 2,
                     OwnHandler::Socket::inherited);
  ASSERT_GE(handler.listen_fd(), 0);
  // Serving: its start-up has set the flag (which the test clears next).
  ASSERT_EQ(handler.call({.uri = "/api/v2/admin/ping"}).status, "Status: 200 OK");
  for (int i = 0; i < 5; ++i) {
    int flags = fcntl(handler.listen_fd(), F_GETFL);
    ASSERT_EQ(fcntl(handler.listen_fd(), F_SETFL, flags & ~O_NONBLOCK), 0);
    EXPECT_EQ(handler.call({.uri = "/api/v2/admin/ping"}).status, "Status: 200 OK") << i;
  }
  std::ifstream log(handler.log());
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("warning: the listening socket was made blocking by another process"),
            std::string::npos)
      << text;
}

// Under systemd, stderr goes to the journal, which stores a line at the
// priority its "<N>" prefix names, else at info: without the prefix
// `journalctl -p warning` missed every warning and error. The handler
// writes it when JOURNAL_STREAM names its stderr (here the log file, as
// systemd names its stream), and only then.
TEST(JournalPriority, EveryLineToTheJournalStartsWithItsSyslogPriority) {
  for (bool journal : {true, false}) {
    const std::string tag = journal ? "journal-stream" : "other-stream";
    std::string path = OwnHandler::log_path(tag);
    std::ofstream(path).close();
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    std::string stream = journal ? std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino)
                                 : std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
    {
      OwnHandler handler("commerce-admin-auth", tag, {{"JOURNAL_STREAM", stream}}, 2,
                         OwnHandler::Socket::inherited);
      ASSERT_GE(handler.listen_fd(), 0);
      ASSERT_EQ(handler.call({.uri = "/api/v2/admin/ping"}).status, "Status: 200 OK");
      int flags = fcntl(handler.listen_fd(), F_GETFL);
      ASSERT_EQ(fcntl(handler.listen_fd(), F_SETFL, flags & ~O_NONBLOCK), 0);  // a warning
      EXPECT_EQ(handler.call({.uri = "/api/v2/admin/ping"}).status, "Status: 200 OK");
    }
    std::ifstream log(path);
    int warnings = 0, infos = 0;
    for (std::string line; std::getline(log, line);) {
      std::string prefix = line.substr(0, 3);
      if (line.find(": warning: ") != std::string::npos) {
        ++warnings;
        EXPECT_EQ(prefix, journal ? "<4>" : "com") << line;
      } else if (line.find(": info: ") != std::string::npos) {
        ++infos;
        EXPECT_EQ(prefix, journal ? "<6>" : "com") << line;
      } else {
        ADD_FAILURE() << "a line of neither level: " << line;
      }
    }
    EXPECT_GE(warnings, 1) << tag;
    EXPECT_GE(infos, 2) << tag;  // "serving with 2 threads", the request, the stop
  }
}

}  // namespace
}  // namespace ca::test
