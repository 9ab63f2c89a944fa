// Slow clients against the stack's nginx (docs/decisions/0002-slow-client-timeouts.md,
// 0123-a-body-has-20-seconds.md): a body that goes silent, a header that
// trickles and an idle keep-alive connection are each closed 10 s into their
// silence or header; a body that keeps trickling is answered 408 at 20 s,
// and while it arrives it holds no handler thread; a body larger than a
// peek that arrives while half a process's threads read such bodies is
// answered 503 at once. The cases run at once, in one test, so that their
// waits overlap: it takes about 22 s.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "own_nginx.h"
#include "stack.h"

namespace ca::test {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

int stack_port() {
  std::string url = base_url();
  return std::stoi(url.substr(url.rfind(':') + 1));
}

// The end of a chunked answer: its last (empty) chunk.
constexpr const char* kLastChunk = "\r\n0\r\n\r\n";

struct Held {
  double seconds = -1;   // until nginx closed or reset it; -1: never (or never opened)
  double answered = -1;  // until the answer had come whole (its last chunk); -1: never
  std::string received;  // what nginx sent meanwhile
};

// Opens a connection to nginx on `port`, sends `first`, then `trickle`
// every 2 s (nothing when empty), reading whatever nginx sends, until nginx
// closes or resets the connection or 40 s pass; with `until_answered`, until
// the answer has come whole.
Held held_until_closed(const std::string& first, const std::string& trickle,
                       bool until_answered = false, int port = stack_port()) {
  Held held;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return held;
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return held;
  auto start = Clock::now();
  auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  size_t sent = 0;
  while (sent < first.size()) {
    ssize_t n = send(fd, first.data() + sent, first.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return held;
    sent += static_cast<size_t>(n);
  }
  auto next_trickle = start + 2s;
  while (Clock::now() - start < 40s) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, 200) > 0) {
      char buf[4096];
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n > 0) held.received.append(buf, static_cast<size_t>(n));
      if (held.answered < 0 && held.received.find(kLastChunk) != std::string::npos) {
        held.answered = since_start();
        if (until_answered) return held;
      }
      if (n == 0 || (n < 0 && errno == ECONNRESET)) {
        held.seconds = since_start();
        return held;
      }
    }
    if (!trickle.empty() && Clock::now() >= next_trickle) {
      // A reset connection fails the send: the next poll reads the close.
      send(fd, trickle.data(), trickle.size(), MSG_NOSIGNAL);
      next_trickle += 2s;
    }
  }
  return held;
}

// A login whose body announces `length` bytes and brings `sent` of them.
std::string login_head(size_t length, const std::string& sent) {
  return "POST /api/v2/admin/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
         "Content-Length: " +
         std::to_string(length) + "\r\n\r\n" + sent;
}

// A login larger than a peek (64 KiB, common/request_arrival.h): 100 KB of
// its 300 KB at once.
std::string large_login_head() { return login_head(300000, "{" + std::string(100000, ' ')); }

double cpu_of(const std::vector<pid_t>& pids) {
  double sum = 0;
  for (pid_t pid : pids) sum += cpu_seconds(pid);
  return sum;
}

// The lines nginx's error log (`path`) has gained since it had `from`
// bytes that say a connection to a handler broke: a handler that closed a
// connection answered before its body was read (instead of draining it)
// makes nginx's next write of the body fail, or its read of the answer be
// reset, and the client gets 502.
std::vector<std::string> broken_connections(const std::string& path, size_t from) {
  std::string text = file_text(path);
  text = text.size() > from ? text.substr(from) : "";
  std::vector<std::string> broken = text_lines_with(text, "Broken pipe");
  for (const std::string& line : text_lines_with(text, "reset by peer")) broken.push_back(line);
  return broken;
}

