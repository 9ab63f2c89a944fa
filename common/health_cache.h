// The answer to /healthz, reused for a moment: a flood of probes costs the
// database at most one statement per process per `fresh_for` (issue 42).
//
// Thread-safe; one per process (health_routes.cc).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

namespace ca {

class HealthCache {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = Clock::time_point (*)();

  explicit HealthCache(Clock::duration fresh_for, Now now = &Clock::now)
      : fresh_for_(fresh_for), now_(now) {}

  // Whether the database is up. The last probe's answer while it is less
  // than `fresh_for` old; otherwise `probe()` is asked, by one thread at a
  // time. Meanwhile the others get the previous answer while the running
  // probe is younger than `fresh_for`, and false after that (a database
  // that takes longer than that for SELECT 1 is not healthy); before any
  // answer they wait for the first.
  bool healthy(const std::function<bool()>& probe);

 private:
  const Clock::duration fresh_for_;
  const Now now_;
  std::mutex mu_;
  std::condition_variable answered_;
  bool probing_ = false;
  Clock::time_point probe_started_{};
  std::optional<bool> last_;
  Clock::time_point answered_at_{};  // when the probe that gave last_ ended
};

}  // namespace ca
