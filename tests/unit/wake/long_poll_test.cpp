#include "wake/long_poll.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <stdexcept>
#include <thread>

#include "../support/eventually.h"
#include "../support/manual_clock.h"
#include "../support/table_default.h"

using namespace queen::wake;
using namespace std::chrono_literals;
using queen::test_support::advance_until;
using queen::test_support::eventually;
using queen::test_support::ManualClock;

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

enum class Time { Moves, Stands };

// Runs a poll to its end. Re-attempts run inline on whichever thread
// resumes the poll (the notifier, or the waiters' timer thread). With
// Time::Moves the waiters' manual clock jumps from one re-check to the next
// until the poll ends; with Time::Stands only a notify can end a park.
Poll run_poll(PopWaiters& waiters, ManualClock& clock, Clock::time_point deadline, const RecheckPolicy& p,
              std::function<bool()> attempt, std::function<bool()> abandoned = nullptr, Time time = Time::Moves) {
  std::promise<Poll> done;
  auto ended = done.get_future();
  start_long_poll(waiters, [](std::function<void()> task) { task(); }, "q", deadline, p,
                  {std::move(attempt), std::move(abandoned),
                   [&done](PollEnd end, std::exception_ptr error) { done.set_value({end, error}); }});
  const auto is_over = [&] { return ended.wait_for(0s) == std::future_status::ready; };
  EXPECT_TRUE(time == Time::Moves ? advance_until(clock, is_over) : eventually(is_over));
  return ended.get();
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
  ManualClock clock;
  PopWaiters waiters(clock);
  int attempts = 0;
  const Poll poll = run_poll(waiters, clock, clock.now() + 5s, policy(10s, 3, 2, 10s), [&] { return ++attempts == 1; });
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_EQ(attempts, 1);
}

TEST(LongPoll, RechecksOnTheFloorWithoutAnyWake) {
  ManualClock clock;
  PopWaiters waiters(clock);
  int attempts = 0;
  const auto started = clock.now();
  const Poll poll =
      run_poll(waiters, clock, started + 5s, policy(30ms, 100, 2, 30ms), [&] { return ++attempts == 4; });
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_EQ(attempts, 4);
  EXPECT_EQ(clock.now() - started, 90ms) << "three re-checks, one floor apart";
}

TEST(LongPoll, StopsAtTheDeadlineWithoutAnotherAttempt) {
  ManualClock clock;
  PopWaiters waiters(clock);
  int attempts = 0;
  const auto started = clock.now();
  const Poll poll = run_poll(waiters, clock, started + 120ms, policy(50ms, 1, 2, 1000ms), [&] {
    ++attempts;
    return false;
  });
  EXPECT_EQ(poll.end, PollEnd::Deadline);
  EXPECT_EQ(clock.now() - started, 120ms);
  // t=0, t=50 (the floor grows to 100 after it, past the deadline at 120).
  EXPECT_EQ(attempts, 2);
}

TEST(LongPoll, ANotifyWakesItLongBeforeTheFloor) {
  ManualClock clock;
  PopWaiters waiters(clock);
  std::atomic<bool> available{false};
  std::thread pusher([&] {
    EXPECT_TRUE(eventually([&] { return waiters.parked() == 1u && clock.timed_waiters() == 1u; }));  // parked
    available = true;
    waiters.notify("q");
  });
  const auto started = clock.now();
  const Poll poll = run_poll(waiters, clock, started + 10s, policy(10s, 3, 2, 10s), [&] { return available.load(); },
                             nullptr, Time::Stands);
  pusher.join();
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_EQ(clock.now(), started) << "woken by the notify, not by its re-check";
}

TEST(LongPoll, APushCommittingDuringTheCheckIsNotLost) {
  // The push lands after the check read "empty" but before the waiter parks:
  // the generation recorded before the check makes the park return at once.
  ManualClock clock;
  PopWaiters waiters(clock);
  bool available = false;
  int attempts = 0;
  const auto started = clock.now();
  const Poll poll = run_poll(waiters, clock, started + 10s, policy(10s, 3, 2, 10s), [&] {
    ++attempts;
    const bool seen = available;
    if (attempts == 1) {
      available = true;
      waiters.notify("q");
    }
    return seen;
  }, nullptr, Time::Stands);
  EXPECT_EQ(poll.end, PollEnd::Found);
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(clock.now(), started);
}

TEST(LongPoll, AbandonedStopsBeforeTheNextAttempt) {
  ManualClock clock;
  PopWaiters waiters(clock);
  int attempts = 0;
  bool gone = false;
  const Poll poll = run_poll(
      waiters, clock, clock.now() + 5s, policy(20ms, 3, 2, 20ms),
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
  ManualClock clock;
  PopWaiters waiters(clock);
  const Poll poll = run_poll(waiters, clock, clock.now() + 5s, policy(20ms, 3, 2, 20ms),
                             []() -> bool { throw std::runtime_error("boom"); });
  EXPECT_EQ(poll.end, PollEnd::Failed);
  ASSERT_TRUE(poll.error);
  EXPECT_THROW(std::rethrow_exception(poll.error), std::runtime_error);
}

TEST(LongPoll, UnregistersWhenDone) {
  ManualClock clock;
  PopWaiters waiters(clock);
  run_poll(waiters, clock, clock.now() + 10ms, policy(5ms, 3, 2, 5ms), [] { return false; });
  // The registration goes with the poll's last reference, right after finish.
  EXPECT_TRUE(eventually([&] { return waiters.parked() == 0u; }));
}

TEST(LongPoll, ThousandsOfParkedPollsHoldNoThreadAndAllWake) {
  ManualClock clock;
  PopWaiters waiters(clock);
  constexpr int kPolls = 5000;
  std::atomic<int> found{0};
  std::atomic<bool> available{false};
  for (int i = 0; i < kPolls; ++i) {
    start_long_poll(waiters, [](std::function<void()> task) { task(); }, "q", clock.now() + 30s,
                    policy(10s, 3, 2, 10s),
                    {[&] { return available.load(); }, nullptr,
                     [&](PollEnd end, std::exception_ptr) { found += end == PollEnd::Found; }});
  }
  EXPECT_EQ(waiters.parked(), static_cast<std::size_t>(kPolls));
  available = true;
  waiters.notify("q");
  EXPECT_EQ(found.load(), kPolls);  // inline executor: every poll ended inside notify
}

TEST(RecheckPolicy, DefaultsAreTheVariableTables) {
  const RecheckPolicy policy;
  EXPECT_EQ(policy.initial.count(), queen::test::table_default("POP_WAIT_INITIAL_INTERVAL_MS"));
  EXPECT_EQ(policy.backoff_threshold, queen::test::table_default("POP_WAIT_BACKOFF_THRESHOLD"));
  EXPECT_EQ(policy.multiplier, std::stod(queen::test::table_default_text("POP_WAIT_BACKOFF_MULTIPLIER")));
  EXPECT_EQ(policy.max.count(), queen::test::table_default("POP_WAIT_MAX_INTERVAL_MS"));
  EXPECT_EQ(policy.budget_per_s, queen::test::table_default("POP_WAIT_RECHECK_BUDGET_PER_S"));
}
