#include "util/background_worker.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "../support/eventually.h"
#include "../support/manual_clock.h"

namespace queen::util {
namespace {

using namespace std::chrono_literals;
using test_support::eventually;
using test_support::ManualClock;
using RealTime = std::chrono::steady_clock;  // only to bound how long a stop() takes

constexpr auto kTestTimeout = 5s;  // generous: only a broken worker ever waits this long
const Clock::time_point kNever = Clock::time_point::max();

// Counts rounds and lets a test wait for a count without sleeping blindly.
class Rounds {
 public:
  void record() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++count_;
    }
    changed_.notify_all();
  }
  bool wait_for(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kTestTimeout, [&] { return count_ >= count; });
  }
  int count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
};

// A one-shot gate a body blocks on until the test opens it.
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kTestTimeout, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
};

// A body that records its round and is due again at `next` (computed per round).
BackgroundWorker::Body record_then(Rounds& rounds, std::function<Clock::time_point()> next) {
  return [&rounds, next = std::move(next)] {
    rounds.record();
    return next();
  };
}

Clock::time_point never() { return kNever; }

// Moves `clock` from deadline to deadline until `rounds` reaches `count`.
bool advance_until(ManualClock& clock, Rounds& rounds, int count) {
  return test_support::advance_until(clock, [&] { return rounds.count() >= count; });
}

TEST(BackgroundWorker, RejectsAnEmptyNameOrBodyOrNegativeRetry) {
  ManualClock clock;
  EXPECT_THROW(BackgroundWorker("", clock, [] { return kNever; }, 1ms), std::invalid_argument);
  EXPECT_THROW(BackgroundWorker("w", clock, BackgroundWorker::Body{}, 1ms), std::invalid_argument);
  EXPECT_THROW(BackgroundWorker("w", clock, [] { return kNever; }, -1ms), std::invalid_argument);
}

TEST(BackgroundWorker, RunsTheFirstRoundAtStartThenSleepsUntilWoken) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("test-worker", clock, record_then(rounds, never), 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  EXPECT_TRUE(worker.running());
  worker.wake();
  ASSERT_TRUE(rounds.wait_for(2));
  worker.stop();
  EXPECT_FALSE(worker.running());
  EXPECT_EQ(rounds.count(), 2);
}

TEST(BackgroundWorker, RunsAgainAtTheDeadlineTheBodyReturned) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("deadline", clock, record_then(rounds, [&] { return clock.now() + 1ms; }), 1ms);
  const auto started = clock.now();
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  EXPECT_TRUE(eventually([&] { return clock.timed_waiters() == 1u; }));
  EXPECT_EQ(rounds.count(), 1) << "not due before the clock reaches the deadline";
  EXPECT_TRUE(advance_until(clock, rounds, 3));
  EXPECT_EQ(clock.now() - started, 2ms) << "each round exactly 1 ms after the previous one";
}

TEST(BackgroundWorker, APeriodicLoopRunsItsRoundEveryPeriodAndAfterAThrowToo) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("periodic", clock, 5ms, [&] {
    rounds.record();
    if (rounds.count() == 2) throw std::runtime_error("bad round");
  });
  const auto started = clock.now();
  worker.start();
  EXPECT_TRUE(advance_until(clock, rounds, 4));
  EXPECT_EQ(clock.now() - started, 15ms) << "each round one period after the previous one, the throwing one included";
}

TEST(BackgroundWorker, APeriodicLoopNeedsARound) {
  ManualClock clock;
  EXPECT_THROW(BackgroundWorker("w", clock, 1ms, std::function<void()>{}), std::invalid_argument);
}

TEST(BackgroundWorker, TheFirstRoundWaitsForItsStartDeadline) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("later", clock, record_then(rounds, never), 1ms);
  const auto started = clock.now();
  worker.start(started + 50ms);
  ASSERT_TRUE(eventually([&] { return clock.timed_waiters() == 1u; }));
  clock.advance(49ms);
  ASSERT_TRUE(eventually([&] { return clock.timed_waiters() == 1u; }));
  EXPECT_EQ(rounds.count(), 0);
  clock.advance(1ms);
  ASSERT_TRUE(rounds.wait_for(1));
  EXPECT_EQ(clock.now() - started, 50ms);
}

