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

namespace queen::util {
namespace {

using namespace std::chrono_literals;
using Clock = BackgroundWorker::Clock;

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
Clock::time_point in_an_hour() { return Clock::now() + 1h; }

TEST(BackgroundWorker, RejectsAnEmptyNameOrBodyOrNegativeRetry) {
  EXPECT_THROW(BackgroundWorker("", [] { return kNever; }, 1ms), std::invalid_argument);
  EXPECT_THROW(BackgroundWorker("w", BackgroundWorker::Body{}, 1ms), std::invalid_argument);
  EXPECT_THROW(BackgroundWorker("w", [] { return kNever; }, -1ms), std::invalid_argument);
}

TEST(BackgroundWorker, RunsTheFirstRoundAtStartThenSleepsUntilWoken) {
  Rounds rounds;
  BackgroundWorker worker("test-worker", record_then(rounds, never), 1ms);
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
  Rounds rounds;
  BackgroundWorker worker("deadline", record_then(rounds, [] { return Clock::now() + 1ms; }), 1ms);
  worker.start();
  EXPECT_TRUE(rounds.wait_for(3));
}

TEST(BackgroundWorker, TheFirstRoundWaitsForItsStartDeadline) {
  Rounds rounds;
  BackgroundWorker worker("later", record_then(rounds, never), 1ms);
  const auto started = Clock::now();
  worker.start(started + 50ms);
  ASSERT_TRUE(rounds.wait_for(1));
  EXPECT_GE(Clock::now() - started, 50ms);
}

TEST(BackgroundWorker, AWakeDuringARoundIsNotLost) {
  Rounds rounds;
  Gate first_round_may_end;
  BackgroundWorker worker("wake-in-round", [&] {
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
  Rounds rounds;
  BackgroundWorker worker("wake-first", record_then(rounds, never), 1ms);
  worker.wake();
  worker.start(kNever);  // only the pending wake can run the first round
  EXPECT_TRUE(rounds.wait_for(1));
}

TEST(BackgroundWorker, StopJoinsPromptlyWhileSleepingOnALongDeadline) {
  Rounds rounds;
  BackgroundWorker worker("long-sleep", record_then(rounds, in_an_hour), 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  const auto stopping = Clock::now();
  worker.stop();
  EXPECT_LT(Clock::now() - stopping, 1s);
  EXPECT_FALSE(worker.running());
}

TEST(BackgroundWorker, StopWaitsForTheRoundInProgressWhichSeesTheRequest) {
  Rounds rounds;
  bool saw_stop = false;
  BackgroundWorker* self = nullptr;
  BackgroundWorker worker("long-round", [&] {
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
  BackgroundWorker never_started("idle", [] { return kNever; }, 1ms);
  never_started.stop();
  never_started.stop();
  EXPECT_FALSE(never_started.running());

  Rounds rounds;
  BackgroundWorker worker("twice", record_then(rounds, never), 1ms);
  worker.start();
  ASSERT_TRUE(rounds.wait_for(1));
  worker.stop();
  worker.stop();
  EXPECT_FALSE(worker.running());
}

TEST(BackgroundWorker, StartIsANoOpWhileRunningAndRestartsAfterStop) {
  Rounds rounds;
  BackgroundWorker worker("restart", record_then(rounds, never), 1ms);
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
  Rounds rounds;
  const auto destroying = [&] {
    BackgroundWorker worker("scoped", record_then(rounds, in_an_hour), 1ms);
    worker.start();
    EXPECT_TRUE(rounds.wait_for(1));
    return Clock::now();
  }();
  EXPECT_LT(Clock::now() - destroying, 1s);
  EXPECT_EQ(rounds.count(), 1);
}

TEST(BackgroundWorker, AThrowingRoundIsRetriedAfterRetryAfterAndTheLoopLives) {
  Rounds rounds;
  BackgroundWorker worker("thrower", [&]() -> Clock::time_point {
    rounds.record();
    if (rounds.count() == 1) throw std::runtime_error("bad round");
    if (rounds.count() == 2) throw 42;  // not a std::exception
    return kNever;
  }, 1ms);
  worker.start();
  EXPECT_TRUE(rounds.wait_for(3));
  EXPECT_TRUE(worker.running());
}

TEST(BackgroundWorker, TheThreadCarriesTheFirstFifteenCharactersOfTheName) {
  std::string seen;
  Rounds rounds;
  BackgroundWorker worker("a-rather-long-worker-name", [&] {
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