// The answer is the handler's 408, whole (chunked: the body's length in
// hex, the JSON, the last chunk).
void expect_408(const Held& held, const std::string& name) {
  EXPECT_GT(held.seconds, 15) << name << ": closed early, or never (-1)";
  EXPECT_LT(held.seconds, 30) << name;
  EXPECT_EQ(held.received.substr(0, 13), "HTTP/1.1 408 ") << name << ": " << held.received;
  EXPECT_NE(held.received.find("\r\n\r\n1b\r\n{\"error\":\"Request timeout\"}\r\n0\r\n"),
            std::string::npos)
      << name << ": " << held.received;
}

// Every slow client at once, so that the waits overlap (each was a test of
// its own: 10, 20 and 20 s).
//
// Closed by nginx 10 s into a silence or a header, without an answer: a
// body that goes silent (Content-Length 1000, one byte sent), a header that
// comes a line every 2 s (the header as a whole gets 10 s), and a keep-alive
// connection left idle after one whole request.
//
// A byte every 2 s never lets nginx's 10 s silence limit fire: the handler
// answers 408 at the body's 20 s, for a small body (waiting without a
// thread) and for one larger than a peek (read on a thread as it comes).
//
// More trickling bodies than the login handlers have threads (2 processes
// of 4 in the stack; 3 in the sanitizer pass): a whole request is still
// answered at once, and none of the trickling ones has been answered yet.
// Waiting costs the handlers nothing: a connection is looked at again only
// when its bytes come (a wait that spun on the queued bytes used a core per
// process).
//
// More large bodies than half the login handlers' threads (2 processes of 2
// readers; 1 in the sanitizer pass), beside the large one above: those past
// the readers are answered 503 with Retry-After: 1 at once and whole (their
// connection is drained, not closed, and its answer not held back by the
// drain), the others 408 at 20 s; nginx logs no broken connection.
TEST(SlowClients, SlowClientsAreCutWithin30sHoldingNoThreadAndLargeBodiesPastTheReadersGet503) {
  std::vector<pid_t> auth = find_stack_processes("commerce-admin-auth");
  ASSERT_FALSE(auth.empty());
  const std::string nginx_log = state_dir() + "/log/nginx.log";
  const size_t nginx_log_before = file_text(nginx_log).size();
  auto run = [](auto f) { return std::async(std::launch::async, f); };

  auto silent_body = run([] { return held_until_closed(login_head(1000, "{"), ""); });
  auto header = run(
      [] { return held_until_closed("GET /healthz HTTP/1.1\r\nHost: test\r\n", "X-Slow: 1\r\n"); });
  auto idle =
      run([] { return held_until_closed("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n", ""); });
  auto small = run([] { return held_until_closed(login_head(1000, "{"), " "); });
  auto large = run([] { return held_until_closed(large_login_head(), " "); });
  constexpr int kHeld = 12;
  std::vector<std::future<Held>> held;
  for (int i = 0; i < kHeld; ++i) {
    held.push_back(run([] { return held_until_closed(login_head(1000, "{"), " "); }));
  }

  std::this_thread::sleep_for(1s);  // all of them passed on to the handlers, `large` to a thread
  // Two processes of at most 2 readers each (1 in the sanitizer pass), one
  // of them reading `large`: at least one of 5 more is refused.
  constexpr int kMoreLarge = 5;
  std::vector<std::future<Held>> more_large;
  for (int i = 0; i < kMoreLarge; ++i) {
    more_large.push_back(run([] { return held_until_closed(large_login_head(), " ", true); }));
  }
  std::this_thread::sleep_for(1s);  // the refused ones answered, the others on a thread
  double cpu_before = cpu_of(auth);
  std::this_thread::sleep_for(4s);
  // About 20 x 2 arrivals of a byte: milliseconds of work.
  EXPECT_LT(cpu_of(auth) - cpu_before, 0.5) << "seconds of CPU while 20 bodies arrived";
  HttpResponse r = http("POST", "/api/v2/admin/login", {.body = "{}"});
  EXPECT_EQ(r.status, 422) << r.body;
  for (auto& h : held) {
    ASSERT_EQ(h.wait_for(0s), std::future_status::timeout) << "a trickling login ended early";
  }

  const std::pair<const char*, std::future<Held>*> closed[] = {
      {"silent body", &silent_body}, {"header", &header}, {"idle keep-alive", &idle}};
  for (const auto& [name, result] : closed) {
    double seconds = result->get().seconds;
    EXPECT_GT(seconds, 5) << name << ": closed early, or never (-1)";
    EXPECT_LT(seconds, 30) << name;
  }
  expect_408(small.get(), "small");
  expect_408(large.get(), "large");
  for (auto& h : held) EXPECT_EQ(h.get().received.substr(0, 13), "HTTP/1.1 408 ");

  int refused = 0;
  for (auto& result : more_large) {
    Held h = result.get();
    if (h.received.substr(0, 13) == "HTTP/1.1 503 ") {
      ++refused;
      EXPECT_NE(h.received.find("\r\nRetry-After: 1\r\n"), std::string::npos) << h.received;
      EXPECT_NE(h.received.find("\r\n\r\n37\r\n{\"error\":\"Too many request bodies arriving; "
                                "try again\"}\r\n0\r\n\r\n"),
                std::string::npos)
          << h.received;
      // At once: not when the drain of its connection ends (5 s).
      EXPECT_LT(h.answered, 3) << "503 whole after " << h.answered << " s";
    } else {  // a reader was free: read as it came, answered at the body's 20 s
      EXPECT_GT(h.answered, 15) << h.received;
      EXPECT_LT(h.answered, 30) << h.received;
      EXPECT_EQ(h.received.substr(0, 13), "HTTP/1.1 408 ") << h.received;
      EXPECT_NE(h.received.find("\r\n\r\n1b\r\n{\"error\":\"Request timeout\"}\r\n0\r\n\r\n"),
                std::string::npos)
          << h.received;
    }
  }
  EXPECT_GE(refused, 1) << "every one of " << kMoreLarge + 1 << " large bodies had a reader";
  EXPECT_EQ(broken_connections(nginx_log, nginx_log_before), std::vector<std::string>{});
}

