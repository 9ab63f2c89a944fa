// Whether a FastCGI connection's request has arrived whole, and the time
// its body is given to arrive.
//
// nginx passes a request on as soon as it has read the header
// (fastcgi_request_buffering off, nginx/commerce-admin.conf.in) and the
// body follows as the client sends it. nginx's own body timeout is per read
// (client_body_timeout: 10 s of silence), so a body trickled one byte every
// few seconds would be held for as long as the client likes. Here the body
// has kBodyDeadline from the moment the request's first bytes came:
//
// - The dispatcher (epoll_dispatcher.cc) peeks at what is queued on a
//   connection before a thread reads it. A request whose end (the empty
//   STDIN record) is already there is served at once; one still arriving
//   waits (ArrivingBodies::wait), holding no thread, and is looked at again
//   on its next bytes.
// - A request with more queued than kPeekLimit may be waiting for the
//   process to make room (nginx blocks once the socket is full), so a thread
//   reads it as it comes; at most half the threads at once
//   (Dispatcher::body_readers), the rest answered 503.
// - At a connection's deadline ArrivingBodies hands a waiting one back to
//   the dispatcher, which answers 408 from its parameters; and gives one a
//   thread reads a receive timeout of a millisecond, so that its read ends
//   at the next byte's arrival (or at nginx's 10 s silence limit) and it
//   answers 408.
// - A connection answered before its body was read is drained, not closed:
//   closed with bytes unread or still coming, nginx's next write to it
//   fails or its read of the answer is reset, and the client gets 502
//   instead of the answer. Its sending side is shut once the answer is
//   written (nginx without fastcgi_keep_conn ends an answer only there).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace ca {

constexpr auto kBodyDeadline = std::chrono::seconds(20);
// How long an answered connection is drained before it is closed anyway.
constexpr auto kAnsweredDrainLimit = std::chrono::seconds(5);
// What a peek looks at: past this a request may be waiting on the process.
constexpr size_t kPeekLimit = 64 * 1024;

enum class Arrival {
  kWhole,  // the request's empty STDIN record is queued
  kBody,   // its parameters are (the empty PARAMS record), not yet its end
  kHead,   // not yet its parameters
};

// Walks the FastCGI record headers over `data`, what is queued on a
// connection from its start (the start of a request).
Arrival fastcgi_arrival(const unsigned char* data, size_t size);

struct Peeked {
  Arrival arrival = Arrival::kHead;
  size_t queued = 0;      // bytes seen, at most kPeekLimit
  bool none_yet = false;  // nothing queued and the connection open
};

// Peeks at what is queued on `fd` without taking it (MSG_PEEK, never
// blocking).
Peeked peek_request(int fd);

// The connections whose request is still arriving: where they wait, and
// their deadlines. A connection waits outside the dispatcher's epoll set,
// which is level-triggered and would report its queued bytes again at once,
// in a set of its own watched by one thread, edge-triggered: it is handed
// back (`resume`) when more bytes come, when nginx closes it, or at its
// deadline. Thread-safe; one per process.
class ArrivingBodies {
 public:
  // `resume(fd)` arms `fd` in the dispatcher's set again, `close(fd)`
  // closes it; called by the watching thread for a connection it held.
  ArrivingBodies(std::function<void(int)> resume, std::function<void(int)> close);
  ~ArrivingBodies();
  ArrivingBodies(const ArrivingBodies&) = delete;
  ArrivingBodies& operator=(const ArrivingBodies&) = delete;

  // Starts `fd`'s clock unless it runs; whether its deadline has passed.
  bool start_or_expired(int fd);
  // Holds `fd`, whose clock runs, until more than `queued` bytes are queued
  // on it, nginx closes it, or its deadline passes. False when it cannot
  // (the caller then closes it).
  bool wait(int fd, size_t queued);
  // Holds `fd`, whose request was answered before its body was read (and
  // its sending side shut), and discards what still comes until nginx
  // closes it (it does once it has read the answer), then closes it; at
  // most kAnsweredDrainLimit. False when it cannot (the caller then closes
  // it).
  bool drain(int fd);
  // Stops `fd`'s clock, before its request is served or it is closed (the
  // number may then be reused); whether its deadline had cut a thread's
  // read. Free when no clock runs.
  bool stop(int fd);

 private:
  struct Clock {
    std::chrono::steady_clock::time_point deadline;
    bool cut = false;       // past its deadline, a thread's read given a receive timeout
    bool waiting = false;   // in waiting_fd_
    bool draining = false;  // answered: what comes is discarded
    size_t queued = 0;      // while waiting: the bytes it waits past
  };
  void watch();

  std::function<void(int)> resume_;
  std::function<void(int)> close_;
  int waiting_fd_;  // the epoll set of the waiting connections
  std::mutex mutex_;
  std::unordered_map<int, Clock> clocks_;
  std::atomic<int> running_{0};  // clocks_.size(), read without the mutex
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

}  // namespace ca
