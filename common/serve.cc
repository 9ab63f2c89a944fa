#include "serve.h"

#include <fcgiapp.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "config.h"
#include "db.h"
#include "db_pool.h"
#include "error.h"
#include "idempotency.h"
#include "json_arena.h"
#include "jwt.h"
#include "log.h"
#include "metrics.h"
#include "password.h"

namespace ca {
namespace {

// Requests larger than this are refused before reading (nginx caps at 1 MiB).
constexpr size_t kMaxBody = 1 << 20;
// nginx gives up on a request after fastcgi_read_timeout (30 s,
// nginx/commerce-admin.conf.in) and answers 504. Nothing a request writes
// may commit after this point, counted from when nginx passed it on (see
// Db::set_request_deadline), lest a client told it failed find it done.
// (DB_STATEMENT_TIMEOUT_SECONDS is at most this long too.)
constexpr auto kRequestDeadline = std::chrono::seconds(25);

struct Options {
  const char* socket_path = nullptr;
  int threads = 4;
  int db_connections = 0;  // 0: one per thread
  bool help = false;       // --help: usage printed, exit 0
};

void usage(const char* program, FILE* out = stderr) {
  std::fprintf(out,
               "usage: %s [--threads N] [--db-connections M] [--socket PATH]\n"
               "  Serves FastCGI on fd 0 (spawn-fcgi, systemd StandardInput=socket)\n"
               "  or on a unix socket at PATH, with N threads sharing M database\n"
               "  connections (default M = N). Configuration comes from the environment.\n",
               program);
}

bool parse_options(int argc, char** argv, const char* program, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      o->threads = std::atoi(argv[++i]);
      if (o->threads < 1 || o->threads > 256) {
        std::fprintf(stderr, "%s: --threads must be from 1 to 256\n", program);
        return false;
      }
    } else if (arg == "--db-connections" && i + 1 < argc) {
      o->db_connections = std::atoi(argv[++i]);
      if (o->db_connections < 1 || o->db_connections > 256) {
        std::fprintf(stderr, "%s: --db-connections must be from 1 to 256\n", program);
        return false;
      }
    } else if (arg == "--socket" && i + 1 < argc) {
      o->socket_path = argv[++i];
    } else if (arg == "--help" || arg == "-h") {
      usage(program, stdout);
      o->help = true;
      return true;
    } else {
      usage(program);
      return false;
    }
  }
  return true;
}

const char* param(FCGX_Request& r, const char* name) {
  const char* v = FCGX_GetParam(name, r.envp);
  return v ? v : "";
}

