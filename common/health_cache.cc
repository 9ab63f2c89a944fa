#include "health_cache.h"

namespace ca {

bool HealthCache::healthy(const std::function<bool()>& probe) {
  std::unique_lock lock(mu_);
  for (;;) {
    Clock::time_point now = now_();
    if (last_ && now - answered_at_ < fresh_for_) return *last_;
    if (!probing_) break;
    if (last_) return now - probe_started_ < fresh_for_ && *last_;
    answered_.wait(lock);
  }
  probing_ = true;
  probe_started_ = now_();
  lock.unlock();
  bool ok = false;
  try {
    ok = probe();
  } catch (...) {
    // Not expected (a probe reports failure as false); the next caller probes again.
    lock.lock();
    probing_ = false;
    answered_.notify_all();
    throw;
  }
  lock.lock();
  last_ = ok;
  answered_at_ = now_();
  probing_ = false;
  answered_.notify_all();
  return ok;
}

}  // namespace ca
