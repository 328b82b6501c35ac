#include "spool/drain_loop.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <stdexcept>

#include "spool/spool_drain.h"
#include "spool/spool_log.h"

namespace queen::spool {

SpoolDrainLoop::SpoolDrainLoop(SpoolDrain& drain, std::chrono::milliseconds interval, const util::Clock& clock)
    : drain_(drain), interval_(interval), worker_("spool-drain", clock, [this] { return run_cycle(); }, interval) {
  if (interval_.count() <= 0) throw std::invalid_argument("drain interval must be positive");
}

void SpoolDrainLoop::pause(bool paused) {
  drain_.pause(paused);
  if (!paused) wake();
}

util::Clock::time_point SpoolDrainLoop::run_cycle() {
  try {
    drain_.run_cycle();
  } catch (const std::exception& e) {
    // Logged to the spool's log, where an operator reads about the spool; the
    // loop outlives any single bad cycle (e.g. a directory listing error).
    spool_log()->error("spool drain cycle failed: {}", e.what());
  }
  return worker_.clock().now() + interval_;
}

}  // namespace queen::spool
