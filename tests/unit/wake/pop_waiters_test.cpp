#include "wake/pop_waiters.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "../support/eventually.h"
#include "../support/manual_clock.h"

using namespace queen::wake;
using namespace std::chrono_literals;
using queen::test_support::advance_until;
using queen::test_support::eventually;
using queen::test_support::ManualClock;

namespace {

// Waits on `registration` for `wait` of the manual clock on another thread, moving
// the clock to the wait's deadline once it has begun; returns what the wait returned.
bool wait_on(ManualClock& clock, PopWaiters::Registration& registration, std::chrono::milliseconds wait) {
  auto result = std::async(std::launch::async, [&] { return registration.wait_until(clock.now() + wait); });
  EXPECT_TRUE(advance_until(clock, [&] { return result.wait_for(0s) == std::future_status::ready; }));
  return result.get();
}

}  // namespace

TEST(PopWaiters, NotifyWakesAWaiterBeforeItsDeadline) {
  ManualClock clock;
  PopWaiters waiters(clock);
  PopWaiters::Registration registration(waiters, "orders");
  std::thread pusher([&] {
    EXPECT_TRUE(eventually([&] { return clock.timed_waiters() == 1u; }));
    waiters.notify("orders");
  });
  const auto started = clock.now();
  EXPECT_TRUE(registration.wait_until(started + 5s));
  EXPECT_EQ(clock.now(), started) << "woken by the notify, not by time";
  pusher.join();
}

TEST(PopWaiters, WaitEndsAtTheDeadlineWithoutNotify) {
  ManualClock clock;
  PopWaiters waiters(clock);
  PopWaiters::Registration registration(waiters, "orders");
  const auto started = clock.now();
  EXPECT_FALSE(wait_on(clock, registration, 80ms));
  EXPECT_EQ(clock.now() - started, 80ms);
}

TEST(PopWaiters, NotifyOfAnotherKeyDoesNotWake) {
  ManualClock clock;
  PopWaiters waiters(clock);
  PopWaiters::Registration registration(waiters, "orders");
  waiters.notify("invoices");
  EXPECT_FALSE(wait_on(clock, registration, 50ms));
}

TEST(PopWaiters, NotifyBetweenArmAndWaitIsNotLost) {
  ManualClock clock;
  PopWaiters waiters(clock);
  PopWaiters::Registration registration(waiters, "orders");
  registration.arm();
  waiters.notify("orders");  // lands while the waiter is still "checking the database"
  const auto started = clock.now();
  EXPECT_TRUE(wait_on(clock, registration, 5s));
  EXPECT_EQ(clock.now(), started);
}

TEST(PopWaiters, ANotifyIsConsumedOnce) {
  ManualClock clock;
  PopWaiters waiters(clock);
  PopWaiters::Registration registration(waiters, "orders");
  waiters.notify("orders");
  EXPECT_TRUE(wait_on(clock, registration, 1s));
  EXPECT_FALSE(wait_on(clock, registration, 30ms));
}

TEST(PopWaiters, NotifyAllWakesEveryKey) {
  ManualClock clock;
  PopWaiters waiters(clock);
  PopWaiters::Registration a(waiters, "a");
  PopWaiters::Registration b(waiters, "b");
  waiters.notify_all();
  const auto started = clock.now();
  EXPECT_TRUE(wait_on(clock, a, 1s));
  EXPECT_TRUE(wait_on(clock, b, 1s));
  EXPECT_EQ(clock.now(), started);
}

TEST(PopWaiters, RegistrationsAreCountedAndReleased) {
  ManualClock clock;
  PopWaiters waiters(clock);
  {
    PopWaiters::Registration a(waiters, "q");
    PopWaiters::Registration b(waiters, "q");
    EXPECT_EQ(waiters.parked(), 2u);
  }
  EXPECT_EQ(waiters.parked(), 0u);
  // A notify with nobody parked is a no-op, and a later registration starts clean.
  waiters.notify("q");
  PopWaiters::Registration c(waiters, "q");
  EXPECT_FALSE(wait_on(clock, c, 20ms));
}
