#include "request_arrival.h"

#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <vector>

namespace ca {

Arrival fastcgi_arrival(const unsigned char* data, size_t size) {
  // A record: version, type, request id (2), content length (2), padding
  // length, reserved; then content and padding.
  constexpr size_t kHeader = 8;
  constexpr unsigned char kParams = 4;
  constexpr unsigned char kStdin = 5;
  Arrival arrival = Arrival::kHead;
  size_t at = 0;
  while (at + kHeader <= size) {
    const unsigned char* h = data + at;
    size_t content = (static_cast<size_t>(h[4]) << 8) | h[5];
    if (content == 0 && h[1] == kStdin) return Arrival::kWhole;
    if (content == 0 && h[1] == kParams) arrival = Arrival::kBody;
    at += kHeader + content + h[6];
  }
  return arrival;
}

Peeked peek_request(int fd) {
  thread_local std::vector<unsigned char> buffer(kPeekLimit);
  ssize_t n = recv(fd, buffer.data(), buffer.size(), MSG_PEEK | MSG_DONTWAIT);
  Peeked p;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) p.none_yet = true;
  if (n <= 0) return p;  // end-of-file or an error: libfcgi finds out which
  p.queued = static_cast<size_t>(n);
  p.arrival = fastcgi_arrival(buffer.data(), p.queued);
  return p;
}

ArrivingBodies::ArrivingBodies(std::function<void(int)> resume, std::function<void(int)> close)
    : resume_(std::move(resume)),
      close_(std::move(close)),
      waiting_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  watcher_ = std::thread([this] { watch(); });
}

ArrivingBodies::~ArrivingBodies() {
  stopping_.store(true);
  watcher_.join();
  if (waiting_fd_ >= 0) close(waiting_fd_);
}

bool ArrivingBodies::start_or_expired(int fd) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, added] = clocks_.try_emplace(fd, Clock{now + kBodyDeadline});
  if (added) running_.fetch_add(1);
  return now >= it->second.deadline;
}

bool ArrivingBodies::wait(int fd, size_t queued) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = clocks_.find(fd);
  if (it == clocks_.end() || waiting_fd_ < 0) return false;
  it->second.waiting = true;
  it->second.queued = queued;
  // Edge-triggered: reported now if bytes are queued (the watcher compares
  // their number), then once per arrival.
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
  ev.data.fd = fd;
  if (epoll_ctl(waiting_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    it->second.waiting = false;
    return false;
  }
  return true;
}

bool ArrivingBodies::drain(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (waiting_fd_ < 0) return false;
  auto [it, added] = clocks_.try_emplace(fd);
  if (added) running_.fetch_add(1);
  it->second = Clock{std::chrono::steady_clock::now() + kAnsweredDrainLimit};
  it->second.draining = true;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
  ev.data.fd = fd;
  if (epoll_ctl(waiting_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return false;
  it->second.waiting = true;
  return true;
}

bool ArrivingBodies::stop(int fd) {
  if (running_.load() == 0) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = clocks_.find(fd);
  if (it == clocks_.end()) return false;
  bool cut = it->second.cut;
  if (it->second.waiting) epoll_ctl(waiting_fd_, EPOLL_CTL_DEL, fd, nullptr);
  clocks_.erase(it);
  running_.fetch_sub(1);
  return cut;
}

namespace {

// Reads and drops what is queued on `fd`; false once nginx closed it.
bool discard_queued(int fd) {
  char sink[16384];
  for (;;) {
    ssize_t n = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    if (n > 0) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
  }
}

// Bytes queued on `fd` (SIOCINQ: all of them, on unix and TCP sockets).
size_t queued_on(int fd) {
  int n = 0;
  return ioctl(fd, SIOCINQ, &n) == 0 && n > 0 ? static_cast<size_t>(n) : 0;
}

}  // namespace

// Hands back the waiting connections that got more bytes or were closed by
// nginx, and closes the drained ones nginx closed; once a second, those past
// their deadline too, and gives any other connection past it (one a thread
// reads) a receive timeout. Under the mutex, so that
// no number is closed and reused meanwhile (stop() comes first); the
// handing back after it, since resume_ may close (and so stop()) one.
void ArrivingBodies::watch() {
  constexpr int kBatch = 64;
  auto next_scan = std::chrono::steady_clock::now();
  while (!stopping_.load()) {
    epoll_event events[kBatch];
    int n = waiting_fd_ < 0 ? 0 : epoll_wait(waiting_fd_, events, kBatch, 1000);
    if (waiting_fd_ < 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    std::vector<int> resumed;
    std::vector<int> closed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto hand_back = [&](int fd, Clock& clock) {
        epoll_ctl(waiting_fd_, EPOLL_CTL_DEL, fd, nullptr);
        clock.waiting = false;
        (clock.draining ? closed : resumed).push_back(fd);
      };
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        auto it = clocks_.find(fd);
        if (it == clocks_.end() || !it->second.waiting) continue;
        if (it->second.draining) {
          if (!discard_queued(fd)) hand_back(fd, it->second);
          continue;
        }
        bool hup = (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
        if (hup || queued_on(fd) > it->second.queued) hand_back(fd, it->second);
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= next_scan) {
        next_scan = now + std::chrono::seconds(1);
        for (auto& [fd, clock] : clocks_) {
          if (clock.cut || now < clock.deadline) continue;
          if (clock.waiting) {
            hand_back(fd, clock);
          } else {
            // A thread reads it: its next read ends at once when nothing is queued.
            constexpr timeval kAtOnce{0, 1000};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &kAtOnce, sizeof kAtOnce);
            clock.cut = true;
          }
        }
      }
    }
    for (int fd : resumed) resume_(fd);
    for (int fd : closed) close_(fd);
  }
}

}  // namespace ca
