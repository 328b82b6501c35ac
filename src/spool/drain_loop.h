#pragma once
// Runs SpoolDrain::run_cycle() on a background thread every FILE_BUFFER_FLUSH_MS.
#include <chrono>

#include "util/background_worker.h"

namespace queen::spool {

class SpoolDrain;

class SpoolDrainLoop {
 public:
  // Sleeps on `clock`, which must outlive the loop.
  SpoolDrainLoop(SpoolDrain& drain, std::chrono::milliseconds interval, const util::Clock& clock);
  ~SpoolDrainLoop() = default;  // the worker stops
  SpoolDrainLoop(const SpoolDrainLoop&) = delete;
  SpoolDrainLoop& operator=(const SpoolDrainLoop&) = delete;

  void start() { worker_.start(); }  // no-op when running
  void stop() { worker_.stop(); }    // waits for the cycle in progress; no-op when stopped
  bool running() const { return worker_.running(); }

  // Push maintenance: a paused drain does nothing; resuming runs a cycle at once.
  void pause(bool paused);
  // Runs the next cycle now instead of at the end of the interval.
  void wake() { worker_.wake(); }

 private:
  util::Clock::time_point run_cycle();

  SpoolDrain& drain_;
  const std::chrono::milliseconds interval_;
  util::BackgroundWorker worker_;  // last: stops before the rest goes
};

}  // namespace queen::spool
