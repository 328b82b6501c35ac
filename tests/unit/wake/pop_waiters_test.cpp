#include "wake/pop_waiters.h"

#include <gtest/gtest.h>

#include <thread>

using namespace queen::wake;
using namespace std::chrono_literals;

TEST(PopWaiters, NotifyWakesAWaiterBeforeItsDeadline) {
  PopWaiters waiters;
  PopWaiters::Registration registration(waiters, "orders");
  std::thread pusher([&] {
    std::this_thread::sleep_for(50ms);
    waiters.notify("orders");
  });
  const auto started = Clock::now();
  EXPECT_TRUE(registration.wait_until(started + 5s));
  EXPECT_LT(Clock::now() - started, 2s);
  pusher.join();
}

TEST(PopWaiters, WaitEndsAtTheDeadlineWithoutNotify) {
  PopWaiters waiters;
  PopWaiters::Registration registration(waiters, "orders");
  const auto started = Clock::now();
  EXPECT_FALSE(registration.wait_until(started + 80ms));
  EXPECT_GE(Clock::now() - started, 80ms);
}

TEST(PopWaiters, NotifyOfAnotherKeyDoesNotWake) {
  PopWaiters waiters;
  PopWaiters::Registration registration(waiters, "orders");
  waiters.notify("invoices");
  EXPECT_FALSE(registration.wait_until(Clock::now() + 50ms));
}

TEST(PopWaiters, NotifyBetweenArmAndWaitIsNotLost) {
  PopWaiters waiters;
  PopWaiters::Registration registration(waiters, "orders");
  registration.arm();
  waiters.notify("orders");  // lands while the waiter is still "checking the database"
  const auto started = Clock::now();
  EXPECT_TRUE(registration.wait_until(started + 5s));
  EXPECT_LT(Clock::now() - started, 1s);
}

TEST(PopWaiters, ANotifyIsConsumedOnce) {
  PopWaiters waiters;
  PopWaiters::Registration registration(waiters, "orders");
  waiters.notify("orders");
  EXPECT_TRUE(registration.wait_until(Clock::now() + 1s));
  EXPECT_FALSE(registration.wait_until(Clock::now() + 30ms));
}

TEST(PopWaiters, NotifyAllWakesEveryKey) {
  PopWaiters waiters;
  PopWaiters::Registration a(waiters, "a");
  PopWaiters::Registration b(waiters, "b");
  waiters.notify_all();
  EXPECT_TRUE(a.wait_until(Clock::now() + 1s));
  EXPECT_TRUE(b.wait_until(Clock::now() + 1s));
}

TEST(PopWaiters, RegistrationsAreCountedAndReleased) {
  PopWaiters waiters;
  {
    PopWaiters::Registration a(waiters, "q");
    PopWaiters::Registration b(waiters, "q");
    EXPECT_EQ(waiters.parked(), 2u);
  }
  EXPECT_EQ(waiters.parked(), 0u);
  // A notify with nobody parked is a no-op, and a later registration starts clean.
  waiters.notify("q");
  PopWaiters::Registration c(waiters, "q");
  EXPECT_FALSE(c.wait_until(Clock::now() + 20ms));
}
