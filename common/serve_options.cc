#include "serve_options.h"

#include <cstdlib>
#include <string>

namespace ca {

void serve_usage(const char* program, FILE* out) {
  std::fprintf(out,
               "usage: %s [--threads N] [--db-connections M] [--socket PATH]\n"
               "  Serves FastCGI on the socket it inherits, unix or TCP (fd 0 from\n"
               "  spawn-fcgi or systemd StandardInput=socket, or systemd's LISTEN_FDS),\n"
               "  or on a unix socket at PATH, with N threads sharing M database\n"
               "  connections (default M = N). Configuration comes from the environment.\n",
               program);
}

bool parse_serve_options(int argc, char** argv, const char* program, ServeOptions* o) {
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
      serve_usage(program, stdout);
      o->help = true;
      return true;
    } else {
      serve_usage(program);
      return false;
    }
  }
  return true;
}

}  // namespace ca
