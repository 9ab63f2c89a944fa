// bench/metrics_cost: what counting one request for GET /metrics costs a
// handler (common/metrics.h), in the handlers' own code. The products
// group's route table, metrics_record() for its last route (the longest
// search), two threads counting into one mapped file as two handler threads
// do. Prints the CPU nanoseconds per counted request; bench/run sets it
// beside the handlers' CPU microseconds per request.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>
#include <vector>

#include "metrics.h"
#include "router.h"

namespace {

ca::Result<ca::Response> unused(ca::Ctx&) { return ca::Response{}; }

constexpr long kPerThread = 2'000'000;

}  // namespace

int main() {
  char dir[] = "/tmp/ca-metrics-cost.XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  std::vector<ca::Route> routes = {
      {"GET", "/api/v2/admin/products", unused},
      {"POST", "/api/v2/admin/products", unused},
      {"GET", "/api/v2/admin/products/{id}", unused},
      {"POST", "/api/v2/admin/products/{id}", unused},
      {"DELETE", "/api/v2/admin/products/{id}", unused},
  };
  if (!ca::metrics_init(dir, "bench", routes)) return 1;
  const char* route = routes.back().pattern;
  std::clock_t cpu_start = std::clock();
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([route] {
      for (long i = 0; i < kPerThread; ++i) {
        ca::metrics_record("DELETE", route, 200, std::chrono::microseconds(700 + i % 5000));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  double cpu_ns = 1e9 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::printf("%.0f\n", cpu_ns / (2.0 * kPerThread));
  std::filesystem::remove_all(dir);
  return 0;
}
