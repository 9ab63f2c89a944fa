// The epoll dispatcher: which worker thread serves which FastCGI connection,
// and how a stop drains them.
//
// Connections are not tied to threads. One epoll set per process holds the
// listening socket and every connection nginx keeps open between requests
// (fastcgi_keep_conn), each armed one-shot: the worker that takes an event
// owns that socket until it arms it again. An idle kept connection costs a
// slot in the set, not a thread, so a few threads serve as many kept
// connections as nginx holds (libfcgi on its own blocks a thread in read()
// on each one).
//
// A stop drains (drain()). nginx sends a request on a kept connection
// whenever it likes, so a connection the process closes can be one nginx
// has just written a request to: EPIPE or a reset for nginx, and a 502 for
// a POST, which nginx does not retry. Closing the idle ones at the stop, or
// each one right after its answer, still failed one or two POSTs per stop
// under load (nginx had put the connection back in its cache before it saw
// the end of it). Only nginx can close them safely, and it does: an idle
// one after its keepalive_timeout (1 s), any one at its first release past
// its keepalive_time (2 s, nginx/commerce-admin.conf.in), so within about
// 3 s plus the request it is serving. From the stop on no connection is
// accepted (the listening socket is shared: a sibling process takes them,
// or, with one process per socket as the systemd units run it, they wait
// in the socket's queue for the restarted one), the kept ones are served as
// before, and the process leaves once nginx has closed them all, or after
// HANDLER_DRAIN_SECONDS (8; common/serve.cc).
//
// Thread-safety: one Dispatcher per process, shared by every worker thread
// (worker_loop); its counters and flags are atomics.
#pragma once

#include <atomic>

#include "config.h"
#include "db_pool.h"
#include "request_arrival.h"
#include "router.h"
#include "tenant_read_nodes.h"

namespace ca {

struct Dispatcher {
  Dispatcher(int listen, int epoll, int stop, const Router* r, const Config* c, DbPool* p)
      : listen_fd(listen), epoll_fd(epoll), stop_fd(stop), router(r), config(c), pool(p) {}

  int listen_fd;
  int epoll_fd;
  // An eventfd in the set, level-triggered: written once at stop, it wakes
  // every idle worker (and each one after its request), not one. A signal
  // would also interrupt a worker's read() or write() in the middle of a
  // request (libfcgi takes EINTR for an error). shutdown() on the listening
  // socket is not an option: spawn-fcgi and systemd share it across processes.
  int stop_fd;
  const Router* router;
  const Config* config;
  DbPool* pool;
  // Reads' connections (DATABASE_READ_URL); nullptr: `pool` serves them too.
  DbPool* read_pool = nullptr;
  // CITUS_READ_ROUTING=tenant: each tenant's reads' node; nullptr: off.
  TenantReadNodes* tenant_nodes = nullptr;
  // A TCP listening socket (listen_socket_is_tcp): each connection gets
  // TCP_NODELAY. libfcgi writes a response in a few writes (a full buffer,
  // then the rest and END_REQUEST at the finish); with Nagle's algorithm a
  // short write is held while earlier data is unacknowledged, and the
  // receiving kernel delays its ACKs (up to 40 ms on Linux). Set per
  // connection, not left to the listening socket: whoever made that one
  // (spawn-fcgi, a socket unit without NoDelay=) may not have set it.
  bool tcp_nodelay = false;

  // Requests whose body is still arriving (common/request_arrival.h); the
  // ones it hands back are armed here again.
  ArrivingBodies arriving{[this](int fd) { rearm(fd); }, [this](int fd) { close_connection(fd); }};
  // Threads reading a body that did not fit a peek, and how many may:
  // the others stay free for requests that have arrived.
  std::atomic<int> body_readers{0};
  int body_reader_limit = 1;

  std::atomic<int> open_connections{0};
  // Workers between seeing the listening socket's event and counting what
  // they accepted: a stop waits for them too. (Each increments it before
  // reading `draining`, the stop sets `draining` before reading it: one of
  // the two sees the other.)
  std::atomic<int> accepting{0};
  std::atomic<bool> draining{false};
  // Set after the drain: workers leave their loops (woken by stop_fd).
  std::atomic<bool> stopping{false};

  // Whether the stop may end: nothing open and nothing being accepted.
  bool drained() const { return accepting.load() == 0 && open_connections.load() == 0; }

  // Arms `fd` for its next event; a connection that cannot be armed is
  // closed (false).
  bool arm(int fd, int op);

  // arm() for a connection that may not be in the set yet (one accepted and
  // found still arriving).
  void rearm(int fd);

  void close_connection(int fd);
  // For connections libfcgi closed.
  void connection_closed() { open_connections.fetch_sub(1); }

  // Starts a stop: no more connections are accepted.
  void drain() { draining.store(true); }

  // Takes the connections waiting in the listen queue (up to a batch) and
  // returns the first to be served now; the others join the set, behind the
  // kept connections that already have a request. Taking one per wake-up
  // would give the whole queue one turn per round of the kept connections:
  // with slow requests (logins) a new connection waited over 10 s.
  int accept_waiting();
};

// A worker thread's loop: serves what epoll reports until `d->stopping`.
void worker_loop(Dispatcher* d);

}  // namespace ca
