// /healthz's answer reused for a moment (common/health_cache.h): at most one
// probe of the database per `fresh_for`, however many requests ask. A fake
// clock, so nothing here depends on timing.
#include "health_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace ca {
namespace {

using namespace std::chrono_literals;

HealthCache::Clock::time_point g_now{};
HealthCache::Clock::time_point fake_now() { return g_now; }

class HealthCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { g_now = HealthCache::Clock::time_point{} + 1h; }
  HealthCache cache_{1s, &fake_now};
  std::atomic<int> probes_{0};
};

TEST_F(HealthCacheTest, AnAnswerIsReusedForOneSecond) {
  auto up = [this] {
    ++probes_;
    return true;
  };
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(cache_.healthy(up));
  EXPECT_EQ(probes_, 1);
  g_now += 999ms;
  EXPECT_TRUE(cache_.healthy(up));
  EXPECT_EQ(probes_, 1);
  g_now += 1ms;
  EXPECT_TRUE(cache_.healthy(up));
  EXPECT_EQ(probes_, 2);
}

TEST_F(HealthCacheTest, AFailureIsReusedTooAndTheNextProbeSeesTheRecovery) {
  bool database_up = false;
  auto probe = [&] {
    ++probes_;
    return database_up;
  };
  EXPECT_FALSE(cache_.healthy(probe));
  database_up = true;
  EXPECT_FALSE(cache_.healthy(probe));
  EXPECT_EQ(probes_, 1);
  g_now += 1s;
  EXPECT_TRUE(cache_.healthy(probe));
  EXPECT_EQ(probes_, 2);
}

// One thread asks the database; meanwhile the others answer without it: the
// previous answer while the probe is younger than a second, then "down".
TEST_F(HealthCacheTest, WhileAProbeRunsTheOthersDoNotProbe) {
  EXPECT_TRUE(cache_.healthy([] { return true; }));
  g_now += 2s;  // stale: the next call probes
  std::promise<void> probing, release;
  std::future<bool> slow = std::async(std::launch::async, [&] {
    return cache_.healthy([&] {
      probing.set_value();
      release.get_future().wait();
      return true;
    });
  });
  probing.get_future().wait();
  auto must_not_probe = [this] {
    ++probes_;
    return false;
  };
  EXPECT_TRUE(cache_.healthy(must_not_probe));  // the previous answer
  g_now += 999ms;
  EXPECT_TRUE(cache_.healthy(must_not_probe));
  g_now += 1ms;  // the running probe is a second old: the database is slow
  EXPECT_FALSE(cache_.healthy(must_not_probe));
  EXPECT_EQ(probes_, 0);
  release.set_value();
  EXPECT_TRUE(slow.get());
  EXPECT_TRUE(cache_.healthy(must_not_probe));  // the new answer, fresh
  EXPECT_EQ(probes_, 0);
}

// Before the first answer there is nothing to reuse: the others wait for it
// rather than probe too.
TEST_F(HealthCacheTest, TheFirstAnswerIsWaitedFor) {
  std::promise<void> probing, release;
  std::future<bool> first = std::async(std::launch::async, [&] {
    return cache_.healthy([&] {
      ++probes_;
      probing.set_value();
      release.get_future().wait();
      return true;
    });
  });
  probing.get_future().wait();
  std::future<bool> second = std::async(std::launch::async, [&] {
    return cache_.healthy([this] {
      ++probes_;
      return false;
    });
  });
  release.set_value();
  EXPECT_TRUE(first.get());
  EXPECT_TRUE(second.get());
  EXPECT_EQ(probes_, 1);
}

}  // namespace
}  // namespace ca
