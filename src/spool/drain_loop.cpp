#include "spool/drain_loop.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <stdexcept>

#include "spool/spool_drain.h"
#include "spool/spool_log.h"

namespace queen::spool {

SpoolDrainLoop::SpoolDrainLoop(SpoolDrain& drain, std::chrono::milliseconds interval)
    : drain_(drain), interval_(interval) {
  if (interval_.count() <= 0) throw std::invalid_argument("drain interval must be positive");
}

SpoolDrainLoop::~SpoolDrainLoop() { stop(); }

void SpoolDrainLoop::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) return;
  stop_requested_ = false;
  thread_ = std::thread([this] { run(); });
}

void SpoolDrainLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return;
    stop_requested_ = true;
  }
  cv_.notify_all();
  thread_.join();
  std::lock_guard lock(mutex_);
  thread_ = std::thread();
}

bool SpoolDrainLoop::running() const {
  std::lock_guard lock(mutex_);
  return thread_.joinable() && !stop_requested_;
}

void SpoolDrainLoop::pause(bool paused) {
  drain_.pause(paused);
  if (!paused) wake();
}

void SpoolDrainLoop::wake() {
  {
    std::lock_guard lock(mutex_);
    wake_requested_ = true;
  }
  cv_.notify_all();
}

void SpoolDrainLoop::run() {
  std::unique_lock lock(mutex_);
  while (!stop_requested_) {
    wake_requested_ = false;
    lock.unlock();
    try {
      drain_.run_cycle();
    } catch (const std::exception& e) {
      // The loop must outlive any single bad cycle (e.g. a directory listing error).
      spool_log()->error("spool drain cycle failed: {}", e.what());
    } catch (...) {
      spool_log()->error("spool drain cycle failed with a non-standard exception");
    }
    lock.lock();
    cv_.wait_for(lock, interval_, [this] { return stop_requested_ || wake_requested_; });
  }
}

}  // namespace queen::spool
