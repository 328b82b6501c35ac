#pragma once
// Parked long polls, keyed by what they wait for (a queue name, or the filter
// key shared by namespace/task pops), woken in-process when a push commits.
//
// A parked poll holds neither a database connection nor a thread: park()
// stores a callback that runs once, on the notifying thread when a push
// wakes the key or on the waiters' timer thread when the poll's re-check
// time comes. The callback only hands the next attempt to an executor.
//
// Lost wake-ups are excluded with a per-key generation counter: the waiter
// records the generation *before* it checks the database (arm), and a later
// park or wait returns at once if any notify happened since, even one that
// raced with the check.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "util/clock.h"

namespace queen::wake {

using Clock = util::Clock;

// The key under which namespace/task (filter) pops park: every committed
// push notifies it, since the broker does not know a queue's namespace/task.
inline constexpr std::string_view kFilterPopKey = "\x01filter";

class PopWaiters {
  struct Slot {
    std::uint64_t generation = 0;
    int registrations = 0;
    std::condition_variable changed;
    std::unordered_set<std::uint64_t> parked;  // ids in parked_
  };

 public:
  // Runs once: `woken` is true for a notify newer than the last arm(),
  // false when the park's wake-up time came first.
  using Resume = std::function<void(bool woken)>;

  // Parks and wakes on `clock`, which must outlive the waiters.
  explicit PopWaiters(const Clock& clock) : clock_(clock) {}
  ~PopWaiters();
  PopWaiters(const PopWaiters&) = delete;
  PopWaiters& operator=(const PopWaiters&) = delete;

  // A waiter's registration under one key; unregisters when destroyed.
  class Registration {
   public:
    Registration(PopWaiters& owner, std::string key);
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    ~Registration();

    // Records the current generation. Call right before checking for work.
    void arm();
    // Sleeps until a notify newer than the last arm() or until `deadline`.
    // Returns true when woken by a notify (also one that happened between
    // arm() and this call), false on reaching the deadline.
    bool wait_until(Clock::time_point deadline);
    // The same without a thread: `resume` runs once, at once (on this
    // thread) if a notify already came since arm(). At most one park per
    // registration at a time.
    void park(Clock::time_point wake_at, Resume resume);

   private:
    friend class PopWaiters;
    PopWaiters& owner_;
    std::string key_;
    Slot* slot_;
    std::uint64_t armed_generation_ = 0;
    std::uint64_t parked_id_ = 0;  // 0: not parked; guarded by owner_.mutex_
  };

  // Wakes every waiter parked under `key` (a committed push to that queue,
  // or a mesh hint from a peer).
  void notify(std::string_view key);
  // Wakes every waiter (shutdown, maintenance flag flips).
  void notify_all();

  // Number of live registrations (for metrics and tests).
  std::size_t parked() const;
  const Clock& clock() const { return clock_; }

 private:
  struct Parked {
    Slot* slot;
    Registration* registration;
    Clock::time_point wake_at;
    Resume resume;
  };
  // Removes a parked entry (mutex_ held) and returns its callback.
  Resume take_parked(std::uint64_t id);
  void wake_slot(Slot& slot, std::vector<Resume>& woken);
  void timer_loop();

  const Clock& clock_;
  mutable std::mutex mutex_;
  // Node-based map: Slot addresses stay valid while registrations exist;
  // a slot is erased with its last registration, so the map is bounded by
  // the number of parked pops.
  std::unordered_map<std::string, Slot> slots_;
  std::size_t registrations_ = 0;

  std::unordered_map<std::uint64_t, Parked> parked_;
  std::set<std::pair<Clock::time_point, std::uint64_t>> timers_;  // (wake_at, id) of parked_
  std::uint64_t next_parked_id_ = 1;
  std::condition_variable timer_changed_;
  bool stopping_ = false;
  std::thread timer_thread_;  // started by the first park()
};

}  // namespace queen::wake
