#pragma once
// How a refusal of the admission arbiter (src/flow) reaches a client: a
// BrokerError TooManyRequests, which the http layer answers 429 with a
// Retry-After of the lane's wait bound (docs/flow-control.md).
#include <string>

#include "broker/broker_error.h"
#include "flow/arbiter.h"

namespace queen::broker {

// A request its lane refused: TooManyRequests, and which lane and why, so a
// caller that does not answer 429 (a long poll's attempt) can tell it apart.
class LaneRefused : public BrokerError {
 public:
  LaneRefused(flow::Lane lane, flow::Refusal why, const std::string& message, int retry_after_s)
      : BrokerError(ErrorKind::TooManyRequests, message, retry_after_s), lane_(lane), why_(why) {}
  flow::Lane lane() const noexcept { return lane_; }
  flow::Refusal why() const noexcept { return why_; }

 private:
  flow::Lane lane_;
  flow::Refusal why_;
};

// "push lane busy: ..." naming the lane's limit that refused and its variable.
std::string lane_refusal_message(flow::Lane lane, flow::Refusal why, const flow::LaneLimits& limits);

[[noreturn]] void throw_lane_refusal(const flow::Arbiter& arbiter, flow::Lane lane, flow::Refusal why);

// A slot of `lane` (waiting at most the lane's bound and never past
// `deadline`), or LaneRefused.
flow::Permit admit_or_throw(flow::Arbiter& arbiter, flow::Lane lane,
                            flow::Arbiter::Clock::time_point deadline = flow::Arbiter::Clock::time_point::max());

}  // namespace queen::broker
