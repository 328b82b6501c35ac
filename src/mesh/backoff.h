#pragma once
// Reconnect delay: exponential backoff with jitter, as a pure function so it can be tested without sleeping.
#include <chrono>

namespace queen::mesh {

// Delay before reconnect attempt number `attempt` (0 = first retry after a failure).
// The ceiling is 2 * min_delay * 2^attempt, capped at max_delay; the delay is drawn in [ceiling / 2, ceiling] by
// `jitter` in [0, 1] ("equal jitter": brokers that lost the same peer at the same moment do not retry in lockstep,
// yet each waits at least half its ceiling). The result is never below min_delay nor above max(min, max).
// Out-of-range jitter is clamped; max_delay < min_delay is treated as max_delay == min_delay.
std::chrono::milliseconds reconnect_delay(unsigned attempt, std::chrono::milliseconds min_delay,
                                          std::chrono::milliseconds max_delay, double jitter);

}  // namespace queen::mesh
