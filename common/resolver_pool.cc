#include "resolver_pool.h"

#include <system_error>
#include <utility>

namespace ca {

// Shared by the caller and the pool thread: whichever lets go last frees
// the answer.
struct ResolverPool::Job {
  std::string host;
  addrinfo hints{};
  std::condition_variable finished_cv;
  bool finished = false;
  AddrList addresses;
};

AddrList getaddrinfo_lookup(const std::string& host, const addrinfo& hints) {
  addrinfo* raw = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &raw) != 0) return AddrList();
  return AddrList(raw);
}

ResolverPool::ResolverPool(size_t threads, LookupFn lookup) : lookup_(std::move(lookup)) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    try {
      threads_.emplace_back([this] { serve_jobs(); });
    } catch (const std::system_error&) {
      break;  // a smaller pool: fewer lookups at once, never more threads
    }
  }
}

ResolverPool::~ResolverPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ResolverPool::serve_jobs() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to do
    std::shared_ptr<Job> job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    AddrList found;
    try {
      found = lookup_(job->host, job->hints);
    } catch (...) {
      // No addresses, as for a resolver error; the thread lives on.
    }
    lock.lock();
    job->addresses = std::move(found);
    job->finished = true;
    --busy_;
    job->finished_cv.notify_one();
  }
}

ResolverPool::Outcome ResolverPool::resolve(const std::string& host, const addrinfo& hints,
                                            std::chrono::milliseconds limit) {
  auto job = std::make_shared<Job>();
  job->host = host;
  job->hints = hints;
  std::unique_lock<std::mutex> lock(mu_);
  if (busy_ >= threads_.size() || stop_) return Outcome{Status::kBusy, AddrList()};
  ++busy_;
  queue_.push_back(job);
  work_.notify_one();
  if (!job->finished_cv.wait_for(lock, limit, [&] { return job->finished; })) {
    return Outcome{Status::kTimedOut, AddrList()};
  }
  return Outcome{Status::kDone, std::move(job->addresses)};
}

size_t ResolverPool::threads() const { return threads_.size(); }

size_t ResolverPool::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return busy_;
}

ResolverPool& process_resolver_pool() {
  static ResolverPool* const pool = new ResolverPool(kResolverThreads);
  return *pool;
}

}  // namespace ca
