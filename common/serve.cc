#include "serve.h"

#include <fcgiapp.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "config.h"
#include "db.h"
#include "db_pool.h"
#include "epoll_dispatcher.h"
#include "json_arena.h"
#include "jwt.h"
#include "listen_socket.h"
#include "log.h"
#include "metrics.h"
#include "password.h"
#include "serve_options.h"
#include "tenant_budget.h"
#include "tenant_read_nodes.h"

namespace ca {
namespace {

// Where this process's counter file goes (common/metrics.h): METRICS_DIR,
// else the directory of the listening socket (systemd's or --socket's),
// else (a TCP socket) the working directory.
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

}  // namespace

int serve_main(int argc, char** argv, const char* program, std::vector<Route> routes) {
  ServeOptions opt;
  if (!parse_serve_options(argc, argv, program, &opt)) return 2;
  if (opt.help) return 0;
  Config config = config_from_env_or_exit(program, ConfigNeeds::kDatabaseAndSecret);
  {
    // A handler without its database cannot serve anything: exit (one line,
    // from Db) rather than answer 503 to every request. systemd restarts it
    // (Restart=on-failure) until PostgreSQL is up.
    Db probe(config.database_url);
    if (!probe.ensure_connected()) return 1;
    if (!config.database_read_url.empty()) {
      Db read_probe(config.database_read_url);
      if (!read_probe.ensure_connected()) return 1;
    }
  }
  crypto_init();
  json_arena_install();
  // One tenant may hold all threads but one: a limit at or above the thread
  // count would protect nothing, so it is lowered (and said so).
  int64_t in_progress = config.tenant_requests_in_progress;
  if (in_progress > 0 && opt.threads > 1 && in_progress > opt.threads - 1) {
    in_progress = opt.threads - 1;
    log_info("TENANT_REQUESTS_IN_PROGRESS lowered to %lld: one less than the %d threads",
             static_cast<long long>(in_progress), opt.threads);
  }
  tenant_budget_configure({.busy_ms_per_second = config.tenant_busy_ms_per_second,
                           .bytes_per_second = config.tenant_answer_bytes_per_second},
                          in_progress);
  // Argon2id borrows 64 MiB per login. A fixed mmap threshold makes such
  // blocks go back to the kernel when freed (glibc's dynamic threshold would
  // keep them in the heap), and two arenas bound per-thread heap growth.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_ARENA_MAX, 2);

  if (FCGX_Init() != 0) {
    std::fprintf(stderr, "%s%s: FCGX_Init failed\n", log_priority_prefix(LogLevel::kError),
                 program);
    return 1;
  }
  int exit_code = 0;
  int listen_fd = take_listen_socket(program, opt.socket_path, &exit_code);
  if (listen_fd < 0) return exit_code;

  // Workers never see the stop signals; this thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // Workers take connections as epoll reports them; accept() must not block
  // when another process sharing the socket took the connection first. The
  // receive timeout bounds an accept() that blocks anyway, when another
  // process made the shared socket blocking (Linux applies SO_RCVTIMEO to
  // accept; common/epoll_dispatcher.cc sets O_NONBLOCK again).
  static constexpr timeval kAcceptWaitLimit{0, 10000};
  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event stop_event{};
  stop_event.events = EPOLLIN;
  stop_event.data.fd = stop_fd;
  if (epoll_fd < 0 || stop_fd < 0 ||
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, stop_fd, &stop_event) != 0 ||
      fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK) != 0 ||
      setsockopt(listen_fd, SOL_SOCKET, SO_RCVTIMEO, &kAcceptWaitLimit, sizeof kAcceptWaitLimit) !=
          0) {
    std::fprintf(stderr, "%s%s: cannot set up the listening socket: %s\n",
                 log_priority_prefix(LogLevel::kError), program, std::strerror(errno));
    return 1;
  }
  metrics_init(metrics_dir(listen_fd), metrics_group(program), routes);
  Router router(std::move(routes));
  int db_connections = opt.db_connections > 0 ? opt.db_connections : opt.threads;
  DbPool pool(config.database_url, db_connections, config.db_statement_timeout_seconds * 1000);
  // DATABASE_READ_URL: reads get a pool of their own, as large (its
  // connections, like the other's, open on their first use).
  std::unique_ptr<DbPool> read_pool;
  if (!config.database_read_url.empty()) {
    read_pool = std::make_unique<DbPool>(config.database_read_url, db_connections,
                                         config.db_statement_timeout_seconds * 1000);
    log_info("reads (GET, HEAD) connect to DATABASE_READ_URL, writes to DATABASE_URL");
  }
  std::unique_ptr<TenantReadNodes> tenant_nodes;
  if (config.reads_to_tenant_node) {
    tenant_nodes = std::make_unique<TenantReadNodes>(config.database_url, db_connections,
                                                     config.db_statement_timeout_seconds * 1000);
    log_info("a tenant's reads go to the node holding its shards (CITUS_READ_ROUTING=tenant)");
  }
  // Password checks (logins) may take every thread but one and every
  // database connection but one (a login holds its connection while it
  // hashes), so /healthz and cheap requests always find both. With one
  // thread or one connection the bound is 1 and guarantees nothing.
  password_limit_concurrency(std::min(opt.threads, db_connections) - 1);
  Dispatcher dispatcher(listen_fd, epoll_fd, stop_fd, &router, &config, &pool);
  dispatcher.read_pool = read_pool.get();
  dispatcher.tenant_nodes = tenant_nodes.get();
  dispatcher.tcp_nodelay = listen_socket_is_tcp(listen_fd);
  dispatcher.body_reader_limit = std::max(1, opt.threads / 2);
  dispatcher.arm(listen_fd, EPOLL_CTL_ADD);
  std::vector<std::thread> workers;
  for (int i = 0; i < opt.threads; ++i) workers.emplace_back(worker_loop, &dispatcher);
  log_info("serving with %d threads", opt.threads);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  log_info("signal %d: stopping", sig);
  dispatcher.drain();
  // How long a stop waits for nginx to close its kept connections (see
  // Dispatcher) before the process closes them itself
  // (HANDLER_DRAIN_SECONDS, 8): nginx does within about 3 s plus a request,
  // and the units give a stop 10 s (TimeoutStopSec) before SIGKILL.
  auto drain_end =
      std::chrono::steady_clock::now() + std::chrono::seconds(config.handler_drain_seconds);
  while (!dispatcher.drained() && std::chrono::steady_clock::now() < drain_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (int left = dispatcher.open_connections.load(); left > 0) {
    log_error("stopping with %d connection(s) still open", left);
  }
  dispatcher.stopping.store(true);
  // Idle workers wake and leave.
  uint64_t one = 1;
  if (write(stop_fd, &one, sizeof(one)) != sizeof(one)) {
    log_error("stopping: eventfd write: %s", std::strerror(errno));
  }
  for (std::thread& w : workers) w.join();
  close(stop_fd);
  close(epoll_fd);
  remove_listen_socket(opt.socket_path);
  return 0;
}

}  // namespace ca
