#pragma once
// ManualClock: a util::Clock that moves only when a test moves it. Timed waits
// on it end when the test has moved past their deadline (or their condition
// holds), never because real time passed.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>

#include "eventually.h"
#include "util/clock.h"

namespace queen::test_support {

class ManualClock final : public util::Clock {
 public:
  time_point now() const override { return time_point(std::chrono::nanoseconds(now_ns_.load())); }
  system_time_point system_now() const override {
    return system_time_point(std::chrono::duration_cast<system_time_point::duration>(
        std::chrono::nanoseconds(system_origin_ns_.load() + now_ns_.load())));
  }

  // A timed wait re-checks the manual time on a short real-time beat: a move
  // holds none of the waiters' mutexes, so it cannot notify their condition
  // variables without racing them. The beat only bounds how soon a waiter sees
  // a move; what it decides depends on the manual time alone.
  bool wait_until(std::condition_variable& changed, std::unique_lock<std::mutex>& lock, time_point deadline,
                  const std::function<bool()>& done) const override {
    if (deadline == time_point::max()) {
      changed.wait(lock, done);
      return true;
    }
    if (done()) return true;  // never counted as waiting: nothing for a test to move to
    std::multiset<time_point>::iterator pending;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      pending = deadlines_.insert(deadline);
    }
    while (!done() && now() < deadline) changed.wait_for(lock, kBeat);
    {
      std::lock_guard<std::mutex> guard(mutex_);
      deadlines_.erase(pending);
    }
    return done();
  }

  void advance(std::chrono::nanoseconds by) { now_ns_ += by.count(); }

  // Moves to the earliest deadline a thread waits for, once every waiter whose
  // deadline has passed has woken: a loop runs round by round, each exactly
  // when due. False when there is nothing to move to yet.
  bool advance_to_next_deadline() {
    const auto next = next_deadline();
    if (!next) return false;
    advance_to(*next);
    return true;
  }

  // The earliest deadline after now that a thread waits for, if one does.
  std::optional<time_point> next_deadline() const {
    std::lock_guard<std::mutex> guard(mutex_);
    if (deadlines_.empty() || *deadlines_.begin() <= now()) return std::nullopt;
    return *deadlines_.begin();
  }

  // Moves forward to `to`; never back.
  void advance_to(time_point to) {
    const auto to_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(to.time_since_epoch()).count();
    auto at = now_ns_.load();
    while (at < to_ns && !now_ns_.compare_exchange_weak(at, to_ns)) {
    }
  }

  // Threads in a timed wait now: a test waits for a loop to reach its sleep.
  std::size_t timed_waiters() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return deadlines_.size();
  }

 private:
  static constexpr std::chrono::milliseconds kBeat{1};
  std::atomic<std::int64_t> now_ns_{1'000'000'000};
  std::atomic<std::int64_t> system_origin_ns_{1'767'225'600'000'000'000};  // 2026-01-01T00:00:00Z
  mutable std::mutex mutex_;
  mutable std::multiset<time_point> deadlines_;  // of the timed waits in progress
};

// Moves `clock` from deadline to deadline until `condition` holds: drives
// loops through as many of their rounds as the condition needs. The deadline
// is read before the condition: a loop records its round before it sleeps, so
// a condition read after its sleep began sees that round, and the clock never
// moves past a round the condition would have stopped at.
template <typename Condition>
bool advance_until(ManualClock& clock, Condition condition) {
  return eventually([&] {
    const auto next = clock.next_deadline();
    if (condition()) return true;
    if (next) clock.advance_to(*next);
    return false;
  });
}

}  // namespace queen::test_support
