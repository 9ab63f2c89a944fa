// ResolverPool (common/resolver_pool.h): a quick lookup's answer; a slow one
// given up on after its limit while the pool finishes it; every thread busy
// refuses at once; the process never gains a thread per lookup. And what
// check_url_target() makes of a busy pool.
#include "resolver_pool.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include "net_guard.h"

namespace ca {
namespace {

using namespace std::chrono_literals;

addrinfo stream_hints() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  return hints;
}

// A real getaddrinfo() answer for a numeric address (no resolver asked).
AddrList numeric(const char* address) {
  addrinfo hints = stream_hints();
  hints.ai_flags = AI_NUMERICHOST;
  return getaddrinfo_lookup(address, hints);
}

// The threads of this process now.
size_t process_threads() {
  size_t n = 0;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

// Lookups that wait until released, counting how many run at once.
struct BlockedResolver {
  std::promise<void> release_promise;
  std::shared_future<void> release = release_promise.get_future().share();
  std::atomic<int> running{0};
  std::atomic<int> most_at_once{0};
  std::atomic<int> finished{0};

  LookupFn lookup() {
    return [this](const std::string&, const addrinfo&) {
      int now = ++running;
      int seen = most_at_once.load();
      while (now > seen && !most_at_once.compare_exchange_weak(seen, now)) {
      }
      release.wait();
      --running;
      ++finished;
      return numeric("192.0.2.1");
    };
  }
};

// Waits (bounded) until `done` holds, without asserting how long it takes.
template <class Pred>
bool eventually(Pred done) {
  for (int i = 0; i < 6000 && !done(); ++i) std::this_thread::sleep_for(5ms);
  return done();
}

TEST(ResolverPoolTest, AQuickLookupGivesItsAnswer) {
  ResolverPool pool(2, [](const std::string& host, const addrinfo&) {
    return host == "known.test" ? numeric("203.0.113.7") : AddrList();
  });
  ResolverPool::Outcome found = pool.resolve("known.test", stream_hints(), 60s);
  ASSERT_EQ(found.status, ResolverPool::Status::kDone);
  ASSERT_NE(found.addresses, nullptr);
  EXPECT_EQ(address_text(found.addresses->ai_addr), "203.0.113.7");
  ResolverPool::Outcome unknown = pool.resolve("unknown.test", stream_hints(), 60s);
  EXPECT_EQ(unknown.status, ResolverPool::Status::kDone);
  EXPECT_EQ(unknown.addresses, nullptr);
  EXPECT_EQ(pool.busy(), 0u);
}

TEST(ResolverPoolTest, ALookupThatThrowsHasNoAddressesAndTheThreadLivesOn) {
  ResolverPool pool(1, [](const std::string& host, const addrinfo&) -> AddrList {
    if (host == "throws.test") throw std::runtime_error("resolver broke");
    return numeric("192.0.2.2");
  });
  ResolverPool::Outcome failed = pool.resolve("throws.test", stream_hints(), 60s);
  EXPECT_EQ(failed.status, ResolverPool::Status::kDone);
  EXPECT_EQ(failed.addresses, nullptr);
  EXPECT_EQ(pool.resolve("fine.test", stream_hints(), 60s).status, ResolverPool::Status::kDone);
}

TEST(ResolverPoolTest, ASlowLookupTimesOutAndThePoolFinishesIt) {
  BlockedResolver dns;
  ResolverPool pool(2, dns.lookup());
  auto started = std::chrono::steady_clock::now();
  ResolverPool::Outcome late = pool.resolve("slow.test", stream_hints(), 50ms);
  EXPECT_EQ(late.status, ResolverPool::Status::kTimedOut);
  EXPECT_EQ(late.addresses, nullptr);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 50ms);
  // The given-up lookup still holds its thread until it ends by itself.
  EXPECT_EQ(pool.busy(), 1u);
  dns.release_promise.set_value();
  EXPECT_TRUE(eventually([&] { return pool.busy() == 0; }));
  EXPECT_EQ(dns.finished.load(), 1);
  EXPECT_EQ(pool.resolve("slow.test", stream_hints(), 60s).status, ResolverPool::Status::kDone);
}

TEST(ResolverPoolTest, EveryThreadBusyRefusesAtOnceAndNoThreadIsAdded) {
  BlockedResolver dns;
  ResolverPool pool(2, dns.lookup());
  const size_t threads_before = process_threads();
  int timed_out = 0;
  int refused = 0;
  for (int i = 0; i < 20; ++i) {
    auto started = std::chrono::steady_clock::now();
    ResolverPool::Outcome r = pool.resolve("slow.test", stream_hints(), 20ms);
    if (r.status == ResolverPool::Status::kTimedOut) ++timed_out;
    if (r.status == ResolverPool::Status::kBusy) {
      ++refused;
      // Refused without waiting for the limit (generous bound for slow CI).
      EXPECT_LT(std::chrono::steady_clock::now() - started, 20ms * 50);
    }
  }
  EXPECT_EQ(timed_out, 2);
  EXPECT_EQ(refused, 18);
  EXPECT_EQ(pool.threads(), 2u);
  EXPECT_EQ(pool.busy(), 2u);
  EXPECT_EQ(dns.most_at_once.load(), 2);
  EXPECT_EQ(process_threads(), threads_before);
  dns.release_promise.set_value();
  EXPECT_TRUE(eventually([&] { return pool.busy() == 0; }));
  EXPECT_EQ(dns.finished.load(), 2);
  EXPECT_EQ(process_threads(), threads_before);
}

TEST(ResolverPoolTest, ManyCallersAtOnceNeverRunMoreLookupsThanThreads) {
  BlockedResolver dns;
  ResolverPool pool(2, dns.lookup());
  std::vector<std::future<ResolverPool::Status>> callers;
  for (int i = 0; i < 8; ++i) {
    callers.push_back(std::async(std::launch::async, [&pool] {
      return pool.resolve("slow.test", stream_hints(), 30s).status;
    }));
  }
  // Two callers wait for their lookups; the six others were refused (they
  // have answered) before any lookup is released.
  auto answered = [&] {
    int n = 0;
    for (auto& c : callers) n += c.wait_for(0s) == std::future_status::ready;
    return n;
  };
  EXPECT_TRUE(eventually([&] { return dns.running.load() == 2 && answered() == 6; }));
  dns.release_promise.set_value();
  int done = 0;
  int refused = 0;
  for (auto& c : callers) {
    ResolverPool::Status s = c.get();
    done += s == ResolverPool::Status::kDone;
    refused += s == ResolverPool::Status::kBusy;
  }
  EXPECT_EQ(done, 2);
  EXPECT_EQ(refused, 6);
  EXPECT_EQ(dns.most_at_once.load(), 2);
}

TEST(ResolverPoolTest, AWebhookTargetCheckOnABusyPoolIsBusyNotRefused) {
  ResolverPool no_threads(0);
  std::string why;
  std::optional<HttpUrl> url = parse_http_url("https://hooks.example.com/in", &why);
  ASSERT_TRUE(url.has_value()) << why;
  TargetCheck checked = check_url_target(*url, no_threads);
  EXPECT_EQ(checked.verdict, TargetCheck::Verdict::kBusy);
  EXPECT_EQ(checked.why, "");
}

TEST(ResolverPoolTest, AWebhookTargetCheckWhileALookupGivenUpOnHoldsThePoolIsBusy) {
  BlockedResolver dns;
  ResolverPool pool(1, dns.lookup());
  std::string why;
  std::optional<HttpUrl> url = parse_http_url("https://slow.example.com/in", &why);
  ASSERT_TRUE(url.has_value()) << why;
  // The one thread is held by a lookup given up on: a target check is busy.
  EXPECT_EQ(pool.resolve("slow.test", stream_hints(), 10ms).status,
            ResolverPool::Status::kTimedOut);
  EXPECT_EQ(check_url_target(*url, pool).verdict, TargetCheck::Verdict::kBusy);
  dns.release_promise.set_value();
  EXPECT_TRUE(eventually([&] { return pool.busy() == 0; }));
  // Released: 192.0.2.1 (documentation range) is refused as not public.
  TargetCheck checked = check_url_target(*url, pool);
  EXPECT_EQ(checked.verdict, TargetCheck::Verdict::kRefused);
  EXPECT_EQ(checked.why, "does not point to a public address; webhook targets must be public");
  EXPECT_EQ(checked.detail, "slow.example.com resolves to 192.0.2.1, a reserved address");
}

}  // namespace
}  // namespace ca
