// The FastCGI serve loop shared by every handler executable.
//
// serve_main() parses the command line, loads the configuration, takes the
// listening socket (fd 0 as spawn-fcgi and systemd pass it, or --socket PATH),
// and runs N worker threads, each with its own database connection, that
// accept requests, route them and write the responses. SIGTERM or SIGINT stop
// it cleanly: in-flight requests finish, then the process exits 0.
//
// Its parts, one job each: serve_options (command line), listen_socket (the
// listening socket), epoll_dispatcher (connections to worker threads, the
// drain at stop), serve_request (one request: read, route, answer, count,
// log), fcgi_request (FastCGI to Request, Response to FastCGI),
// route_dispatch (the route's handler called), health_routes (/healthz, ping).
#pragma once

#include <vector>

#include "health_routes.h"
#include "router.h"

namespace ca {

// Runs the process; returns its exit code.
int serve_main(int argc, char** argv, const char* program, std::vector<Route> routes);

}  // namespace ca
