#include "broker/admission.h"

namespace queen::broker {

std::string lane_refusal_message(flow::Lane lane, flow::Refusal why, const flow::LaneLimits& limits) {
  const std::string variable = std::string("QUEEN_FLOW_") + flow::variable_part(lane);
  std::string message = std::string(flow::to_string(lane)) + " lane busy: ";
  if (why == flow::Refusal::QueueFull) {
    message += std::to_string(limits.max_waiters) + " request(s) already wait for a database slot (" + variable +
               "_QUEUE)";
  } else {
    message += "no database slot within " + std::to_string(limits.max_wait.count()) + " ms (" + variable +
               "_WAIT_MS)";
  }
  return message + "; retry later";
}

void throw_lane_refusal(const flow::Arbiter& arbiter, flow::Lane lane, flow::Refusal why) {
  throw LaneRefused(lane, why, lane_refusal_message(lane, why, arbiter.limits()[lane]), arbiter.retry_after_s(lane));
}

flow::Permit admit_or_throw(flow::Arbiter& arbiter, flow::Lane lane, flow::Arbiter::Clock::time_point deadline) {
  flow::Permit permit = arbiter.acquire(lane, deadline);
  if (!permit) throw_lane_refusal(arbiter, lane, permit.refusal());
  return permit;
}

ReadTimedOut::ReadTimedOut(std::chrono::milliseconds timeout)
    : BrokerError(ErrorKind::Unavailable, "read timed out: its database call ran past " +
                                              std::to_string(timeout.count()) +
                                              " ms (QUEEN_READ_STATEMENT_TIMEOUT_MS); ask for less (a smaller "
                                              "limit, a narrower filter or time window)") {}

bool ReadGate::timed_out(const db::DbError& e) const {
  constexpr const char* kQueryCanceled = "57014";  // statement_timeout (or an operator's pg_cancel_backend)
  return timeout_.count() > 0 && e.sqlstate() == kQueryCanceled;
}

}  // namespace queen::broker
