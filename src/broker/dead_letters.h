#pragma once
// The dead-letter queue's administration (docs/api-extensions.md): the
// listing, moving one message in (an operator's decision, within the
// tenant's dead-letter quota), requeueing, deleting and retrying entries.
// One procedure call each; listed payloads are decrypted (docs/encryption.md),
// and the messages a requeue or retry puts back wake the pops of their queues,
// here and on the peers.
#include <optional>
#include <string>

#include "broker/admission.h"
#include "broker/payload_encryption.h"
#include "broker/pop_wakes.h"
#include "broker/tenant_quotas.h"
#include "broker/types.h"
#include "db/procedures.h"
#include "metrics/metrics.h"
#include "tenant/tenant.h"

namespace queen::broker {

class DeadLetters {
 public:
  // Everything given outlives the DeadLetters.
  DeadLetters(db::Procedures& db, const ReadGate& reads, const PayloadEncryption& encryption, TenantQuotas& quotas,
              const CommitListeners& listeners, metrics::Metrics& metrics)
      : db_(db), reads_(reads), encryption_(encryption), quotas_(quotas), listeners_(listeners), metrics_(metrics) {}

  DlqPage list_dlq(const DlqQuery& query);  // the Read lane
  // Whether the message moved; TooManyRequests past the tenant's dead-letter quota.
  bool dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                           const std::optional<std::string>& consumer_group, const std::optional<std::string>& error,
                           const Tenant& tenant);
  int requeue_dead_letters(const DlqSelection& selection);  // the entries requeued
  int delete_dead_letters(const DlqSelection& selection);   // the entries deleted
  // The new message's id; nullopt when the message has no DLQ entry.
  std::optional<std::string> retry_dead_message(const std::string& partition_id, const std::string& transaction_id,
                                                const Tenant& tenant);

 private:
  db::Procedures& db_;
  const ReadGate& reads_;
  const PayloadEncryption& encryption_;
  TenantQuotas& quotas_;
  const CommitListeners& listeners_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
