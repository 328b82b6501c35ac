#pragma once
// The admission arbiter (docs/flow-control.md): a GrantCore behind one mutex.
// A caller that finds a free slot takes it with one lock and gives it back
// with one more; a caller that finds none waits on its own condition variable
// (a handler or drain thread, never the HTTP event loop) for at most its
// lane's wait bound. Whoever frees a slot hands it directly to the waiter the
// core picks, so a woken waiter never competes again.
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "flow/grant_core.h"
#include "flow/lane.h"
#include "util/clock.h"

namespace queen::flow {

class Arbiter;

enum class Refusal : std::uint8_t { None, QueueFull, Timeout };

// One database slot of one lane, given back when destroyed (or release()d).
// An empty permit is a refusal: refusal() says why.
class Permit {
 public:
  Permit() = default;
  ~Permit() { release(); }
  Permit(Permit&& other) noexcept { *this = std::move(other); }
  Permit& operator=(Permit&& other) noexcept;
  Permit(const Permit&) = delete;
  Permit& operator=(const Permit&) = delete;

  explicit operator bool() const { return arbiter_ != nullptr; }
  Refusal refusal() const { return refusal_; }
  Lane lane() const { return lane_; }
  void release();

 private:
  friend class Arbiter;
  Permit(Arbiter* arbiter, Lane lane) : arbiter_(arbiter), lane_(lane) {}
  static Permit refused(Lane lane, Refusal why);

  Arbiter* arbiter_ = nullptr;
  Lane lane_ = Lane::Push;
  Refusal refusal_ = Refusal::None;
};

// Upper bounds (seconds) of the wait-time histogram buckets; the last bucket is +Inf.
inline constexpr std::array<double, 8> kWaitBucketsS{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0};

struct LaneSnapshot {
  Lane lane = Lane::Push;
  int slots = 0;        // the lane's cap
  int in_use = 0;       // slots held now
  int waiting = 0;      // requests queued for a slot now
  std::uint64_t granted = 0;
  std::uint64_t rejected_queue_full = 0;
  std::uint64_t rejected_timeout = 0;
  // Wait for a granted slot: cumulative counts per kWaitBucketsS bound (+Inf last), sum and count.
  std::array<std::uint64_t, kWaitBucketsS.size() + 1> wait_buckets{};
  double wait_seconds_sum = 0;
  std::uint64_t wait_count = 0;
};

class Arbiter {
 public:
  using Clock = util::Clock;

  // Waits for slots on `clock`, which must outlive the arbiter.
  Arbiter(const FlowLimits& limits, const Clock& clock);
  Arbiter(const Arbiter&) = delete;
  Arbiter& operator=(const Arbiter&) = delete;

  // A slot of `lane`, waiting at most the lane's wait bound (and never past
  // `deadline`). Refused at once when the lane's queue is full.
  Permit acquire(Lane lane, Clock::time_point deadline = Clock::time_point::max());

  // Refusals of work that waited for this lane outside the arbiter (requests
  // queued in a combiner for a call), so the counters tell the whole story.
  void note_refused(Lane lane, Refusal why);

  std::array<LaneSnapshot, kLaneCount> snapshot() const;
  const FlowLimits& limits() const { return limits_; }
  // The Retry-After (whole seconds, 1..60) of a refusal in `lane`: its wait bound, rounded up.
  int retry_after_s(Lane lane) const;
  const Clock& clock() const { return clock_; }

 private:
  friend class Permit;
  struct Waiter {
    std::condition_variable granted_cv;
    bool granted = false;
  };
  struct LaneCounters {
    std::uint64_t granted = 0;
    std::uint64_t rejected_queue_full = 0;
    std::uint64_t rejected_timeout = 0;
    std::array<std::uint64_t, kWaitBucketsS.size() + 1> wait_buckets{};  // not cumulative
    double wait_seconds_sum = 0;
  };

  void release(Lane lane);
  void count_grant(Lane lane, double waited_s);  // mutex_ held
  Permit wait_for_grant(std::unique_lock<std::mutex>& lock, Lane lane, GrantCore::Ticket ticket,
                        Clock::time_point deadline);

  const FlowLimits limits_;
  const Clock& clock_;
  mutable std::mutex mutex_;
  GrantCore core_;
  std::unordered_map<GrantCore::Ticket, Waiter*> waiters_;
  std::array<LaneCounters, kLaneCount> counters_{};
};

}  // namespace queen::flow
