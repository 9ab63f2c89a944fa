// call_within (common/call_within.h): the result when the call is quick,
// nullopt when it is not or throws, and the late result destroyed when the
// call ends.
// No timing is asserted: the slow call waits for the test to release it.
#include "call_within.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace ca {
namespace {

using namespace std::chrono_literals;

TEST(CallWithinTest, AQuickCallGivesItsResult) {
  std::optional<std::string> r = call_within<std::string>(60s, [] { return std::string("ok"); });
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, "ok");
}

TEST(CallWithinTest, AThrowingCallGivesNulloptAndTheProcessGoesOn) {
  std::optional<int> r = call_within<int>(60s, []() -> int { throw std::runtime_error("no"); });
  EXPECT_FALSE(r.has_value());
}

// Sets a flag when destroyed: shows the late result is not leaked.
struct Probe {
  explicit Probe(std::atomic<bool>* flag) : gone(flag) {}
  ~Probe() { gone->store(true); }
  std::atomic<bool>* gone;
};

TEST(CallWithinTest, ASlowCallIsLeftToFinishAndItsResultDestroyedThen) {
  auto released = std::make_shared<std::promise<void>>();
  std::shared_future<void> release = released->get_future().share();
  auto gone = std::make_shared<std::atomic<bool>>(false);
  auto started = std::make_shared<std::atomic<bool>>(false);
  std::optional<std::unique_ptr<Probe>> r =
      call_within<std::unique_ptr<Probe>>(10ms, [release, gone, started] {
        started->store(true);
        release.wait();
        return std::make_unique<Probe>(gone.get());
      });
  EXPECT_FALSE(r.has_value());
  EXPECT_FALSE(gone->load());
  released->set_value();
  // The thread ends by itself; wait for it (bounded) without asserting how long it takes.
  for (int i = 0; i < 6000 && !gone->load(); ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(gone->load());
  EXPECT_TRUE(started->load());
}

}  // namespace
}  // namespace ca
