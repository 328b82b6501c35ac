#pragma once
// BackgroundWorker: the one shape of every background loop in the broker (the
// sweeper, the job runner, the spool drain and its database probe, the
// maintenance-flag refresh, the mesh senders). One thread runs a named body in
// rounds; between rounds it sleeps until the deadline the body returned, a
// wake(), or stop().
//
// Rules:
//   * A wake() is never lost: it sets a flag that is cleared just before the
//     next round starts, so a wake that arrives while a round runs (or before
//     start()) cuts the following sleep short.
//   * stop() requests the end, wakes the sleep and joins: it waits for a round
//     in progress (a body that loops checks stop_requested() between steps)
//     but never for a sleep. It is idempotent, and the destructor calls it.
//     start() after stop() starts a fresh thread. A body must not call
//     stop() on its own worker (it would join itself).
//   * A body that throws is logged with the worker's name and the loop keeps
//     running: the next round is due after `retry_after` (a background loop
//     must outlive any single bad round; each body decides what is fatal).
// The thread carries the worker's name (first 15 characters) for debuggers.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "util/clock.h"

namespace queen::util {

class BackgroundWorker {
 public:
  // One round of work; returns when the next round is due (on the worker's
  // clock). Clock::time_point::max() sleeps until a wake() or stop().
  using Body = std::function<Clock::time_point()>;

  // Sleeps on `clock`, which must outlive the worker. Throws std::invalid_argument
  // on an empty name or body, or a negative retry_after.
  BackgroundWorker(std::string name, const Clock& clock, Body body, std::chrono::milliseconds retry_after);
  // A periodic loop: runs `round`, then sleeps `period` (after a round that
  // threw as well). Throws std::invalid_argument on an empty round.
  BackgroundWorker(std::string name, const Clock& clock, std::chrono::milliseconds period,
                   std::function<void()> round);
  ~BackgroundWorker();  // stop()s
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // Starts the thread; its first round runs now, or at `first_round`.
  // No-op while running.
  void start();
  void start(Clock::time_point first_round);
  // Runs the next round now instead of at its deadline. Never blocks on a round.
  void wake();
  // Ends the loop after the round in progress, if any, and joins the thread.
  void stop();

  bool running() const;
  // True from stop() until the next start(): a long round checks it between steps.
  bool stop_requested() const { return stop_requested_.load(std::memory_order_relaxed); }
  const std::string& name() const { return name_; }
  const Clock& clock() const { return clock_; }

 private:
  void run(Clock::time_point first_round);
  // Sleeps until `deadline`, a wake or a stop; false when stopping.
  bool sleep_until(Clock::time_point deadline);
  Clock::time_point run_round();

  const std::string name_;
  const Clock& clock_;
  const Body body_;
  const std::chrono::milliseconds retry_after_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool wake_requested_ = false;  // guarded by mutex_
  std::atomic<bool> stop_requested_{false};  // written under mutex_, read anywhere
  std::atomic<bool> has_thread_{false};      // between start() and the join in stop()
  std::mutex lifecycle_mutex_;               // serializes start() and stop()
  std::thread thread_;                       // guarded by lifecycle_mutex_
};

}  // namespace queen::util
