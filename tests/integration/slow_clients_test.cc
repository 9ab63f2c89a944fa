// Slow clients against the stack's nginx (docs/decisions/0002-slow-client-timeouts.md):
// a body that trickles, a header that trickles and an idle keep-alive
// connection are each closed 10 s into their silence or header, never held
// for nginx's default 60 s. The three run at once: the test takes about 10 s.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <future>
#include <string>
#include <utility>

#include "stack.h"

namespace ca::test {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

int stack_port() {
  std::string url = base_url();
  return std::stoi(url.substr(url.rfind(':') + 1));
}

// Opens a connection to the stack's nginx, sends `first`, then `trickle`
// every 2 s (nothing when empty), reading whatever nginx sends, until nginx
// closes or resets the connection or 40 s pass. The seconds it stayed open,
// or -1 when it never closed (or never opened).
double seconds_until_closed(const std::string& first, const std::string& trickle) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(stack_port()));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  auto start = Clock::now();
  if (send(fd, first.data(), first.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(first.size())) {
    return -1;
  }
  auto next_trickle = start + 2s;
  while (Clock::now() - start < 40s) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, 200) > 0) {
      char buf[4096];
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) {
        return std::chrono::duration<double>(Clock::now() - start).count();
      }
    }
    if (!trickle.empty() && Clock::now() >= next_trickle) {
      // A reset connection fails the send: the next poll reads the close.
      send(fd, trickle.data(), trickle.size(), MSG_NOSIGNAL);
      next_trickle += 2s;
    }
  }
  return -1;
}

TEST(SlowClients, ATricklingBodyOrHeaderAndAnIdleConnectionAreClosedWithin30s) {
  // Content-Length 1000, one byte sent: nginx waits 10 s for the next read.
  auto body = std::async(std::launch::async, [] {
    return seconds_until_closed(
        "POST /api/v2/admin/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n{",
        "");
  });
  // A header line every 2 s: the header as a whole gets 10 s.
  auto header = std::async(std::launch::async, [] {
    return seconds_until_closed("GET /healthz HTTP/1.1\r\nHost: test\r\n", "X-Slow: 1\r\n");
  });
  // One whole request, answered, then nothing: keep-alive ends after 10 s.
  auto idle = std::async(std::launch::async, [] {
    return seconds_until_closed("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n", "");
  });
  const std::pair<const char*, std::future<double>*> cases[] = {
      {"body", &body}, {"header", &header}, {"idle keep-alive", &idle}};
  for (const auto& [name, result] : cases) {
    double seconds = result->get();
    EXPECT_GT(seconds, 5) << name << ": closed early, or never (-1)";
    EXPECT_LT(seconds, 30) << name;
  }
}

}  // namespace
}  // namespace ca::test
