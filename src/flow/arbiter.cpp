#include "flow/arbiter.h"

#include <algorithm>

#include "util/assert.h"

namespace queen::flow {

// ------------------------------------------------------------------- permit

Permit& Permit::operator=(Permit&& other) noexcept {
  if (this != &other) {
    release();
    arbiter_ = other.arbiter_;
    lane_ = other.lane_;
    refusal_ = other.refusal_;
    other.arbiter_ = nullptr;
  }
  return *this;
}

void Permit::release() {
  if (arbiter_ == nullptr) return;
  Arbiter* arbiter = arbiter_;
  arbiter_ = nullptr;
  arbiter->release(lane_);
}

Permit Permit::refused(Lane lane, Refusal why) {
  Permit p;
  p.lane_ = lane;
  p.refusal_ = why;
  return p;
}

// ------------------------------------------------------------------ arbiter

Arbiter::Arbiter(const FlowLimits& limits, const Clock& clock) : limits_(limits), clock_(clock), core_(limits) {}

void Arbiter::count_grant(Lane lane, double waited_s) {
  LaneCounters& c = counters_[index_of(lane)];
  ++c.granted;
  c.wait_seconds_sum += waited_s;
  std::size_t bucket = 0;
  while (bucket < kWaitBucketsS.size() && waited_s > kWaitBucketsS[bucket]) ++bucket;
  ++c.wait_buckets[bucket];
}

Permit Arbiter::acquire(Lane lane, Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  const GrantCore::Ask ask = core_.ask(lane);
  if (ask.result == GrantCore::AskResult::Granted) {
    count_grant(lane, 0.0);
    return Permit(this, lane);
  }
  if (ask.result == GrantCore::AskResult::QueueFull) {
    ++counters_[index_of(lane)].rejected_queue_full;
    return Permit::refused(lane, Refusal::QueueFull);
  }
  return wait_for_grant(lock, lane, ask.ticket, deadline);
}

Permit Arbiter::wait_for_grant(std::unique_lock<std::mutex>& lock, Lane lane, GrantCore::Ticket ticket,
                               Clock::time_point deadline) {
  const Clock::time_point started = clock_.now();
  deadline = std::min(deadline, started + limits_[lane].max_wait);
  Waiter waiter;
  waiters_.emplace(ticket, &waiter);
  const bool granted = clock_.wait_until(waiter.granted_cv, lock, deadline, [&waiter] { return waiter.granted; });
  waiters_.erase(ticket);
  if (!granted) {
    // Not granted under this same lock, so the ticket is still queued.
    const bool withdrawn = core_.withdraw(lane, ticket);
    QUEEN_ASSERT(withdrawn, "a waiter that was not granted is still queued");
    ++counters_[index_of(lane)].rejected_timeout;
    return Permit::refused(lane, Refusal::Timeout);
  }
  count_grant(lane, std::chrono::duration<double>(clock_.now() - started).count());
  return Permit(this, lane);
}

void Arbiter::release(Lane lane) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::optional<GrantCore::Grant> grant = core_.release(lane);
  if (!grant) return;
  const auto it = waiters_.find(grant->ticket);
  QUEEN_ASSERT(it != waiters_.end(), "every queued ticket has a waiting thread");
  it->second->granted = true;
  // Under the lock: the waiter (on its own stack) cannot return before this call ends.
  it->second->granted_cv.notify_one();
}

void Arbiter::note_refused(Lane lane, Refusal why) {
  std::lock_guard<std::mutex> lock(mutex_);
  LaneCounters& c = counters_[index_of(lane)];
  if (why == Refusal::QueueFull) ++c.rejected_queue_full;
  if (why == Refusal::Timeout) ++c.rejected_timeout;
}

std::array<LaneSnapshot, kLaneCount> Arbiter::snapshot() const {
  std::array<LaneSnapshot, kLaneCount> out{};
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Lane lane : kWakeOrder) {
    const LaneCounters& c = counters_[index_of(lane)];
    LaneSnapshot& s = out[index_of(lane)];
    s.lane = lane;
    s.slots = limits_[lane].slots;
    s.in_use = core_.in_use(lane);
    s.waiting = core_.waiting(lane);
    s.granted = c.granted;
    s.rejected_queue_full = c.rejected_queue_full;
    s.rejected_timeout = c.rejected_timeout;
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b < c.wait_buckets.size(); ++b) {
      cumulative += c.wait_buckets[b];
      s.wait_buckets[b] = cumulative;
    }
    s.wait_seconds_sum = c.wait_seconds_sum;
    s.wait_count = cumulative;
  }
  return out;
}

int Arbiter::retry_after_s(Lane lane) const {
  const auto ms = limits_[lane].max_wait.count();
  return static_cast<int>(std::clamp<std::int64_t>((ms + 999) / 1000, 1, 60));
}

}  // namespace queen::flow
