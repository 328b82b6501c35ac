#pragma once
// Parked long polls, keyed by what they wait for (a queue name, or the filter
// key shared by namespace/task pops), woken in-process when a push commits.
//
// A waiter never holds a database connection while parked. Lost wake-ups are
// excluded with a per-key generation counter: the waiter records the
// generation *before* it checks the database (arm), and a later wait returns
// at once if any notify happened since, even one that raced with the check.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace queen::wake {

using Clock = std::chrono::steady_clock;

// The key under which namespace/task (filter) pops park: every committed
// push notifies it, since the broker does not know a queue's namespace/task.
inline constexpr std::string_view kFilterPopKey = "\x01filter";

class PopWaiters {
  struct Slot {
    std::uint64_t generation = 0;
    int registrations = 0;
    std::condition_variable changed;
  };

 public:
  PopWaiters() = default;
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

   private:
    PopWaiters& owner_;
    std::string key_;
    Slot* slot_;
    std::uint64_t armed_generation_ = 0;
  };

  // Wakes every waiter parked under `key` (a committed push to that queue,
  // or a mesh hint from a peer).
  void notify(std::string_view key);
  // Wakes every waiter (shutdown, maintenance flag flips).
  void notify_all();

  // Number of live registrations (for metrics and tests).
  std::size_t parked() const;

 private:
  mutable std::mutex mutex_;
  // Node-based map: Slot addresses stay valid while registrations exist;
  // a slot is erased with its last registration, so the map is bounded by
  // the number of parked pops.
  std::unordered_map<std::string, Slot> slots_;
  std::size_t registrations_ = 0;
};

}  // namespace queen::wake
