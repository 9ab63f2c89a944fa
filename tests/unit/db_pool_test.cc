#include "db_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "db.h"
#include "error.h"

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

TEST(DbPoolTest, ReturnedConnectionGoesToTheLongestWaitingThread) {
  DbPool pool(kNoServer, 1);
  std::mutex order_mu;
  std::vector<int> order;
  std::vector<std::thread> waiters;
  {
    DbPool::Lease held = pool.acquire();
    for (int i = 0; i < 4; ++i) {
      waiters.emplace_back([&, i] {
        DbPool::Lease lease = pool.acquire();
        std::lock_guard<std::mutex> lock(order_mu);
        order.push_back(i);
      });
      // Each waiter is queued before the next one starts.
      while (pool.waiting() != static_cast<size_t>(i) + 1) std::this_thread::yield();
    }
  }
  for (auto& t : waiters) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
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

// A transaction that cannot begin because the server is out of reach says
// so in its first send's results, and handlers answer that 503
// (Retry-After), not 500.
TEST(DbBeginTest, ABeginThatCannotReachTheServerIsA503) {
  static const Statement kOne{"db_pool_test_one", "SELECT 1"};
  Db db(kNoServer);
  std::vector<DbResult> r = db.begin({{&kOne, {}}});
  ASSERT_EQ(r.size(), 1u);
  ASSERT_FALSE(r[0].ok());
  EXPECT_FALSE(db.transaction_open());
  const DbError error = r[0].error();
  EXPECT_EQ(error.kind, DbErrorKind::kConnection);
  Response plain = render(Error::database(error), ErrorStyle::kPlain);
  EXPECT_EQ(plain.status, 503);
  EXPECT_EQ(plain.body, R"({"error":"Service temporarily unavailable"})");
  Response orders = render(Error::database(error), ErrorStyle::kSuccess);
  EXPECT_EQ(orders.status, 503);
  EXPECT_EQ(orders.body, R"({"success":false,"message":"Service temporarily unavailable"})");
}
}  // namespace
}  // namespace ca
