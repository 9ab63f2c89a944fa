// Per-tenant cost budgets (common/tenant_budget.h): refusal while in debt,
// refill over time, tenants apart, the debt bound, and "off".
#include "tenant_budget.h"

#include <gtest/gtest.h>

#include <chrono>
#include <utility>
#include <vector>

namespace ca {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = TenantBudget::Clock;

constexpr size_t kMiB = 1024 * 1024;

TEST(TenantBudgetTest, ATenantNeverChargedIsServed) {
  TenantBudget budget({.busy_ms_per_second = 100, .bytes_per_second = 1 * kMiB});
  EXPECT_EQ(budget.wait_seconds(7, Clock::now()), 0);
}

TEST(TenantBudgetTest, SpendingTheTimeBurstRefusesUntilItRefills) {
  TenantBudget budget({.busy_ms_per_second = 100, .bytes_per_second = 0});
  const Clock::time_point t0 = Clock::now();
  // The burst is 4 s of the rate: 400 ms. 500 ms of work leaves 100 ms of debt.
  budget.charge(7, milliseconds(500), 10, t0);
  EXPECT_EQ(budget.wait_seconds(7, t0), 1);  // 100 ms at 100 ms/s: 1 s
  EXPECT_EQ(budget.wait_seconds(7, t0 + milliseconds(900)), 1);
  EXPECT_EQ(budget.wait_seconds(7, t0 + milliseconds(1001)), 0);
}

TEST(TenantBudgetTest, AnswerBytesAreChargedAndRefusedLikeTime) {
  TenantBudget budget({.busy_ms_per_second = 0, .bytes_per_second = 4 * kMiB});
  const Clock::time_point t0 = Clock::now();
  // Burst: max(4 s x 4 MiB, 16 MiB) = 16 MiB. Two 8 MiB answers and a byte.
  budget.charge(1, milliseconds(1), 8 * kMiB, t0);
  EXPECT_EQ(budget.wait_seconds(1, t0), 0);
  budget.charge(1, milliseconds(1), 8 * kMiB + 1, t0);
  EXPECT_EQ(budget.wait_seconds(1, t0), 1);
  budget.charge(1, milliseconds(1), 8 * kMiB, t0);  // 8 MiB + 1 of debt: 3 s at 4 MiB/s
  EXPECT_EQ(budget.wait_seconds(1, t0), 3);
  EXPECT_EQ(budget.wait_seconds(1, t0 + seconds(3)), 0);
}

TEST(TenantBudgetTest, OneTenantsDebtDoesNotTouchAnother) {
  TenantBudget budget({.busy_ms_per_second = 10, .bytes_per_second = 1 * kMiB});
  const Clock::time_point t0 = Clock::now();
  budget.charge(1, seconds(10), 100, t0);
  EXPECT_GT(budget.wait_seconds(1, t0), 0);
  EXPECT_EQ(budget.wait_seconds(2, t0), 0);
  budget.charge(2, milliseconds(1), 100, t0);
  EXPECT_EQ(budget.wait_seconds(2, t0), 0);
}

TEST(TenantBudgetTest, DebtIsBoundedByOneFullBucket) {
  TenantBudget budget({.busy_ms_per_second = 100, .bytes_per_second = 0});
  const Clock::time_point t0 = Clock::now();
  // An hour of work still costs at most the burst (4 s) of waiting.
  budget.charge(3, seconds(3600), 0, t0);
  EXPECT_EQ(budget.wait_seconds(3, t0), TenantBudget::kBurstSeconds);
}

TEST(TenantBudgetTest, ZeroRatesTurnTheBudgetOff) {
  TenantBudget budget({.busy_ms_per_second = 0, .bytes_per_second = 0});
  const Clock::time_point t0 = Clock::now();
  budget.charge(1, seconds(3600), 1024 * kMiB, t0);
  EXPECT_EQ(budget.wait_seconds(1, t0), 0);
}

TEST(TenantBudgetTest, AClockThatStepsBackNeverRefills) {
  TenantBudget budget({.busy_ms_per_second = 100, .bytes_per_second = 0});
  const Clock::time_point t0 = Clock::now();
  budget.charge(1, milliseconds(600), 0, t0);
  EXPECT_EQ(budget.wait_seconds(1, t0 - seconds(10)), 2);
}

TEST(TenantBudgetTest, WithOneBudgetOffIdleTenantsAreStillForgotten) {
  TenantBudget budget({.busy_ms_per_second = 1000, .bytes_per_second = 0});
  const Clock::time_point t0 = Clock::now();
  for (size_t t = 1; t <= TenantBudget::kMaxTracked; ++t) {
    budget.charge(static_cast<int64_t>(t), milliseconds(1), 1000, t0);
  }
  EXPECT_EQ(budget.tracked(), TenantBudget::kMaxTracked);
  // Later every bucket is full again: a new tenant makes room by forgetting them.
  budget.charge(0, milliseconds(1), 1000, t0 + seconds(1));
  EXPECT_EQ(budget.tracked(), 1u);
}

TEST(TenantInProgressTest, ATenantHoldsAtMostTheLimitAndSlotsComeBack) {
  TenantInProgress in_progress(2);
  {
    TenantInProgress::Slot a = in_progress.enter(1);
    TenantInProgress::Slot b = in_progress.enter(1);
    EXPECT_TRUE(a);
    EXPECT_TRUE(b);
    EXPECT_FALSE(in_progress.enter(1));
    EXPECT_TRUE(in_progress.enter(2));  // another tenant: its own count
    TenantInProgress::Slot moved = std::move(a);
    EXPECT_TRUE(moved);
    EXPECT_FALSE(in_progress.enter(1));
  }
  EXPECT_TRUE(in_progress.enter(1));
}

TEST(TenantInProgressTest, ZeroIsNoLimit) {
  TenantInProgress in_progress(0);
  std::vector<TenantInProgress::Slot> slots;
  for (int i = 0; i < 100; ++i) slots.push_back(in_progress.enter(1));
  for (const auto& s : slots) EXPECT_TRUE(s);
}

}  // namespace
}  // namespace ca
