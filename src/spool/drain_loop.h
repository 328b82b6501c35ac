#pragma once
// Runs SpoolDrain::run_cycle() on a background thread every FILE_BUFFER_FLUSH_MS.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace queen::spool {

class SpoolDrain;

class SpoolDrainLoop {
 public:
  SpoolDrainLoop(SpoolDrain& drain, std::chrono::milliseconds interval);
  ~SpoolDrainLoop();  // stops
  SpoolDrainLoop(const SpoolDrainLoop&) = delete;
  SpoolDrainLoop& operator=(const SpoolDrainLoop&) = delete;

  void start();  // no-op when running
  void stop();   // waits for the cycle in progress; no-op when stopped
  bool running() const;

  // Push maintenance: a paused drain does nothing; resuming runs a cycle at once.
  void pause(bool paused);
  // Runs the next cycle now instead of at the end of the interval.
  void wake();

 private:
  void run();

  SpoolDrain& drain_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::thread thread_;
  bool stop_requested_ = false;
  bool wake_requested_ = false;
};

}  // namespace queen::spool
