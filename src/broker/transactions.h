#pragma once
// POST /api/v1/transaction as a broker use case (docs/api-extensions.md):
// acks and pushes run in order inside one queen.run_transaction call, all or
// nothing. No spool path: a transaction the database cannot run fails (503).
//
// Push operations are typed (PushItem) so their items get exactly the
// treatment of /push (same validation, minted transactionIds); every other
// operation travels verbatim and the database judges it (ack semantics,
// "Unknown operation type: <type>").
#include <string>
#include <vector>

#include "broker/atomic_write.h"
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

// run_transaction's p_ops: {"operations": [...], "requiredLeases": [...]}.
// Push operations are re-encoded with encode_push_item (so only the keys the
// broker vouches for reach the database); the others are spliced verbatim.
std::string encode_transaction(const TransactionCommand& command);

// Reads a run_transaction result: its push and ack results. A result without
// a boolean `success` is a broken contract (parse_procedure_outcome:
// BrokerError Internal).
WriteSummary summarize_transaction_result(const std::string& result_json);

// The items of the command's push operations.
PushedItems pushed_items(TransactionCommand& command);

class Transactions {
 public:
  // Everything given outlives the Transactions.
  Transactions(db::Procedures& db, flow::Arbiter& arbiter, PayloadEncryption& encryption, TenantQuotas& quotas,
               const CommitListeners& listeners, metrics::Metrics& metrics)
      : db_(db), metrics_(metrics), writer_(arbiter, encryption, quotas, listeners, metrics) {}

  // One run_transaction call (an AtomicWriter write); business failures come
  // back as success:false, an outage as Unavailable.
  ProcedureOutcome run_transaction(TransactionCommand command, const PushOrigin& origin);

 private:
  db::Procedures& db_;
  metrics::Metrics& metrics_;
  AtomicWriter writer_;
};

}  // namespace queen::broker
