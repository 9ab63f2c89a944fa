// The handler executables' command line (common/serve.h's serve_main).
//
// Parsed once at start-up, before anything else; not thread-related.
#pragma once

#include <cstdio>

namespace ca {

struct ServeOptions {
  const char* socket_path = nullptr;
  int threads = 4;
  int db_connections = 0;  // 0: one per thread
  bool help = false;       // --help: usage printed, exit 0
};

// Prints the usage text to `out`.
void serve_usage(const char* program, FILE* out = stderr);

// Reads argv into `o`. False after printing why (usage or one line) on
// stderr: the caller exits 2.
bool parse_serve_options(int argc, char** argv, const char* program, ServeOptions* o);

}  // namespace ca
