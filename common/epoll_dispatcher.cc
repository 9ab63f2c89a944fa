#include "epoll_dispatcher.h"

#include <fcgiapp.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "log.h"
#include "serve_request.h"

namespace ca {

bool Dispatcher::arm(int fd, int op) {
  epoll_event ev{};
  // EPOLLRDHUP: nginx closed a connection whose request was still arriving
  // (it gave up on the client).
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_fd, op, fd, &ev) != 0) {
    log_error("epoll_ctl(%d): %s", fd, std::strerror(errno));
    // Unarmed, the listening socket is never served again: exit rather
    // than look alive (the unit restarts the process).
    if (fd == listen_fd) std::_Exit(1);
    close_connection(fd);
    return false;
  }
  return true;
}

void Dispatcher::rearm(int fd) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  ev.data.fd = fd;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &ev) == 0) return;
  if (errno == ENOENT) {
    arm(fd, EPOLL_CTL_ADD);
  } else {
    log_error("epoll_ctl(%d): %s", fd, std::strerror(errno));
    close_connection(fd);
  }
}

void Dispatcher::close_connection(int fd) {
  arriving.stop(fd);  // before its number can be reused
  close(fd);
  connection_closed();
}

namespace {

// The listening socket's O_NONBLOCK is a flag of the open file description
// that every process holding it shares, and others may clear it: systemd
// does each time it starts a service with StandardInput=socket (or a
// LISTEN_FDS socket with NonBlocking=no). A blocking accept4() then waits
// for the next connection with the one this worker already accepted left
// unread. Set it again before each batch; the receive timeout that
// serve.cc puts on the socket bounds a wait that slips in between.
void keep_nonblocking(int listen_fd) {
  int flags = fcntl(listen_fd, F_GETFL);
  if (flags < 0 || (flags & O_NONBLOCK) != 0) return;
  fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK);
  static std::atomic<int64_t> last_logged{0};
  if (once_a_second(last_logged)) {
    log_warn(
        "the listening socket was made blocking by another process (systemd's "
        "StandardInput=socket or NonBlocking=no); set non-blocking again");
  }
}

}  // namespace

int Dispatcher::accept_waiting() {
  constexpr int kBatch = 16;
  int first = -1;
  keep_nonblocking(listen_fd);
  for (int i = 0; i < kBatch; ++i) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EAGAIN && errno != ECONNABORTED) {
        // At most one line a second: out of descriptors, this repeats.
        static std::atomic<int64_t> last_logged{0};
        if (once_a_second(last_logged)) log_error("accept: %s", std::strerror(errno));
        // Out of descriptors: let connections close rather than spin.
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      break;
    }
    open_connections.fetch_add(1);
    if (tcp_nodelay) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    if (first < 0) {
      first = fd;
    } else {
      arm(fd, EPOLL_CTL_ADD);
    }
  }
  // The next connections are another worker's; once draining, another
  // process's (the listening socket is left unarmed).
  if (!draining.load()) arm(listen_fd, EPOLL_CTL_MOD);
  return first;
}

