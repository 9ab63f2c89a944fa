// A small fixed set of threads that resolve host names (getaddrinfo()), so
// that a request can wait for a lookup at most so long, and a process makes
// at most so many lookups at once, without a thread per request.
//
// getaddrinfo() has no timeout of its own: with a resolver that does not
// answer it takes the whole retry schedule of resolv.conf (tens of
// seconds), and nothing can interrupt it. So the lookup runs on a pool
// thread and the caller waits for it at most `limit`; when it is late the
// caller goes on (kTimedOut) and the pool thread finishes the lookup later
// and frees its answer. Until it does, that thread is busy: a pool of N
// threads never has more than N lookups in progress, given up ones
// included, and a lookup asked for while all N are busy is refused at once
// (kBusy) rather than queued, so that no request waits behind lookups that
// are not its own. The threads are started once, with the pool; none is
// ever started per request.
//
// Thread-safe: any number of threads may call resolve() at once.
#pragma once

#include <netdb.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ca {

struct AddrInfoDeleter {
  void operator()(addrinfo* p) const {
    if (p != nullptr) freeaddrinfo(p);
  }
};
// A getaddrinfo() answer, freed with freeaddrinfo().
using AddrList = std::unique_ptr<addrinfo, AddrInfoDeleter>;

// One lookup: the addresses of `host`, or null when it has none (unknown
// host, resolver error). May block for as long as it likes.
using LookupFn = std::function<AddrList(const std::string& host, const addrinfo& hints)>;

// getaddrinfo(host, nullptr, &hints); null on any error.
AddrList getaddrinfo_lookup(const std::string& host, const addrinfo& hints);

class ResolverPool {
 public:
  enum class Status {
    kDone,      // the lookup ended in time; `addresses` is its answer (null: none)
    kTimedOut,  // not within the limit; the pool finishes it on its own
    kBusy,      // every thread was busy: nothing was started
  };
  struct Outcome {
    Status status = Status::kBusy;
    AddrList addresses;
  };

  // Starts `threads` threads (fewer if the system refuses some; with none,
  // every lookup is kBusy) that look up with `lookup`.
  explicit ResolverPool(size_t threads, LookupFn lookup = getaddrinfo_lookup);
  // Waits for the lookups in progress to end, then for the threads.
  ~ResolverPool();
  ResolverPool(const ResolverPool&) = delete;
  ResolverPool& operator=(const ResolverPool&) = delete;

  // The addresses of `host`, waited for at most `limit`.
  Outcome resolve(const std::string& host, const addrinfo& hints, std::chrono::milliseconds limit);

  // How many threads the pool has, and how many of them are busy now.
  size_t threads() const;
  size_t busy() const;

 private:
  struct Job;
  void serve_jobs();

  const LookupFn lookup_;
  mutable std::mutex mu_;
  std::condition_variable work_;  // a job was queued, or the pool stops
  std::deque<std::shared_ptr<Job>> queue_;
  size_t busy_ = 0;  // jobs queued or running, given up ones included
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Lookups one handler process makes at once. Host names are resolved when a
// webhook subscription is created, which is rare; two leave the other
// threads of a process (HANDLER_THREADS, 4 by default) free for every other
// request while a slow resolver holds both (docs/decisions/0040).
inline constexpr size_t kResolverThreads = 2;

// The process's pool (kResolverThreads threads), started on first use
// and never stopped: one of its threads may be inside getaddrinfo() at exit,
// which nothing can interrupt, so it is left for the process's end.
ResolverPool& process_resolver_pool();

}  // namespace ca
