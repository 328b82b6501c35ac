#include "util/background_worker.h"

#include <pthread.h>

#include <spdlog/spdlog.h>

#include <exception>
#include <stdexcept>

#include "util/assert.h"

namespace queen::util {
namespace {

// Linux limits a thread name to 15 characters plus the terminator.
constexpr std::size_t kMaxThreadNameChars = 15;

void name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, kMaxThreadNameChars).c_str());
}

// The body of a periodic loop; empty when `round` is, for the constructor's check.
BackgroundWorker::Body periodic_body(const Clock& clock, std::chrono::milliseconds period,
                                     std::function<void()> round) {
  if (!round) return {};
  return [&clock, period, round = std::move(round)] {
    round();
    return clock.now() + period;
  };
}

}  // namespace

BackgroundWorker::BackgroundWorker(std::string name, const Clock& clock, Body body,
                                   std::chrono::milliseconds retry_after)
    : name_(std::move(name)), clock_(clock), body_(std::move(body)), retry_after_(retry_after) {
  if (name_.empty()) throw std::invalid_argument("a background worker needs a name");
  if (!body_) throw std::invalid_argument("background worker " + name_ + " needs a body");
  if (retry_after_.count() < 0) throw std::invalid_argument("background worker " + name_ + ": negative retry_after");
}

BackgroundWorker::BackgroundWorker(std::string name, const Clock& clock, std::chrono::milliseconds period,
                                   std::function<void()> round)
    : BackgroundWorker(std::move(name), clock, periodic_body(clock, period, std::move(round)), period) {}

BackgroundWorker::~BackgroundWorker() { stop(); }

void BackgroundWorker::start() { start(clock_.now()); }

void BackgroundWorker::start(Clock::time_point first_round) {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mutex_);
  if (thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_.store(false);
  }
  thread_ = std::thread([this, first_round] { run(first_round); });
  has_thread_.store(true);
}

void BackgroundWorker::wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_requested_ = true;
  }
  changed_.notify_all();
}

void BackgroundWorker::stop() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_.store(true);
  }
  changed_.notify_all();
  if (!thread_.joinable()) return;
  QUEEN_ASSERT(thread_.get_id() != std::this_thread::get_id(), "stop() from the worker's own round would join itself");
  thread_.join();
  has_thread_.store(false);
}

bool BackgroundWorker::running() const { return has_thread_.load() && !stop_requested(); }

bool BackgroundWorker::sleep_until(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  clock_.wait_until(changed_, lock, deadline, [this] { return stop_requested_.load() || wake_requested_; });
  if (stop_requested_.load()) return false;
  // Cleared before the round: a wake that arrives during it cuts the next sleep.
  wake_requested_ = false;
  return true;
}

Clock::time_point BackgroundWorker::run_round() {
  try {
    return body_();
  } catch (const std::exception& e) {
    spdlog::error("{}: round failed, next in {} ms: {}", name_, retry_after_.count(), e.what());
  } catch (...) {
    spdlog::error("{}: round failed with a non-standard exception, next in {} ms", name_, retry_after_.count());
  }
  return clock_.now() + retry_after_;
}

void BackgroundWorker::run(Clock::time_point first_round) {
  name_this_thread(name_);
  Clock::time_point next = first_round;
  while (sleep_until(next)) next = run_round();
}

}  // namespace queen::util
