#pragma once
// POST /api/v1/push as a use case: the tenant's quotas, minted transaction
// ids, payloads sealed for encrypted queues, then one combined push_messages
// call (push_combiner.h), or the spool while push maintenance is on or
// PostgreSQL is unreachable (docs/operations-spool.md). A committed push wakes
// the long polls of its queues, here and on the peers.
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/maintenance_flags.h"
#include "broker/payload_encryption.h"
#include "broker/pop_wakes.h"
#include "broker/push_combiner.h"
#include "broker/tenant_quotas.h"
#include "broker/types.h"
#include "metrics/metrics.h"

namespace queen::broker {

class SpoolBridge;

// Gives every item without a transaction id a new one (UUIDv7). Minted in
// the broker rather than in SQL, so a spooled item keeps the id a retry
// would carry and an answer can always name the item.
void mint_transaction_ids(std::vector<PushItem>& items);

class Pushes {
 public:
  // Everything given outlives the Pushes. `spool` null: no spool, unstored pushes fail.
  Pushes(PushCombiner& combiner, PayloadEncryption& encryption, TenantQuotas& quotas, const MaintenanceFlags& flags,
         SpoolBridge* spool, const CommitListeners& listeners, metrics::Metrics& metrics)
      : combiner_(combiner), encryption_(encryption), quotas_(quotas), flags_(flags), spool_(spool),
        listeners_(listeners), metrics_(metrics) {}

  // Items are validated by the caller; the origin's producer subject is
  // stamped on every message. Throws BrokerError TooManyRequests when a
  // tenant quota refuses the push.
  PushOutcome push(std::vector<PushItem> items, const PushOrigin& origin);

 private:
  // push() once the items are minted: the items this broker can seal as
  // their queues require (all of them with a key), stored or spooled.
  PushOutcome push_sealable(std::vector<PushItem> items, const PushOrigin& origin);
  // push() when a broker without a key must refuse the items at `unsealable`
  // (their queue wants encryption): the others go through push_sealable.
  PushOutcome push_refusing(std::vector<PushItem> items, const std::vector<std::size_t>& unsealable,
                            const PushOrigin& origin);
  // The items PostgreSQL did not store: spooled with a spool attached (`buffered`,
  // or `failed` when the spool write fails); `failed` without one.
  PushOutcome push_unstored(const std::vector<PushItem>& items, UnstoredReason reason, const PushOrigin& origin);
  std::vector<PushItemResult> unstored_results(const std::vector<PushItem>& items, UnstoredReason reason,
                                               const PushOrigin& origin);
  // One push_messages call through the combiner; empty when the connection
  // was lost (the caller spools the items).
  std::optional<std::vector<db::PushRow>> store_push(const std::vector<PushItem>& items, const PushOrigin& origin);
  // Items the database refused as plaintext for a queue that wants encryption
  // (this broker's list was stale): marked, sealed and stored once more.
  void resend_refused(std::vector<PushItem>& items, std::vector<db::PushRow>& rows, const PushOrigin& origin);
  std::vector<PushItemResult> push_results(const std::vector<PushItem>& items, std::vector<db::PushRow> rows) const;
  void after_push_stored(const std::vector<PushItem>& items, const std::vector<PushItemResult>& results,
                         const Tenant& tenant);

  PushCombiner& combiner_;
  PayloadEncryption& encryption_;
  TenantQuotas& quotas_;
  const MaintenanceFlags& flags_;
  SpoolBridge* const spool_;
  const CommitListeners& listeners_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
