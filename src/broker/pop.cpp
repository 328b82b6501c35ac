#include "broker/pop.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include <spdlog/spdlog.h>

#include "broker/admission.h"
#include "broker/broker_error.h"
#include "broker/encoding.h"
#include "db/db_error.h"

namespace queen::broker {

Pops::Pops(const config::PopConfig& config, PopCombiner& combiner, const PayloadEncryption& encryption,
           const MaintenanceFlags& flags, db::Procedures& db, wake::PopWaiters& waiters, metrics::Metrics& metrics)
    : max_timeout_ms_(config.max_timeout_ms),
      recheck_policy_(wake::RecheckPolicy::from(config)),
      combiner_(combiner),
      encryption_(encryption),
      flags_(flags),
      db_(db),
      waiters_(waiters),
      metrics_(metrics) {}

void Pops::stop() {
  if (stopping_.exchange(true)) return;
  waiters_.notify_all();
}

void Pops::pop(const PopCommand& command, std::function<bool()> client_gone, wake::Executor executor, Done done) {
  auto outcome = std::make_shared<PopOutcome>();
  outcome->consumer_group = command.query.consumer_group.value_or(kQueueModeGroup);
  const std::int64_t timeout_ms = std::clamp<std::int64_t>(command.timeout_ms, 0, max_timeout_ms_);
  const bool long_poll = command.wait && timeout_ms > 0;
  const auto deadline = waiters_.clock().now() + std::chrono::milliseconds(timeout_ms);

  auto attempt = [this, query = command.query, long_poll, deadline, outcome]() -> bool {
    // Pop maintenance: empty without touching the database.
    if (flags_.pop()) return false;
    try {
      // Concurrent attempts with the same parameters share one call, which
      // holds one Pop slot for this attempt only: a parked poll holds none
      // (pop_combiner.h).
      outcome->messages = combiner_.submit(query, long_poll ? deadline : wake::Clock::time_point::max());
      open_popped(outcome->messages, query.consumer_group, query.tenant);
      return !outcome->messages.empty();
    } catch (const LaneRefused&) {
      // A long poll that gets no slot in time re-checks later like an empty
      // attempt (its client gets 204 at the deadline, never 429).
      if (long_poll) return false;
      throw;
    } catch (const db::DbError& e) {
      if (e.transient() && long_poll) {
        // A long poll keeps re-checking through an outage until its timeout.
        metrics_.record_db_error();
        spdlog::debug("pop: database unavailable, will re-check: {}", e.what());
        return false;
      }
      rethrow_db_failure(e, metrics_);
    }
  };
  auto abandoned = [this, client_gone = std::move(client_gone)] {
    return stopping_.load(std::memory_order_relaxed) || (client_gone && client_gone());
  };
  auto finish = [this, outcome, done = std::move(done)](wake::PollEnd, std::exception_ptr error) {
    if (!error) metrics_.record_pop(outcome->messages.size());
    done(std::move(*outcome), error);
  };

  if (!long_poll) {
    std::exception_ptr error;
    try {
      if (!abandoned()) attempt();
    } catch (...) {
      error = std::current_exception();
    }
    return finish(wake::PollEnd::Found, error);
  }
  const std::string key = command.query.queue ? *command.query.queue : std::string(wake::kFilterPopKey);
  wake::start_long_poll(waiters_, std::move(executor), key, deadline, recheck_policy_,
                        {std::move(attempt), std::move(abandoned), std::move(finish)});
}

void Pops::open_popped(std::vector<db::PoppedMessage>& messages, const std::optional<std::string>& consumer_group,
                       const Tenant& tenant) {
  const std::vector<UndecryptableMessage> bad = encryption_.open_popped(messages);
  if (bad.empty()) return;
  metrics_.record_undecryptable(bad.size());
  try {
    db_.dead_letter_undecryptable(encode_undecryptable(bad), consumer_group, tenant);
  } catch (const db::DbError& e) {
    // They stay leased and come back after the lease; the next pop retries.
    metrics_.record_db_error();
    spdlog::warn("encryption: {} undecryptable message(s) not moved to the DLQ: {}", bad.size(), e.what());
  }
}

}  // namespace queen::broker
