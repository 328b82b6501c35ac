#include "flow/arbiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "../support/eventually.h"
#include "../support/manual_clock.h"

namespace queen::flow {
namespace {

using namespace std::chrono_literals;
using test_support::advance_until;
using test_support::eventually;
using test_support::ManualClock;

// acquire() on another thread while the clock moves to its deadline.
Permit acquire_as_time_passes(Arbiter& arbiter, ManualClock& clock, Lane lane,
                              Arbiter::Clock::time_point deadline = Arbiter::Clock::time_point::max()) {
  auto permit = std::async(std::launch::async, [&] { return arbiter.acquire(lane, deadline); });
  EXPECT_TRUE(advance_until(clock, [&] { return permit.wait_for(0s) == std::future_status::ready; }));
  return permit.get();
}

FlowLimits limits(int total, int queue, std::chrono::milliseconds wait) {
  FlowLimits l;
  l.total_slots = total;
  for (const Lane lane : kWakeOrder) l[lane] = LaneLimits{total, queue, wait};
  return l;
}

TEST(Arbiter, APermitHoldsItsSlotUntilReleased) {
  ManualClock clock;
  Arbiter arbiter(limits(1, 0, 0ms), clock);
  {
    Permit p = arbiter.acquire(Lane::Ack);
    ASSERT_TRUE(p);
    EXPECT_EQ(arbiter.snapshot()[index_of(Lane::Ack)].in_use, 1);
    const Permit refused = arbiter.acquire(Lane::Push);
    EXPECT_FALSE(refused);
    EXPECT_EQ(refused.refusal(), Refusal::QueueFull);
  }
  EXPECT_EQ(arbiter.snapshot()[index_of(Lane::Ack)].in_use, 0);
  EXPECT_TRUE(arbiter.acquire(Lane::Push));
}

TEST(Arbiter, AMovedPermitReleasesOnce) {
  ManualClock clock;
  Arbiter arbiter(limits(2, 0, 0ms), clock);
  Permit a = arbiter.acquire(Lane::Pop);
  Permit b = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): a moved-from permit is empty by contract
  EXPECT_TRUE(b);
  b.release();
  b.release();
  EXPECT_EQ(arbiter.snapshot()[index_of(Lane::Pop)].in_use, 0);
}

TEST(Arbiter, AWaiterIsHandedTheFreedSlot) {
  ManualClock clock;
  Arbiter arbiter(limits(1, 4, 10s), clock);
  Permit held = arbiter.acquire(Lane::Push);
  ASSERT_TRUE(held);
  std::atomic<bool> granted{false};
  std::thread waiter([&] {
    Permit p = arbiter.acquire(Lane::Ack);
    granted = static_cast<bool>(p);
  });
  ASSERT_TRUE(eventually([&] { return arbiter.snapshot()[index_of(Lane::Ack)].waiting == 1; }));
  clock.advance(250ms);
  held.release();
  waiter.join();
  EXPECT_TRUE(granted);
  const LaneSnapshot ack = arbiter.snapshot()[index_of(Lane::Ack)];
  EXPECT_EQ(ack.granted, 1u);
  EXPECT_EQ(ack.wait_count, 1u);
  EXPECT_DOUBLE_EQ(ack.wait_seconds_sum, 0.25) << "the wait is measured on the arbiter's clock";
  EXPECT_EQ(ack.in_use, 0);
  EXPECT_EQ(ack.waiting, 0);
}

TEST(Arbiter, AWaitPastTheLaneBoundIsRefused) {
  ManualClock clock;
  Arbiter arbiter(limits(1, 4, 20ms), clock);
  Permit held = arbiter.acquire(Lane::Push);
  const auto started = clock.now();
  const Permit p = acquire_as_time_passes(arbiter, clock, Lane::Pop);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.refusal(), Refusal::Timeout);
  EXPECT_EQ(clock.now() - started, 20ms);
  const LaneSnapshot pop = arbiter.snapshot()[index_of(Lane::Pop)];
  EXPECT_EQ(pop.rejected_timeout, 1u);
  EXPECT_EQ(pop.waiting, 0);
  held.release();
  EXPECT_TRUE(arbiter.acquire(Lane::Pop));  // the withdrawn waiter holds nothing
}

TEST(Arbiter, ACallerDeadlineShortensTheWait) {
  ManualClock clock;
  Arbiter arbiter(limits(1, 4, 10s), clock);
  Permit held = arbiter.acquire(Lane::Push);
  const auto started = clock.now();
  const Permit p = acquire_as_time_passes(arbiter, clock, Lane::Pop, started + 10ms);
  EXPECT_EQ(p.refusal(), Refusal::Timeout);
  EXPECT_EQ(clock.now() - started, 10ms);
}

TEST(Arbiter, CountsGrantsRefusalsAndWaits) {
  ManualClock clock;
  Arbiter arbiter(limits(1, 0, 0ms), clock);
  {
    Permit p = arbiter.acquire(Lane::Maint);
    (void)arbiter.acquire(Lane::Maint);
  }
  arbiter.note_refused(Lane::Push, Refusal::Timeout);
  const auto s = arbiter.snapshot();
  EXPECT_EQ(s[index_of(Lane::Maint)].granted, 1u);
  EXPECT_EQ(s[index_of(Lane::Maint)].rejected_queue_full, 1u);
  EXPECT_EQ(s[index_of(Lane::Maint)].wait_buckets.front(), 1u);  // an immediate grant waited 0 s
  EXPECT_EQ(s[index_of(Lane::Push)].rejected_timeout, 1u);
}

TEST(Arbiter, RetryAfterIsTheWaitBoundInWholeSeconds) {
  FlowLimits l = limits(1, 0, 0ms);
  l[Lane::Push].max_wait = 2500ms;
  l[Lane::Ack].max_wait = 10min;
  ManualClock clock;
  const Arbiter arbiter(l, clock);
  EXPECT_EQ(arbiter.retry_after_s(Lane::Push), 3);
  EXPECT_EQ(arbiter.retry_after_s(Lane::Pop), 1);
  EXPECT_EQ(arbiter.retry_after_s(Lane::Ack), 60);
}

// Many threads, few slots: the lane caps and the total hold at every moment.
TEST(Arbiter, CapsHoldUnderConcurrency) {
  FlowLimits l = limits(3, 1000, 10s);
  l[Lane::Push].slots = 1;
  ManualClock clock;
  Arbiter arbiter(l, clock);
  std::atomic<int> push_holders{0}, holders{0}, worst_push{0}, worst{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const Lane lane = kWakeOrder[static_cast<std::size_t>(t) % kLaneCount];
      for (int i = 0; i < 200; ++i) {
        Permit p = arbiter.acquire(lane);
        ASSERT_TRUE(p);
        const int now = ++holders;
        worst = std::max(worst.load(), now);
        if (lane == Lane::Push) worst_push = std::max(worst_push.load(), ++push_holders);
        if (lane == Lane::Push) --push_holders;
        --holders;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(worst.load(), 3);
  EXPECT_LE(worst_push.load(), 1);
  std::uint64_t granted = 0;
  for (const auto& s : arbiter.snapshot()) granted += s.granted;
  EXPECT_EQ(granted, 1600u);
}

}  // namespace
}  // namespace queen::flow
