#include "wake/long_poll.h"

#include <algorithm>

namespace queen::wake {

RecheckPolicy RecheckPolicy::from(const config::PopConfig& pop) {
  RecheckPolicy p;
  p.initial = std::chrono::milliseconds(pop.wait_initial_interval_ms);
  p.backoff_threshold = pop.wait_backoff_threshold;
  p.multiplier = pop.wait_backoff_multiplier;
  p.max = std::chrono::milliseconds(pop.wait_max_interval_ms);
  return p;
}

void RecheckSchedule::on_empty_check() {
  ++empty_checks_;
  if (empty_checks_ >= policy_.backoff_threshold) {
    const auto grown = static_cast<std::int64_t>(static_cast<double>(interval_.count()) * policy_.multiplier);
    interval_ = std::min(policy_.max, std::chrono::milliseconds(std::max<std::int64_t>(grown, 1)));
  }
}

void RecheckSchedule::on_wake() {
  empty_checks_ = 0;
  interval_ = policy_.initial;
}

PollEnd long_poll(PopWaiters& waiters, const std::string& key, Clock::time_point deadline,
                  const RecheckPolicy& policy, const LongPollHooks& hooks) {
  PopWaiters::Registration registration(waiters, key);
  RecheckSchedule schedule(policy);
  for (;;) {
    if (hooks.abandoned && hooks.abandoned()) return PollEnd::Abandoned;
    registration.arm();  // before the check: a push committing during it is not lost
    if (hooks.attempt()) return PollEnd::Found;
    const auto now = Clock::now();
    if (now >= deadline) return PollEnd::Deadline;
    schedule.on_empty_check();
    const auto wake_at = std::min(deadline, now + schedule.interval());
    if (registration.wait_until(wake_at)) schedule.on_wake();
  }
}

}  // namespace queen::wake
