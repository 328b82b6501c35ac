#include "wake/long_poll.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <stdexcept>
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

namespace {

struct Poll {
  PollEnd end;
  std::exception_ptr error;
};

// Runs a poll to its end. Re-attempts run inline on whichever thread
// resumes the poll (the notifier, or the waiters' timer thread).
Poll run_poll(PopWaiters& waiters, Clock::time_point deadline, const RecheckPolicy& p, std::function<bool()> attempt,
              std::function<bool()> abandoned = nullptr) {
  std::promise<Poll> done;
  start_long_poll(waiters, [](std::function<void()> task) { task(); }, "q", deadline, p,
                  {std::move(attempt), std::move(abandoned),
                   [&done](PollEnd end, std::exception_ptr error) { done.set_value({end, error}); }});
  return done.get_future().get();
}

}  // namespace

TEST(RecheckPolicy, SpreadsTheFloorOverTheBudgetWhenManyPollsPark) {
  RecheckPolicy p = policy(100ms, 3, 2.0, 1000ms);
  p.budget_per_s = 500;
  EXPECT_EQ(p.spread(100ms, 10), 100ms);          // 10 polls: 100 re-checks/s, under budget
  EXPECT_EQ(p.spread(100ms, 10000), 20000ms);     // 10k polls at 500/s: each every 20 s
  p.budget_per_s = 0;                              // no budget: the schedule alone
  EXPECT_EQ(p.spread(100ms, 10000), 100ms);
}

TEST(LongPoll, FirstAttemptIsImmediate) {
  PopWaiters waiters;
  int attempts = 0;
  const Poll poll = run_poll(waiters, Clock::now() + 5s, policy(10s, 3, 2, 10s), [&] { return ++attempts == 1; });
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_EQ(attempts, 1);
}

TEST(LongPoll, RechecksOnTheFloorWithoutAnyWake) {
  PopWaiters waiters;
  int attempts = 0;
  const auto started = Clock::now();
  const Poll poll = run_poll(waiters, started + 5s, policy(30ms, 100, 2, 30ms), [&] { return ++attempts == 4; });
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_EQ(attempts, 4);
  const auto elapsed = Clock::now() - started;
  EXPECT_GE(elapsed, 90ms);
  EXPECT_LT(elapsed, 2s);
}

TEST(LongPoll, StopsAtTheDeadlineWithoutAnotherAttempt) {
  PopWaiters waiters;
  int attempts = 0;
  const auto started = Clock::now();
  const Poll poll = run_poll(waiters, started + 120ms, policy(50ms, 1, 2, 1000ms), [&] {
    ++attempts;
    return false;
  });
  EXPECT_EQ(poll.end, PollEnd::Deadline);
  EXPECT_GE(Clock::now() - started, 120ms);
  EXPECT_LT(Clock::now() - started, 1s);
  // t=0, t=50 (the floor grows to 100 after it, past the deadline at 120).
  EXPECT_EQ(attempts, 2);
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
  const Poll poll = run_poll(waiters, started + 10s, policy(10s, 3, 2, 10s), [&] { return available.load(); });
  pusher.join();
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_LT(Clock::now() - started, 2s);
}

TEST(LongPoll, APushCommittingDuringTheCheckIsNotLost) {
  // The push lands after the check read "empty" but before the waiter parks:
  // the generation recorded before the check makes the park return at once.
  PopWaiters waiters;
  bool available = false;
  int attempts = 0;
  const auto started = Clock::now();
  const Poll poll = run_poll(waiters, started + 10s, policy(10s, 3, 2, 10s), [&] {
    ++attempts;
    const bool seen = available;
    if (attempts == 1) {
      available = true;
      waiters.notify("q");
    }
    return seen;
  });
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_EQ(attempts, 2);
  EXPECT_LT(Clock::now() - started, 2s);
}

TEST(LongPoll, AbandonedStopsBeforeTheNextAttempt) {
  PopWaiters waiters;
  int attempts = 0;
  bool gone = false;
  const Poll poll = run_poll(
      waiters, Clock::now() + 5s, policy(20ms, 3, 2, 20ms),
      [&] {
        ++attempts;
        gone = true;  // the client disconnects while we wait
        return false;
      },
      [&] { return gone; });
  EXPECT_EQ(poll.end, PollEnd::Abandoned);
  EXPECT_EQ(attempts, 1);
}

TEST(LongPoll, AThrowingAttemptEndsThePollWithItsException) {
  PopWaiters waiters;
  const Poll poll = run_poll(waiters, Clock::now() + 5s, policy(20ms, 3, 2, 20ms),
                             []() -> bool { throw std::runtime_error("boom"); });
  EXPECT_EQ(poll.end, PollEnd::Failed);
  ASSERT_TRUE(poll.error);
  EXPECT_THROW(std::rethrow_exception(poll.error), std::runtime_error);
}

TEST(LongPoll, UnregistersWhenDone) {
  PopWaiters waiters;
  run_poll(waiters, Clock::now() + 10ms, policy(5ms, 3, 2, 5ms), [] { return false; });
  // The registration goes with the poll's last reference, right after finish.
  for (int i = 0; i < 200 && waiters.parked() != 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(waiters.parked(), 0u);
}

TEST(LongPoll, ThousandsOfParkedPollsHoldNoThreadAndAllWake) {
  PopWaiters waiters;
  constexpr int kPolls = 5000;
  std::atomic<int> found{0};
  std::atomic<bool> available{false};
  for (int i = 0; i < kPolls; ++i) {
    start_long_poll(waiters, [](std::function<void()> task) { task(); }, "q", Clock::now() + 30s,
                    policy(10s, 3, 2, 10s),
                    {[&] { return available.load(); }, nullptr,
                     [&](PollEnd end, std::exception_ptr) { found += end == PollEnd::Found; }});
  }
  EXPECT_EQ(waiters.parked(), static_cast<std::size_t>(kPolls));
  available = true;
  waiters.notify("q");
  EXPECT_EQ(found.load(), kPolls);  // inline executor: every poll ended inside notify
}
