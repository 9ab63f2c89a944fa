// What one tenant may cost a handler process: request time and answer bytes.
//
// Per-token and per-address request rates (nginx) do not bound cost: one
// tenant's client with ten tokens can ask for the largest answers (megabytes
// each) or the slowest searches at the full rate and take the CPU every
// tenant shares. So each process keeps, per tenant, two token buckets:
// milliseconds of request time and bytes of answers, refilled at
// TENANT_BUSY_MS_PER_SECOND and TENANT_ANSWER_BYTES_PER_SECOND. A request is
// charged after it is answered, to the tenant its token and membership were
// verified for; a request is refused (429 with Retry-After) before any work
// while the tenant it names (X-Tenant-ID, or the path's {tenantId}) is in
// debt. Naming another tenant therefore only refuses the caller's own
// request: only a tenant's verified requests drain its budget.
//
// The budgets are per process (the two processes of a group each have one),
// so a tenant's share of a group is twice the setting; docs/security.md.
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace ca {

struct TenantBudgetSettings {
  int64_t busy_ms_per_second = 0;  // 0: time is not limited
  int64_t bytes_per_second = 0;    // 0: answer bytes are not limited
};

class TenantBudget {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TenantBudget(TenantBudgetSettings settings);

  // 0 when `tenant` may be served at `now`; else the whole seconds until
  // its budget is positive again (at least 1), for Retry-After.
  int64_t wait_seconds(int64_t tenant, Clock::time_point now);
  // Takes a served request's cost from `tenant`'s budget.
  void charge(int64_t tenant, Clock::duration took, size_t answer_bytes, Clock::time_point now);

  // A full bucket holds this many seconds of its rate: a burst that large
  // is served at once. The bytes bucket holds at least kMinBytesBurst, so
  // that the largest answer (8 MiB, docs/security.md) is never refused
  // forever.
  static constexpr int64_t kBurstSeconds = 4;
  static constexpr double kMinBytesBurst = 16.0 * 1024 * 1024;
  // Tenants remembered before full (idle) buckets are forgotten.
  static constexpr size_t kMaxTracked = 100000;
  // Tenants tracked now (for tests).
  size_t tracked() {
    std::lock_guard<std::mutex> lock(mu_);
    return buckets_.size();
  }

 private:
  struct Bucket {
    double ms = 0;     // may go below zero: debt
    double bytes = 0;  // likewise
    Clock::time_point at{};
  };
  Bucket& refilled(int64_t tenant, Clock::time_point now);
  void forget_full_buckets(Clock::time_point now);

  const TenantBudgetSettings settings_;
  const double ms_capacity_;
  const double bytes_capacity_;
  std::mutex mu_;
  std::unordered_map<int64_t, Bucket> buckets_;
};

// Requests of one tenant being served at once in a process, at most
// `limit` (0: no limit). A budget bounds what a tenant spends per second,
// not how many of a process's threads it holds at one moment: a client
// with many connections could still fill every thread with its slowest
// requests, and another tenant's request would wait for one. Counted by
// the tenant a request names, before anything is verified, for as long as
// it is served (a request naming another tenant with a bad token holds a
// slot for the microseconds its refusal takes).
class TenantInProgress {
 public:
  explicit TenantInProgress(int64_t limit) : limit_(limit) {}

  // A slot of `tenant`'s, held until the Slot goes; empty (false) when the
  // tenant already has `limit` requests in progress.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& o) noexcept : owner_(o.owner_), tenant_(o.tenant_) { o.owner_ = nullptr; }
    Slot& operator=(Slot&& o) noexcept {
      if (this != &o) {
        release();
        owner_ = o.owner_;
        tenant_ = o.tenant_;
        o.owner_ = nullptr;
      }
      return *this;
    }
    Slot(const Slot&) = delete;
    ~Slot() { release(); }
    explicit operator bool() const { return owner_ != nullptr; }

   private:
    friend class TenantInProgress;
    Slot(TenantInProgress* owner, int64_t tenant) : owner_(owner), tenant_(tenant) {}
    void release();
    TenantInProgress* owner_ = nullptr;
    int64_t tenant_ = 0;
  };
  Slot enter(int64_t tenant);
  int64_t limit() const { return limit_; }

 private:
  void leave(int64_t tenant);

  const int64_t limit_;
  std::mutex mu_;
  std::unordered_map<int64_t, int64_t> counts_;  // only tenants with requests in progress
};

// The process's budget and in-progress limit: configured once by serve()
// before any request, off until then.
void tenant_budget_configure(TenantBudgetSettings settings, int64_t requests_in_progress);
TenantBudget& tenant_budget();
TenantInProgress& tenant_in_progress();

}  // namespace ca
