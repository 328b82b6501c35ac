#include "wake/long_poll.h"

#include <algorithm>
#include <memory>

namespace queen::wake {

RecheckPolicy RecheckPolicy::from(const config::PopConfig& pop) {
  RecheckPolicy p;
  p.initial = std::chrono::milliseconds(pop.wait_initial_interval_ms);
  p.backoff_threshold = pop.wait_backoff_threshold;
  p.multiplier = pop.wait_backoff_multiplier;
  p.max = std::chrono::milliseconds(pop.wait_max_interval_ms);
  p.budget_per_s = pop.wait_recheck_budget_per_s;
  return p;
}

std::chrono::milliseconds RecheckPolicy::spread(std::chrono::milliseconds interval, std::size_t parked) const {
  if (budget_per_s <= 0) return interval;
  const auto fair_share = std::chrono::milliseconds(static_cast<std::int64_t>(parked) * 1000 / budget_per_s);
  return std::max(interval, fair_share);
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

namespace {

struct PollState {
  PollState(PopWaiters& w, Executor e, const std::string& key, Clock::time_point d, const RecheckPolicy& p,
            LongPollHooks h)
      : waiters(w), executor(std::move(e)), registration(w, key), deadline(d), policy(p), schedule(p),
        hooks(std::move(h)) {}

  PopWaiters& waiters;
  Executor executor;
  PopWaiters::Registration registration;
  Clock::time_point deadline;
  RecheckPolicy policy;
  RecheckSchedule schedule;
  LongPollHooks hooks;
};

void step(const std::shared_ptr<PollState>& poll);

void park(const std::shared_ptr<PollState>& poll, Clock::time_point now) {
  poll->schedule.on_empty_check();
  const auto floor = poll->policy.spread(poll->schedule.interval(), poll->waiters.parked());
  const auto wake_at = std::min(poll->deadline, now + floor);
  poll->registration.park(wake_at, [poll](bool woken) {
    if (woken) {
      poll->schedule.on_wake();
    } else if (poll->waiters.clock().now() >= poll->deadline) {
      poll->hooks.finish(PollEnd::Deadline, nullptr);
      return;
    }
    poll->executor([poll] { step(poll); });
  });
}

void step(const std::shared_ptr<PollState>& poll) {
  try {
    if (poll->hooks.abandoned && poll->hooks.abandoned()) return poll->hooks.finish(PollEnd::Abandoned, nullptr);
    poll->registration.arm();  // before the check: a push committing during it is not lost
    if (poll->hooks.attempt()) return poll->hooks.finish(PollEnd::Found, nullptr);
  } catch (...) {
    return poll->hooks.finish(PollEnd::Failed, std::current_exception());
  }
  const auto now = poll->waiters.clock().now();
  if (now >= poll->deadline) return poll->hooks.finish(PollEnd::Deadline, nullptr);
  park(poll, now);
}

}  // namespace

void start_long_poll(PopWaiters& waiters, Executor executor, const std::string& key, Clock::time_point deadline,
                     const RecheckPolicy& policy, LongPollHooks hooks) {
  step(std::make_shared<PollState>(waiters, std::move(executor), key, deadline, policy, std::move(hooks)));
}

}  // namespace queen::wake
