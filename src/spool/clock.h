#pragma once
// Monotonic time for the drain's cooldown and the recovery deadline, behind an
// interface so tests can move time instead of sleeping.
#include <chrono>

namespace queen::spool {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual time_point now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
};

// A process-wide SteadyClock, for callers that have no clock to inject.
const Clock& steady_clock_instance();

}  // namespace queen::spool
