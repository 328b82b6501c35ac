#include "wake/long_poll.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace queen::wake;
using namespace std::chrono_literals;

namespace {

RecheckPolicy policy(std::chrono::milliseconds initial, int threshold, double multiplier,
                     std::chrono::milliseconds max) {
  RecheckPolicy p;
  p.initial = initial;
  p.backoff_threshold = threshold;
  p.multiplier = multiplier;
  p.max = max;
  return p;
}

}  // namespace

TEST(RecheckSchedule, BacksOffAfterThresholdAndCapsAndResetsOnWake) {
  RecheckSchedule s(policy(100ms, 3, 2.0, 1000ms));
  EXPECT_EQ(s.interval(), 100ms);
  s.on_empty_check();
  s.on_empty_check();
  EXPECT_EQ(s.interval(), 100ms);
  s.on_empty_check();
  EXPECT_EQ(s.interval(), 200ms);
  s.on_empty_check();
  EXPECT_EQ(s.interval(), 400ms);
  s.on_empty_check();
  EXPECT_EQ(s.interval(), 800ms);
  s.on_empty_check();
  EXPECT_EQ(s.interval(), 1000ms);
  s.on_empty_check();
  EXPECT_EQ(s.interval(), 1000ms);
  s.on_wake();
  EXPECT_EQ(s.interval(), 100ms);
  s.on_empty_check();
  EXPECT_EQ(s.interval(), 100ms);
}

TEST(LongPoll, FirstAttemptIsImmediate) {
  PopWaiters waiters;
  int attempts = 0;
  const auto end = long_poll(waiters, "q", Clock::now() + 5s, policy(10s, 3, 2, 10s),
                             {[&] { return ++attempts == 1; }, nullptr});
  EXPECT_EQ(end, PollEnd::Found);
  EXPECT_EQ(attempts, 1);
}

TEST(LongPoll, RechecksOnTheFloorWithoutAnyWake) {
  PopWaiters waiters;
  int attempts = 0;
  const auto started = Clock::now();
  const auto end = long_poll(waiters, "q", started + 5s, policy(30ms, 100, 2, 30ms),
                             {[&] { return ++attempts == 4; }, nullptr});
  EXPECT_EQ(end, PollEnd::Found);
  EXPECT_EQ(attempts, 4);
  const auto elapsed = Clock::now() - started;
  EXPECT_GE(elapsed, 90ms);
  EXPECT_LT(elapsed, 2s);
}

TEST(LongPoll, StopsAtTheDeadlineAfterAFinalAttempt) {
  PopWaiters waiters;
  int attempts = 0;
  const auto started = Clock::now();
  const auto end =
      long_poll(waiters, "q", started + 120ms, policy(50ms, 1, 2, 1000ms), {[&] { ++attempts; return false; }, nullptr});
  EXPECT_EQ(end, PollEnd::Deadline);
  EXPECT_GE(Clock::now() - started, 120ms);
  EXPECT_LT(Clock::now() - started, 1s);
  // t=0, t=50 (interval grows to 100 after it), then the deadline at 120: three attempts.
  EXPECT_EQ(attempts, 3);
}

TEST(LongPoll, ANotifyWakesItLongBeforeTheFloor) {
  PopWaiters waiters;
  std::atomic<bool> available{false};
  std::thread pusher([&] {
    std::this_thread::sleep_for(50ms);
    available = true;
    waiters.notify("q");
  });
  const auto started = Clock::now();
  const auto end =
      long_poll(waiters, "q", started + 10s, policy(10s, 3, 2, 10s), {[&] { return available.load(); }, nullptr});
  pusher.join();
  EXPECT_EQ(end, PollEnd::Found);
  EXPECT_LT(Clock::now() - started, 2s);
}

TEST(LongPoll, APushCommittingDuringTheCheckIsNotLost) {
  // The push lands after the check read "empty" but before the waiter parks:
  // the generation recorded before the check makes the park return at once.
  PopWaiters waiters;
  bool available = false;
  int attempts = 0;
  const auto started = Clock::now();
  const auto end = long_poll(waiters, "q", started + 10s, policy(10s, 3, 2, 10s),
                             {[&] {
                                ++attempts;
                                const bool seen = available;
                                if (attempts == 1) {
                                  available = true;
                                  waiters.notify("q");
                                }
                                return seen;
                              },
                              nullptr});
  EXPECT_EQ(end, PollEnd::Found);
  EXPECT_EQ(attempts, 2);
  EXPECT_LT(Clock::now() - started, 2s);
}

TEST(LongPoll, AbandonedStopsBeforeTheNextAttempt) {
  PopWaiters waiters;
  int attempts = 0;
  bool gone = false;
  const auto end = long_poll(waiters, "q", Clock::now() + 5s, policy(20ms, 3, 2, 20ms),
                             {[&] {
                                ++attempts;
                                gone = true;  // the client disconnects while we wait
                                return false;
                              },
                              [&] { return gone; }});
  EXPECT_EQ(end, PollEnd::Abandoned);
  EXPECT_EQ(attempts, 1);
}

TEST(LongPoll, UnregistersWhenDone) {
  PopWaiters waiters;
  long_poll(waiters, "q", Clock::now() + 10ms, policy(5ms, 3, 2, 5ms), {[] { return false; }, nullptr});
  EXPECT_EQ(waiters.parked(), 0u);
}
