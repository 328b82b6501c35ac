#pragma once
// How a refusal of the admission arbiter (src/flow) reaches a client: a
// BrokerError TooManyRequests, which the http layer answers 429 with a
// Retry-After of the lane's wait bound (docs/flow-control.md).
#include <chrono>
#include <string>

#include "broker/broker_error.h"
#include "db/db_error.h"
#include "db/procedure_runner.h"
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

// A read that ran past the read statement timeout: Unavailable (503), naming
// QUEEN_READ_STATEMENT_TIMEOUT_MS. Its own type, so nothing mistakes it for an
// outage: it says this request was too expensive, not that PostgreSQL is down.
class ReadTimedOut : public BrokerError {
 public:
  explicit ReadTimedOut(std::chrono::milliseconds timeout);
};

// What guards the database call of every database-backed read route
// (docs/flow-control.md, "Reads"): a slot of the Read lane, and the read
// statement timeout for the calls made while it is held.
class ReadGate {
 public:
  // `timeout` zero: reads run under DB_STATEMENT_TIMEOUT like everything else.
  ReadGate(flow::Arbiter& arbiter, std::chrono::milliseconds timeout) : arbiter_(arbiter), timeout_(timeout) {}

  // call() under a Read slot (LaneRefused when the lane refuses: 429) and the
  // read statement timeout (ReadTimedOut past it). Every other failure leaves
  // as call() threw it, for the use case's own mapping.
  template <typename Call>
  auto run(Call&& call) const {
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Read);
    const db::StatementTimeoutScope bound(timeout_);
    try {
      return call();
    } catch (const db::DbError& e) {
      if (timed_out(e)) throw ReadTimedOut(timeout_);
      throw;
    }
  }

  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  // 57014 under a bound of our own: that bound (SET LOCAL replaced the session's).
  bool timed_out(const db::DbError& e) const;

  flow::Arbiter& arbiter_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace queen::broker