TEST(BackgroundWorker, AWakeDuringARoundIsNotLost) {
  ManualClock clock;
  Rounds rounds;
  Gate first_round_may_end;
  BackgroundWorker worker("wake-in-round", clock, [&] {
    rounds.record();
    if (rounds.count() == 1) first_round_may_end.wait();
    return kNever;
  }, 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  worker.wake();  // arrives before the worker goes to sleep
  first_round_may_end.open();
  EXPECT_TRUE(rounds.wait_for(2));
}

TEST(BackgroundWorker, AWakeBeforeStartIsNotLost) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("wake-first", clock, record_then(rounds, never), 1ms);
  worker.wake();
  worker.start(kNever);  // only the pending wake can run the first round
  EXPECT_TRUE(rounds.wait_for(1));
}

TEST(BackgroundWorker, StopJoinsPromptlyWhileSleepingOnALongDeadline) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("long-sleep", clock, record_then(rounds, [&] { return clock.now() + 1h; }), 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  const auto stopping = RealTime::now();
  worker.stop();
  EXPECT_LT(RealTime::now() - stopping, 1s);
  EXPECT_FALSE(worker.running());
}

TEST(BackgroundWorker, StopWaitsForTheRoundInProgressWhichSeesTheRequest) {
  ManualClock clock;
  Rounds rounds;
  bool saw_stop = false;
  BackgroundWorker* self = nullptr;
  BackgroundWorker worker("long-round", clock, [&] {
    rounds.record();
    while (!self->stop_requested()) std::this_thread::yield();  // a body that loops checks between steps
    saw_stop = true;
    return kNever;
  }, 1ms);
  self = &worker;
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  worker.stop();
  EXPECT_TRUE(saw_stop);  // joined after the round ended
  EXPECT_EQ(rounds.count(), 1);
}

TEST(BackgroundWorker, StopIsIdempotentAndSafeBeforeStart) {
  ManualClock clock;
  BackgroundWorker never_started("idle", clock, [] { return kNever; }, 1ms);
  never_started.stop();
  never_started.stop();
  EXPECT_FALSE(never_started.running());

  Rounds rounds;
  BackgroundWorker worker("twice", clock, record_then(rounds, never), 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  worker.stop();
  worker.stop();
  EXPECT_FALSE(worker.running());
}

TEST(BackgroundWorker, StartIsANoOpWhileRunningAndRestartsAfterStop) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("restart", clock, record_then(rounds, never), 1ms);
  worker.start();
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  worker.stop();
  EXPECT_EQ(rounds.count(), 1);
  worker.start();
  EXPECT_TRUE(rounds.wait_for(2));
  EXPECT_TRUE(worker.running());
}

TEST(BackgroundWorker, TheDestructorStopsASleepingWorker) {
  ManualClock clock;
  Rounds rounds;
  const auto destroying = [&] {
    BackgroundWorker worker("scoped", clock, record_then(rounds, [&] { return clock.now() + 1h; }), 1ms);
    worker.start();
    EXPECT_TRUE(rounds.wait_for(1));
    return RealTime::now();
  }();
  EXPECT_LT(RealTime::now() - destroying, 1s);
  EXPECT_EQ(rounds.count(), 1);
}

TEST(BackgroundWorker, AThrowingRoundIsRetriedAfterRetryAfterAndTheLoopLives) {
  ManualClock clock;
  Rounds rounds;
  BackgroundWorker worker("thrower", clock, [&]() -> Clock::time_point {
    rounds.record();
    if (rounds.count() == 1) throw std::runtime_error("bad round");
    if (rounds.count() == 2) throw 42;  // not a std::exception
    return kNever;
  }, 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  EXPECT_TRUE(advance_until(clock, rounds, 3)) << "each retry is due retry_after later";
  EXPECT_TRUE(worker.running());
}

TEST(BackgroundWorker, TheThreadCarriesTheFirstFifteenCharactersOfTheName) {
  ManualClock clock;
  std::string seen;
  Rounds rounds;
  BackgroundWorker worker("a-rather-long-worker-name", clock, [&] {
    char name[32] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    seen = name;
    rounds.record();
    return kNever;
  }, 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  worker.stop();
  EXPECT_EQ(seen, "a-rather-long-w");
}

}  // namespace
}  // namespace queen::util
