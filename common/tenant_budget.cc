#include "tenant_budget.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace ca {
namespace {

double seconds_between(TenantBudget::Clock::time_point from, TenantBudget::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

TenantBudget::TenantBudget(TenantBudgetSettings settings)
    : settings_(settings),
      ms_capacity_(static_cast<double>(settings.busy_ms_per_second) * kBurstSeconds),
      bytes_capacity_(std::max(static_cast<double>(settings.bytes_per_second) * kBurstSeconds,
                               kMinBytesBurst)) {}

TenantBudget::Bucket& TenantBudget::refilled(int64_t tenant, Clock::time_point now) {
  auto [it, inserted] = buckets_.try_emplace(tenant);
  Bucket& b = it->second;
  if (inserted) {
    b = Bucket{ms_capacity_, bytes_capacity_, now};
    return b;
  }
  const double elapsed = std::max(0.0, seconds_between(b.at, now));
  b.ms = std::min(ms_capacity_, b.ms + elapsed * static_cast<double>(settings_.busy_ms_per_second));
  b.bytes = std::min(bytes_capacity_,
                     b.bytes + elapsed * static_cast<double>(settings_.bytes_per_second));
  b.at = std::max(b.at, now);
  return b;
}

int64_t TenantBudget::wait_seconds(int64_t tenant, Clock::time_point now) {
  const bool limits_time = settings_.busy_ms_per_second > 0;
  const bool limits_bytes = settings_.bytes_per_second > 0;
  if (!limits_time && !limits_bytes) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto found = buckets_.find(tenant);
  if (found == buckets_.end()) return 0;  // nothing spent yet: a full budget
  const Bucket& b = refilled(tenant, now);
  const bool out_of_time = limits_time && b.ms <= 0;
  const bool out_of_bytes = limits_bytes && b.bytes <= 0;
  if (!out_of_time && !out_of_bytes) return 0;
  double wait = 0;
  if (out_of_time) wait = -b.ms / static_cast<double>(settings_.busy_ms_per_second);
  if (out_of_bytes) {
    wait = std::max(wait, -b.bytes / static_cast<double>(settings_.bytes_per_second));
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(wait)));
}

void TenantBudget::charge(int64_t tenant, Clock::duration took, size_t answer_bytes,
                          Clock::time_point now) {
  if (settings_.busy_ms_per_second <= 0 && settings_.bytes_per_second <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (buckets_.size() >= kMaxTracked && buckets_.count(tenant) == 0) forget_full_buckets(now);
  Bucket& b = refilled(tenant, now);
  // Debt is bounded by one full bucket: the longest a tenant waits after
  // one enormous request is kBurstSeconds (or the bytes bucket's time). A
  // budget that is off is never charged, so its bucket stays full and an
  // idle tenant can be forgotten.
  if (settings_.busy_ms_per_second > 0) {
    b.ms = std::max(-ms_capacity_, b.ms - std::chrono::duration<double, std::milli>(took).count());
  }
  if (settings_.bytes_per_second > 0) {
    b.bytes = std::max(-bytes_capacity_, b.bytes - static_cast<double>(answer_bytes));
  }
}

void TenantBudget::forget_full_buckets(Clock::time_point now) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const Bucket& b = refilled(it->first, now);
    if (b.ms >= ms_capacity_ && b.bytes >= bytes_capacity_) {
      it = buckets_.erase(it);
    } else {
      ++it;
    }
  }
}

void TenantInProgress::Slot::release() {
  if (owner_ != nullptr) owner_->leave(tenant_);
  owner_ = nullptr;
}

TenantInProgress::Slot TenantInProgress::enter(int64_t tenant) {
  if (limit_ <= 0) return Slot(this, tenant);
  std::lock_guard<std::mutex> lock(mu_);
  int64_t& n = counts_[tenant];
  if (n >= limit_) return Slot();
  ++n;
  return Slot(this, tenant);
}

void TenantInProgress::leave(int64_t tenant) {
  if (limit_ <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counts_.find(tenant);
  if (it != counts_.end() && --it->second <= 0) counts_.erase(it);
}

namespace {
std::unique_ptr<TenantBudget>& configured_budget() {
  static std::unique_ptr<TenantBudget> budget;
  return budget;
}
std::unique_ptr<TenantInProgress>& configured_in_progress() {
  static std::unique_ptr<TenantInProgress> in_progress;
  return in_progress;
}
}  // namespace

void tenant_budget_configure(TenantBudgetSettings settings, int64_t requests_in_progress) {
  configured_budget() = std::make_unique<TenantBudget>(settings);
  configured_in_progress() = std::make_unique<TenantInProgress>(requests_in_progress);
}

TenantBudget& tenant_budget() {
  static TenantBudget off{TenantBudgetSettings{}};
  return configured_budget() ? *configured_budget() : off;
}

TenantInProgress& tenant_in_progress() {
  static TenantInProgress off{0};
  return configured_in_progress() ? *configured_in_progress() : off;
}

}  // namespace ca
