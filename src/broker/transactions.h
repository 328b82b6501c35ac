#pragma once
// POST /api/v1/transaction as a broker use case (docs/api-extensions.md):
// acks and pushes run in order inside one queen.run_transaction call, all or
// nothing. No spool path: a transaction the database cannot run fails (503).
//
// Push operations are typed (PushItem) so their items get exactly the
// treatment of /push (same validation, minted transactionIds); every other
// operation travels verbatim and the database judges it (ack semantics,
// "Unknown operation type: <type>").
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "broker/payload_encryption.h"
#include "broker/pop_wakes.h"
#include "broker/tenant_quotas.h"
#include "broker/types.h"
#include "db/procedures.h"
#include "flow/arbiter.h"
#include "metrics/metrics.h"

namespace queen::broker {

struct TransactionOperation {
  enum class Kind { Push, Verbatim };
  Kind kind = Kind::Verbatim;
  std::vector<PushItem> items;  // Kind::Push
  std::string verbatim_json;    // Kind::Verbatim: the operation object as the client sent it
};

struct TransactionCommand {
  std::vector<TransactionOperation> operations;  // non-empty (checked by the caller)
  std::vector<std::string> required_leases;      // lease ids that must still be held
};

struct TransactionOutcome {
  std::string result_json;  // {transactionId, success, results[, error]} from the database, verbatim
  bool success = false;
};

// What a run_transaction result says, for the follow-up work after a commit.
struct TransactionSummary {
  bool success = false;
  std::size_t pushed = 0;  // push results
  std::size_t acked = 0;   // ack results
};

// run_transaction's p_ops: {"operations": [...], "requiredLeases": [...]}.
// Push operations are re-encoded with encode_push_item (so only the keys the
// broker vouches for reach the database); the others are spliced verbatim.
std::string encode_transaction(const TransactionCommand& command);

// Reads a run_transaction result. Throws std::invalid_argument when it is not
// a JSON object with a boolean `success` (a broken contract, not a client error).
TransactionSummary summarize_transaction_result(const std::string& result_json);

// After a commit: the queues whose new messages are poppable now (pushed items
// without a future deliverAt), whose parked long polls should wake.
std::set<std::string> queues_to_wake(const TransactionCommand& command, std::int64_t now_ms);

// After a commit: true when an item was scheduled (deliverAt after now_ms),
// so the sweeper should look now rather than at its next sleep ceiling.
bool schedules_timers(const TransactionCommand& command, std::int64_t now_ms);

class Transactions {
 public:
  // Everything given outlives the Transactions.
  Transactions(db::Procedures& db, flow::Arbiter& arbiter, PayloadEncryption& encryption, TenantQuotas& quotas,
               const CommitListeners& listeners, metrics::Metrics& metrics)
      : db_(db), arbiter_(arbiter), encryption_(encryption), quotas_(quotas), listeners_(listeners), metrics_(metrics) {}

  // One run_transaction call; business failures come back as success:false,
  // an outage as Unavailable. Its pushes count against the tenant's quotas like /push.
  TransactionOutcome run_transaction(TransactionCommand command, const PushOrigin& origin);

 private:
  // One run_transaction call; its result in `outcome`, summarized.
  TransactionSummary call_run_transaction(const TransactionCommand& command, const PushOrigin& origin,
                                          TransactionOutcome& outcome);

  db::Procedures& db_;
  flow::Arbiter& arbiter_;
  PayloadEncryption& encryption_;
  TenantQuotas& quotas_;
  const CommitListeners& listeners_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