namespace {

// Serves the request waiting on `fd`. libfcgi reads it from the socket it
// is given (ipcFd set, keepConnection so that its first step, finishing a
// previous request, leaves the socket open); when nginx has closed the
// socket instead, libfcgi closes it and tries to accept on the request's
// listening socket, which is -1 here, so it returns at once.
// `body_reader`: counted in d.body_readers, taken off once the body is read
// (serve_request).
void serve_connection(Dispatcher& d, FCGX_Request& r, int fd, int arm_op,
                      BodyCut cut = BodyCut::kNone, bool body_reader = false) {
  r.ipcFd = fd;
  r.keepConnection = 1;
  if (FCGX_Accept_r(&r) < 0) {
    if (body_reader) d.body_readers.fetch_sub(1);
    d.arriving.stop(fd);
    d.connection_closed();
    return;
  }
  bool whole =
      serve_request(r, *d.router, *d.config,
                    {.pool = d.pool, .read_pool = d.read_pool, .tenant_nodes = d.tenant_nodes}, cut,
                    body_reader ? &d.body_readers : nullptr);
  d.arriving.stop(fd);
  if (!whole) {
    // The rest of the body is still coming. Closed now, the socket would
    // make nginx's next write of it fail (502 for the client instead of the
    // answer) or reset its read of the answer; drained until nginx, having
    // read the answer, closes it. libfcgi keeps it open for that (a read cut
    // short is an error it would close on).
    FCGX_ClearError(r.in);
    r.keepConnection = 1;
    FCGX_Detach(&r);
    FCGX_Finish_r(&r);
    r.ipcFd = -1;
    // The answer is whole; this side ends here. Without fastcgi_keep_conn
    // nginx ends an answer only at the connection's end (until then the
    // client waited out the drain's 5 s for it); with it, the end makes
    // nginx close a connection it would keep for another request (the
    // whole body sent before the answer came), which the drain would
    // discard.
    shutdown(fd, SHUT_WR);
    if (!d.arriving.drain(fd)) d.close_connection(fd);
    return;
  }
  // Closing, libfcgi shuts its side down and waits (up to 2 s) for nginx to
  // close first, against TCP resets. On a unix socket whose request was read
  // in full that guards nothing, yet the thread sat out nginx's handling of
  // every response before it could take the next request. Detached, the
  // connection is just closed (a kept one stays open either way).
  FCGX_Detach(&r);
  FCGX_Finish_r(&r);
  if (r.ipcFd < 0) {  // nginx did not ask to keep it
    d.connection_closed();
    return;
  }
  r.ipcFd = -1;  // it belongs to the epoll set now
  d.arm(fd, arm_op);
}

// A connection epoll reported (`events`): its request is served once it has
// arrived whole, or cut at its deadline; meanwhile it waits without a
// thread (common/request_arrival.h).
void take_connection(Dispatcher& d, FCGX_Request& r, int fd, uint32_t events, int arm_op) {
  Peeked p = peek_request(fd);
  if (p.none_yet) {  // a new connection nginx has not written to yet
    d.arm(fd, arm_op);
    return;
  }
  if (p.queued == 0 || p.arrival == Arrival::kWhole) {
    d.arriving.stop(fd);
    serve_connection(d, r, fd, arm_op);
    return;
  }
  if (d.arriving.start_or_expired(fd)) {
    if (p.arrival == Arrival::kHead) {  // nothing to answer from
      d.close_connection(fd);
      return;
    }
    serve_connection(d, r, fd, arm_op, BodyCut::kTimeout);
    return;
  }
  if ((events & EPOLLRDHUP) != 0) {  // nginx gave up on it: nobody to answer
    d.close_connection(fd);
    return;
  }
  if (p.queued < kPeekLimit) {
    if (!d.arriving.wait(fd, p.queued)) d.close_connection(fd);
    return;
  }
  // More than a peek holds: nginx may be waiting for room. Read it as it
  // comes, on this thread (its deadline still runs), if a reader may.
  if (d.body_readers.fetch_add(1) >= d.body_reader_limit) {
    d.body_readers.fetch_sub(1);
    d.arriving.stop(fd);
    serve_connection(d, r, fd, arm_op, BodyCut::kBusy);
    return;
  }
  // Counted until its body is read, not until its answer is written and
  // the connection armed again: nginx may send the next large body, on
  // this connection or another, as soon as the answer reaches it.
  serve_connection(d, r, fd, arm_op, BodyCut::kNone, /*body_reader=*/true);
}

}  // namespace

void worker_loop(Dispatcher* d) {
  FCGX_Request r;
  FCGX_InitRequest(&r, -1, 0);
  while (!d->stopping.load()) {
    epoll_event ev{};
    int n = epoll_wait(d->epoll_fd, &ev, 1, -1);
    if (n < 0 && errno != EINTR) {
      // Not expected on a valid set; a worker that left quietly would
      // leave the process looking alive with nobody serving.
      log_error("epoll_wait: %s", std::strerror(errno));
      std::_Exit(1);
    }
    if (n <= 0 || d->stopping.load() || ev.data.fd == d->stop_fd) continue;
    if (ev.data.fd == d->listen_fd) {
      d->accepting.fetch_add(1);
      int fd = d->draining.load() ? -1 : d->accept_waiting();
      d->accepting.fetch_sub(1);
      if (fd >= 0) take_connection(*d, r, fd, EPOLLIN, EPOLL_CTL_ADD);
    } else {
      take_connection(*d, r, ev.data.fd, ev.events, EPOLL_CTL_MOD);
    }
  }
  FCGX_Free(&r, 1);
}

}  // namespace ca
