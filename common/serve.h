// The FastCGI serve loop shared by every handler executable.
//
// serve_main() parses the command line, loads the configuration, takes the
// listening socket (fd 0 as spawn-fcgi and systemd pass it, or --socket PATH),
// and runs N worker threads, each with its own database connection, that
// accept requests, route them and write the responses. SIGTERM or SIGINT stop
// it cleanly: in-flight requests finish, then the process exits 0.
#pragma once

#include <vector>

#include "router.h"

namespace ca {

// Runs the process; returns its exit code.
int serve_main(int argc, char** argv, const char* program, std::vector<Route> routes);

// GET /healthz and GET /api/v2/admin/ping, for any handler's route table.
Result<Response> health_handler(Ctx& ctx);
Result<Response> ping_handler(Ctx& ctx);

}  // namespace ca
