#pragma once
// The long-poll loop: attempt, park until woken or the re-check floor is
// due, attempt again, until something is found, the deadline passes or the
// caller gives up.
#include <chrono>
#include <functional>
#include <string>

#include "config/config.h"
#include "wake/pop_waiters.h"

namespace queen::wake {

// The periodic re-check floor (POP_WAIT_*): starts at `initial`, grows by
// `multiplier` after `backoff_threshold` consecutive empty checks, is capped
// at `max`, and falls back to `initial` whenever a wake-up arrives (activity).
struct RecheckPolicy {
  std::chrono::milliseconds initial{100};
  int backoff_threshold = 3;
  double multiplier = 2.0;
  std::chrono::milliseconds max{1000};

  static RecheckPolicy from(const config::PopConfig& pop);
};

class RecheckSchedule {
 public:
  explicit RecheckSchedule(const RecheckPolicy& policy) : policy_(policy), interval_(policy.initial) {}

  std::chrono::milliseconds interval() const { return interval_; }
  void on_empty_check();
  void on_wake();

 private:
  RecheckPolicy policy_;
  std::chrono::milliseconds interval_;
  int empty_checks_ = 0;
};

enum class PollEnd { Found, Deadline, Abandoned };

struct LongPollHooks {
  // One check for work; true when the poll is satisfied.
  std::function<bool()> attempt;
  // True when the poll must stop without another attempt (client gone,
  // shutdown). Checked before every re-attempt.
  std::function<bool()> abandoned;
};

// Runs the loop parked under `key`. The first attempt happens immediately.
PollEnd long_poll(PopWaiters& waiters, const std::string& key, Clock::time_point deadline,
                  const RecheckPolicy& policy, const LongPollHooks& hooks);

}  // namespace queen::wake
