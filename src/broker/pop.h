#pragma once
// The three pop forms as one use case: concurrent attempts with the same
// parameters share one pop_messages call (pop_combiner.h); a long poll parks
// without a thread and re-attempts when a commit wakes it or its re-check is
// due (wake/long_poll.h). Popped payloads are decrypted; those that cannot be
// are dead-lettered (docs/encryption.md). Pop maintenance answers empty.
#include <atomic>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker/maintenance_flags.h"
#include "broker/payload_encryption.h"
#include "broker/pop_combiner.h"
#include "broker/types.h"
#include "config/config.h"
#include "db/procedures.h"
#include "metrics/metrics.h"
#include "wake/long_poll.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

class Pops {
 public:
  // Everything given outlives the Pops.
  Pops(const config::PopConfig& config, PopCombiner& combiner, const PayloadEncryption& encryption,
       const MaintenanceFlags& flags, db::Procedures& db, wake::PopWaiters& waiters, metrics::Metrics& metrics);

  // Answered through `done` exactly once (with an exception for a failure),
  // on whichever thread ends the poll. The first attempt runs on the calling
  // thread; a long poll then parks without a thread and re-attempts through
  // `executor`. `client_gone` is asked before every database attempt so an
  // abandoned long poll never claims a lease.
  using Done = std::function<void(PopOutcome, std::exception_ptr)>;
  void pop(const PopCommand& command, std::function<bool()> client_gone, wake::Executor executor, Done done);

  // Releases every parked long poll (answering empty) and answers new pops
  // empty, so in-flight requests drain quickly.
  void stop();

 private:
  // Decrypts the messages, dead-letters those that cannot be (one call).
  void open_popped(std::vector<db::PoppedMessage>& messages, const std::optional<std::string>& consumer_group,
                   const Tenant& tenant);

  const std::int64_t max_timeout_ms_;
  const wake::RecheckPolicy recheck_policy_;
  PopCombiner& combiner_;
  const PayloadEncryption& encryption_;
  const MaintenanceFlags& flags_;
  db::Procedures& db_;
  wake::PopWaiters& waiters_;
  metrics::Metrics& metrics_;
  std::atomic<bool> stopping_{false};
};

}  // namespace queen::broker
