#pragma once
// Clock: the one source of time for the background loops, long polls, jobs,
// admission, the mesh and the spool. It is passed in, never assumed, so a test
// moves time with a manual clock (tests/unit/support/manual_clock.h) instead of
// sleeping. Production code passes real_clock().
//
//   now()         steady time: deadlines, intervals, cooldowns.
//   system_now()  wall time: what is compared across brokers or stored
//                 (job cycle boundaries, mesh frame stamps).
//   wait_until()  the one timed wait: blocks on `changed` until `done()` or the
//                 deadline on this clock; time_point::max() waits for done() alone.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace queen::util {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;
  using system_time_point = std::chrono::system_clock::time_point;

  virtual ~Clock() = default;
  virtual time_point now() const = 0;
  virtual system_time_point system_now() const = 0;
  // `lock` holds the mutex that guards what done() reads; returns done().
  virtual bool wait_until(std::condition_variable& changed, std::unique_lock<std::mutex>& lock, time_point deadline,
                          const std::function<bool()>& done) const = 0;

  // Milliseconds since the Unix epoch of system_now().
  std::int64_t system_now_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(system_now().time_since_epoch()).count();
  }
};

class RealClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
  system_time_point system_now() const override { return std::chrono::system_clock::now(); }
  bool wait_until(std::condition_variable& changed, std::unique_lock<std::mutex>& lock, time_point deadline,
                  const std::function<bool()>& done) const override {
    if (deadline == time_point::max()) {
      changed.wait(lock, done);
      return true;
    }
    return changed.wait_until(lock, deadline, done);
  }
};

// The process's real clock (stateless; one instance so callers can hold a reference).
inline const Clock& real_clock() {
  static const RealClock clock;
  return clock;
}

}  // namespace queen::util
