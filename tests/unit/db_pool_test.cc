#include "db_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ca {
namespace {

// Db connects lazily, so the pool can be exercised without a server.
constexpr const char* kNoServer = "host=/nonexistent dbname=x";

TEST(DbPoolTest, LendsEachConnectionToOneHolderAtATime) {
  DbPool pool(kNoServer, 2);
  DbPool::Lease a = pool.acquire();
  DbPool::Lease b = pool.acquire();
  EXPECT_NE(&*a, &*b);
}

TEST(DbPoolTest, AcquireWaitsUntilALeaseIsReturned) {
  DbPool pool(kNoServer, 1);
  std::atomic<bool> acquired{false};
  Db* first = nullptr;
  std::thread waiter;
  {
    DbPool::Lease lease = pool.acquire();
    first = &*lease;
    waiter = std::thread([&] {
      DbPool::Lease second = pool.acquire();
      EXPECT_EQ(&*second, first);  // the same connection, handed over
      acquired.store(true);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(acquired.load()) << "acquire() must block while every connection is lent";
  }
  waiter.join();
  EXPECT_TRUE(acquired.load());
}

TEST(DbPoolTest, MovedLeaseReturnsItsConnectionOnce) {
  DbPool pool(kNoServer, 1);
  {
    DbPool::Lease a = pool.acquire();
    DbPool::Lease b = std::move(a);
  }
  DbPool::Lease again = pool.acquire();  // would block forever if it leaked
  SUCCEED();
}

}  // namespace
}  // namespace ca
