#pragma once
// The long-poll loop without a parked thread: attempt on an executor thread,
// park (a callback in PopWaiters) until woken or the re-check floor is due,
// attempt again, until something is found, the deadline passes or the
// caller gives up.
#include <chrono>
#include <exception>
#include <functional>
#include <string>

#include "config/config.h"
#include "wake/pop_waiters.h"

namespace queen::wake {

// The periodic re-check floor (POP_WAIT_*): starts at `initial`, grows by
// `multiplier` after `backoff_threshold` consecutive empty checks, is capped
// at `max`, and falls back to `initial` whenever a wake-up arrives (activity).
// With many polls parked the floor is spread so that all of them together
// re-check at most `budget_per_s` times a second
// (POP_WAIT_RECHECK_BUDGET_PER_S): wake-ups by pushes are not affected.
// Every field defaults to the configuration's (config::PopConfig); from() copies a configuration in.
struct RecheckPolicy {
  std::chrono::milliseconds initial{config::Config::defaults().pop.wait_initial_interval_ms};
  int backoff_threshold = config::Config::defaults().pop.wait_backoff_threshold;
  double multiplier = config::Config::defaults().pop.wait_backoff_multiplier;
  std::chrono::milliseconds max{config::Config::defaults().pop.wait_max_interval_ms};
  int budget_per_s = config::Config::defaults().pop.wait_recheck_budget_per_s;

  static RecheckPolicy from(const config::PopConfig& pop);
  // The floor interval for one of `parked` polls whose own schedule says
  // `interval`.
  std::chrono::milliseconds spread(std::chrono::milliseconds interval, std::size_t parked) const;
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

enum class PollEnd { Found, Deadline, Abandoned, Failed };

// Runs a task on another thread (the HTTP handler pool).
using Executor = std::function<void(std::function<void()>)>;

struct LongPollHooks {
  // One check for work; true when the poll is satisfied. May throw: the poll
  // then ends Failed with the exception.
  std::function<bool()> attempt;
  // True when the poll must stop without another attempt (client gone,
  // shutdown). Checked before every attempt.
  std::function<bool()> abandoned;
  // Called exactly once, on whichever thread ends the poll.
  std::function<void(PollEnd, std::exception_ptr)> finish;
};

// Starts a poll parked under `key`: the first attempt runs now, on the
// calling thread; later attempts run through `executor`. A poll that reaches
// its deadline while parked ends without a last attempt.
void start_long_poll(PopWaiters& waiters, Executor executor, const std::string& key, Clock::time_point deadline,
                     const RecheckPolicy& policy, LongPollHooks hooks);

}  // namespace queen::wake