// Reads up to CONTENT_LENGTH bytes, then the request's input up to its end:
// nginx closes the body with an empty STDIN record, and when that record
// came in a later read than the body's last byte it would otherwise stay on
// a kept connection and be taken for the start of the next request (a
// protocol error: libfcgi closes the connection, and the request nginx sent
// on it meanwhile gets a 502). False when the body is over the cap; its
// connection is then not kept, the body being left unread.
bool read_body(FCGX_Request& r, std::string* out) {
  const char* length_text = param(r, "CONTENT_LENGTH");
  size_t length = std::strtoull(length_text, nullptr, 10);
  if (length > kMaxBody) {
    r.keepConnection = 0;
    return false;
  }
  out->resize(length);
  size_t got = 0;
  while (got < length) {
    int n = FCGX_GetStr(out->data() + got, static_cast<int>(length - got), r.in);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out->resize(got);
  char rest[256];
  while (FCGX_GetStr(rest, sizeof(rest), r.in) > 0) {
  }
  return true;
}

void write_response(FCGX_Request& r, const Response& resp) {
  std::string head =
      "Status: " + std::to_string(resp.status) + " " + status_reason(resp.status) + "\r\n";
  bool typed = false;  // JSON unless the response says otherwise (/metrics)
  for (const auto& [name, value] : resp.headers) {
    head += name + ": " + value + "\r\n";
    typed = typed || name == "Content-Type";
  }
  if (!typed) head += "Content-Type: application/json; charset=utf-8\r\n";
  head += "\r\n";
  FCGX_PutStr(head.data(), static_cast<int>(head.size()), r.out);
  FCGX_PutStr(resp.body.data(), static_cast<int>(resp.body.size()), r.out);
}

Result<Response> call_handler(Handler handler, Ctx& ctx) {
  try {
    return handler(ctx);
  } catch (const std::exception& e) {
    return Error::internal(std::string("unhandled exception: ") + e.what());
  }
}

// The response for a handler's answer: an Error is rendered in the route's
// style here, for every route (common/error.h).
Response respond(Result<Response> answer, ErrorStyle style) {
  return answer.ok() ? std::move(*answer) : render(answer.error(), style);
}

Response dispatch(const Router& router, Request& req, Db& db, const Config& config) {
  RouteMatch m = router.match(req.method, req.path);
  if (m.kind == RouteMatch::kNotFound) {
    return respond(Error::not_found("Not found"), ErrorStyle::kPlain);
  }
  if (m.kind == RouteMatch::kMethodNotAllowed) {
    return respond(Error::method_not_allowed(m.allow), ErrorStyle::kPlain);
  }
  req.params = std::move(m.params);
  log_request_context().route = m.pattern;
  Ctx ctx{req, db, config};
  if (m.idempotent && req.idempotency_key) {
    IdempotentRequest keyed(req, db);
    ctx.idempotency = &keyed;
    return respond(keyed.finish(call_handler(m.handler, ctx)), m.error_style);
  }
  return respond(call_handler(m.handler, ctx), m.error_style);
}

// Where this process's counter file goes (common/metrics.h): METRICS_DIR,
// else the directory of the listening socket (systemd's or --socket's).
std::string metrics_dir(int listen_fd) {
  if (const char* dir = std::getenv("METRICS_DIR"); dir != nullptr && *dir != '\0') return dir;
  sockaddr_un addr{};
  socklen_t len = sizeof addr;
  if (getsockname(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      addr.sun_family != AF_UNIX || addr.sun_path[0] == '\0') {
    return ".";
  }
  std::string path(addr.sun_path, strnlen(addr.sun_path, sizeof addr.sun_path));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// "commerce-admin-auth" -> "auth".
std::string metrics_group(const char* program) {
  std::string_view name = program;
  constexpr std::string_view kPrefix = "commerce-admin-";
  if (name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
  return std::string(name);
}

std::atomic<bool> stopping{false};

// How long a stop waits for nginx to close its kept connections (see
// Dispatcher) before the process closes them itself: nginx does within
// about 3 s plus a request, and the units give a stop 10 s (TimeoutStopSec)
// before SIGKILL.
constexpr auto kDrainLimit = std::chrono::seconds(8);

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
// kDrainLimit.
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

  std::atomic<int> open_connections{0};
  // Workers between seeing the listening socket's event and counting what
  // they accepted: a stop waits for them too. (Each increments it before
  // reading `draining`, the stop sets `draining` before reading it: one of
  // the two sees the other.)
  std::atomic<int> accepting{0};
  std::atomic<bool> draining{false};

  // Whether the stop may end: nothing open and nothing being accepted.
  bool drained() const { return accepting.load() == 0 && open_connections.load() == 0; }

  // Arms `fd` for its next event; a connection that cannot be armed is
  // closed (false).
  bool arm(int fd, int op) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLONESHOT;
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

  void close_connection(int fd) {
    close(fd);
    connection_closed();
  }
  // For connections libfcgi closed.
  void connection_closed() { open_connections.fetch_sub(1); }

  // Starts a stop: no more connections are accepted.
  void drain() { draining.store(true); }

  // Takes the connections waiting in the listen queue (up to a batch) and
  // returns the first to be served now; the others join the set, behind the
  // kept connections that already have a request. Taking one per wake-up
  // would give the whole queue one turn per round of the kept connections:
  // with slow requests (logins) a new connection waited over 10 s.
  int accept_waiting() {
    constexpr int kBatch = 16;
    int first = -1;
    for (int i = 0; i < kBatch; ++i) {
      int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno != EAGAIN && errno != ECONNABORTED) {
          // At most one line a second: out of descriptors, this repeats.
          static std::atomic<int64_t> last_logged{0};
          int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
          if (last_logged.exchange(now) != now) log_error("accept: %s", std::strerror(errno));
          // Out of descriptors: let connections close rather than spin.
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        break;
      }
      open_connections.fetch_add(1);
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
};

// One line per request: always in json mode, at debug in text mode (an
// access log is nginx's job; text mode stays as quiet as it always was).
// The path is not logged, only the route's pattern: ids in paths are
// harmless, but a pattern groups the lines by endpoint.
void log_request_line(const Request& req, int status, std::chrono::steady_clock::duration took) {
  LogLevel level = log_format() == LogFormat::kJson ? LogLevel::kInfo : LogLevel::kDebug;
  if (!log_enabled(level)) return;
  const LogRequestContext& c = log_request_context();
  // Milliseconds to the microsecond.
  auto ms = [](auto d) {
    return std::round(std::chrono::duration<double, std::milli>(d).count() * 1000) / 1000;
  };
  Json fields = json_object();
  json_add_str(fields.get(), "method", req.method);
  json_add_str(fields.get(), "route", c.route != nullptr ? c.route : "(none)");
  json_add_int(fields.get(), "status", status);
  json_add_num(fields.get(), "duration_ms", ms(took));
  json_add_num(fields.get(), "db_ms", ms(c.db_time));
  json_add_int(fields.get(), "db_round_trips", c.db_round_trips);
  if (c.tenant_id != 0) json_add_int(fields.get(), "tenant_id", c.tenant_id);
  if (c.user_id != 0) json_add_int(fields.get(), "user_id", c.user_id);
  log_fields(level, "request", fields.get());
}

void serve_request(Dispatcher& d, FCGX_Request& r) {
  // When nginx passed the request on: its timeout runs from there, and the
  // request may have waited for a free thread since.
  auto started = std::chrono::steady_clock::now();
  if (auto age =
          request_age(FCGX_GetParam("REQUEST_START", r.envp), std::chrono::system_clock::now())) {
    started -= *age;
  }
  Request req;
  req.method = param(r, "REQUEST_METHOD");
  // nginx passes only what is read here (nginx/commerce-admin.conf.in).
  req.path = param(r, "DOCUMENT_URI");
  req.query = param(r, "QUERY_STRING");
  // A header sent twice is read as both values (nginx refuses a second
  // Authorization line itself; X-Tenant-ID "21, 1" is not a tenant id).
  if (auto auth = fcgi_param(r.envp, "HTTP_AUTHORIZATION")) req.authorization = std::move(*auth);
  if (auto tenant = fcgi_param(r.envp, "HTTP_X_TENANT_ID")) {
    req.tenant_header = std::move(*tenant);
    req.has_tenant_header = true;
  }
  req.idempotency_key = fcgi_param(r.envp, "HTTP_IDEMPOTENCY_KEY");
  req.remote_addr = param(r, "REMOTE_ADDR");
  // Chosen by nginx: the client's own X-Request-Id when sane, else its
  // $request_id (nginx/commerce-admin.conf.in); every log line of the
  // request and its 500 body carry it.
  req.request_id = param(r, "REQUEST_ID");
  log_request_begin(req.request_id);
  req.connection_fd = r.ipcFd;
  Response resp;
  // Every cJSON value of the request (parsed body, response tree) lives and
  // dies inside this scope; the response leaves it as text.
  JsonArenaScope json_memory;
  if (read_body(r, &req.body)) {
    // The connection is held for the handler only, not while writing.
    DbPool::Lease db = d.pool->acquire();
    (*db).set_request_deadline(started + kRequestDeadline);
    resp = dispatch(*d.router, req, *db, *d.config);
  } else {
    resp = respond(Error::payload_too_large("Request body too large"), ErrorStyle::kPlain);
  }
  write_response(r, resp);
  auto took = std::chrono::steady_clock::now() - started;
  metrics_record(req.method.c_str(), log_request_context().route, resp.status, took);
  log_request_line(req, resp.status, took);
  log_request_end();
}

// Serves the request waiting on `fd`. libfcgi reads it from the socket it
// is given (ipcFd set, keepConnection so that its first step, finishing a
// previous request, leaves the socket open); when nginx has closed the
// socket instead, libfcgi closes it and tries to accept on the request's
// listening socket, which is -1 here, so it returns at once.
void serve_connection(Dispatcher& d, FCGX_Request& r, int fd, int arm_op) {
  r.ipcFd = fd;
  r.keepConnection = 1;
  if (FCGX_Accept_r(&r) < 0) {
    d.connection_closed();
    return;
  }
  serve_request(d, r);
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

void worker_loop(Dispatcher* d) {
  FCGX_Request r;
  FCGX_InitRequest(&r, -1, 0);
  while (!stopping.load()) {
    epoll_event ev{};
    int n = epoll_wait(d->epoll_fd, &ev, 1, -1);
    if (n < 0 && errno != EINTR) {
      // Not expected on a valid set; a worker that left quietly would
      // leave the process looking alive with nobody serving.
      log_error("epoll_wait: %s", std::strerror(errno));
      std::_Exit(1);
    }
    if (n <= 0 || stopping.load() || ev.data.fd == d->stop_fd) continue;
    if (ev.data.fd == d->listen_fd) {
      d->accepting.fetch_add(1);
      int fd = d->draining.load() ? -1 : d->accept_waiting();
      d->accepting.fetch_sub(1);
      if (fd >= 0) serve_connection(*d, r, fd, EPOLL_CTL_ADD);
    } else {
      serve_connection(*d, r, ev.data.fd, EPOLL_CTL_MOD);
    }
  }
  FCGX_Free(&r, 1);
}

}  // namespace

Result<Response> health_handler(Ctx& ctx) {
  static const Statement kPing{"health_ping", "SELECT 1"};
  DbResult r = ctx.db.exec(kPing);
  Json body = json_object();
  json_add_str(body.get(), "status", r.ok() ? "ok" : "unavailable");
  return Response::json(r.ok() ? 200 : 503, body);
}

Result<Response> ping_handler(Ctx&) { return Response{200, R"({"status":"ok"})", {}}; }

int serve_main(int argc, char** argv, const char* program, std::vector<Route> routes) {
  Options opt;
  if (!parse_options(argc, argv, program, &opt)) return 2;
  if (opt.help) return 0;
  Config config = config_from_env_or_exit(program, ConfigNeeds::kDatabaseAndSecret);
  {
    // A handler without its database cannot serve anything: exit (one line,
    // from Db) rather than answer 503 to every request. systemd restarts it
    // (Restart=on-failure) until PostgreSQL is up.
    Db probe(config.database_url);
    if (!probe.ensure_connected()) return 1;
  }
  crypto_init();
  json_arena_install();
  // Argon2id borrows 64 MiB per login. A fixed mmap threshold makes such
  // blocks go back to the kernel when freed (glibc's dynamic threshold would
  // keep them in the heap), and two arenas bound per-thread heap growth.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_ARENA_MAX, 2);

  if (FCGX_Init() != 0) {
    std::fprintf(stderr, "%s: FCGX_Init failed\n", program);
    return 1;
  }
  int listen_fd = 0;
  if (opt.socket_path != nullptr) {
    unlink(opt.socket_path);
    listen_fd = FCGX_OpenSocket(opt.socket_path, 128);
    if (listen_fd < 0) {
      std::fprintf(stderr, "%s: cannot listen on %s: %s\n", program, opt.socket_path,
                   std::strerror(errno));
      return 1;
    }
    // libfcgi creates it 0755 root-owned; nginx workers must be able to connect.
    chmod(opt.socket_path, 0666);
  } else {
    struct stat st;
    if (fstat(0, &st) != 0 || !S_ISSOCK(st.st_mode)) {
      std::fprintf(stderr,
                   "%s: fd 0 is not a listening socket; start it with spawn-fcgi or systemd "
                   "socket activation, or pass --socket PATH\n",
                   program);
      return 2;
    }
  }

  // Workers never see the stop signals; this thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // Workers take connections as epoll reports them; accept() must not block
  // when another process sharing the socket took the connection first.
  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event stop_event{};
  stop_event.events = EPOLLIN;
  stop_event.data.fd = stop_fd;
  if (epoll_fd < 0 || stop_fd < 0 ||
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, stop_fd, &stop_event) != 0 ||
      fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK) != 0) {
    std::fprintf(stderr, "%s: cannot set up the listening socket: %s\n", program,
                 std::strerror(errno));
    return 1;
  }
  metrics_init(metrics_dir(listen_fd), metrics_group(program), routes);
  Router router(std::move(routes));
  int db_connections = opt.db_connections > 0 ? opt.db_connections : opt.threads;
  DbPool pool(config.database_url, db_connections, config.db_statement_timeout_seconds * 1000);
  // Password checks (logins) may take every thread but one and every
  // database connection but one (a login holds its connection while it
  // hashes), so /healthz and cheap requests always find both. With one
  // thread or one connection the bound is 1 and guarantees nothing.
  password_limit_concurrency(std::min(opt.threads, db_connections) - 1);
  Dispatcher dispatcher(listen_fd, epoll_fd, stop_fd, &router, &config, &pool);
  dispatcher.arm(listen_fd, EPOLL_CTL_ADD);
  std::vector<std::thread> workers;
  for (int i = 0; i < opt.threads; ++i) workers.emplace_back(worker_loop, &dispatcher);
  log_info("serving with %d threads", opt.threads);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  log_info("signal %d: stopping", sig);
  dispatcher.drain();
  auto drain_end = std::chrono::steady_clock::now() + kDrainLimit;
  while (!dispatcher.drained() && std::chrono::steady_clock::now() < drain_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (int left = dispatcher.open_connections.load(); left > 0) {
    log_error("stopping with %d connection(s) still open", left);
  }
  stopping.store(true);
  // Idle workers wake and leave.
  uint64_t one = 1;
  if (write(stop_fd, &one, sizeof(one)) != sizeof(one)) {
    log_error("stopping: eventfd write: %s", std::strerror(errno));
  }
  for (std::thread& w : workers) w.join();
  close(stop_fd);
  close(epoll_fd);
  if (opt.socket_path != nullptr) unlink(opt.socket_path);
  return 0;
}

}  // namespace ca
