#pragma once
// How a refusal of the admission arbiter (src/flow) reaches a client: a
// BrokerError TooManyRequests, which the http layer answers 429 with a
// Retry-After of the lane's wait bound (docs/flow-control.md).
#include <string>

#include "flow/arbiter.h"

namespace queen::broker {

// "push lane busy: ..." naming the lane's limit that refused and its variable.
std::string lane_refusal_message(flow::Lane lane, flow::Refusal why, const flow::LaneLimits& limits);

[[noreturn]] void throw_lane_refusal(const flow::Arbiter& arbiter, flow::Lane lane, flow::Refusal why);

// A slot of `lane` (waiting at most the lane's bound and never past
// `deadline`), or BrokerError TooManyRequests.
flow::Permit admit_or_throw(flow::Arbiter& arbiter, flow::Lane lane,
                            flow::Arbiter::Clock::time_point deadline = flow::Arbiter::Clock::time_point::max());

}  // namespace queen::broker