// A body over the handlers' 1 MiB that nginx lets through (an nginx whose
// client_max_body_size is 2m) is answered 413 from its Content-Length
// before any of it is read. The connection is drained, not closed: the
// client gets that 413 whole and at once, not a 502, and nginx logs no
// broken connection; with FastCGI keep-alive and without (where nginx ends
// an answer only when the handler's side of the connection ends).
TEST(SlowClients, ABodyOver1MiBIsAnswered413BeforeItIsReadAndTheAnswerArrivesWhole) {
  for (const char* keepalive : {"0", "16"}) {
    SCOPED_TRACE(std::string("UPSTREAM_KEEPALIVE=") + keepalive);
    OwnNginx nginx(state_dir() + "/slow-clients-" + std::to_string(getpid()) + "-" + keepalive,
                   {{"UPSTREAM_KEEPALIVE", keepalive}}, "",
                   {{"client_max_body_size 1m;", "client_max_body_size 2m;"}});
    ASSERT_TRUE(nginx.running()) << nginx.error();
    // 100 KB of 1.5 MB, then nothing: the answer does not wait for the rest.
    Held h = held_until_closed(login_head(1500000, "{" + std::string(100000, ' ')), "", true,
                               nginx.port());
    EXPECT_EQ(h.received.substr(0, 13), "HTTP/1.1 413 ") << h.received;
    EXPECT_NE(h.received.find("\r\n\r\n22\r\n{\"error\":\"Request body too large\"}\r\n0\r\n\r\n"),
              std::string::npos)
        << h.received;
    EXPECT_LT(h.answered, 3) << "413 whole after " << h.answered << " s";
    EXPECT_EQ(broken_connections(nginx.error_log_path(), 0), std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace ca::test
