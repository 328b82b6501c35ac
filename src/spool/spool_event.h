#pragma once
// One buffered push item as it sits in the spool and as the drain hands it to
// the replay store. Plain data: no JSON types in the header.
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "tenant/tenant.h"

namespace queen::spool {

struct SpoolEvent {
  explicit SpoolEvent(Tenant of) : tenant(std::move(of)) {}

  // The pushing tenant (docs/tenants.md). The default tenant's records omit
  // the field on disk; a record without the field replays as the default tenant.
  Tenant tenant;
  std::string queue;
  std::string partition;
  // The original transactionId: replay keeps it so the database dedup turns an
  // already committed event into "duplicate" instead of a second row.
  std::string transaction_id;
  std::optional<std::string> producer_sub;  // the pushing token's subject; none without authentication
  std::optional<std::string> trace_id;
  // Namespace and task of the queue, used when replay is what creates it.
  std::optional<std::string> namespace_name;
  std::optional<std::string> task;
  // A scheduled item's delivery time (epoch ms): replay hands it back to the
  // database as a timer, so spooling never makes a timer fire early.
  std::optional<std::int64_t> deliver_at_ms;
  // payload_json is the broker's encryption envelope (docs/encryption.md):
  // an encrypted queue's payload is spooled sealed and replayed as it is.
  bool encrypted = false;
  // The payload as JSON text: as the client sent it, or its envelope.
  std::string payload_json = "{}";
};

inline bool operator==(const SpoolEvent& a, const SpoolEvent& b) {
  return std::tie(a.tenant, a.queue, a.partition, a.transaction_id, a.producer_sub, a.trace_id, a.namespace_name,
                  a.task, a.deliver_at_ms, a.encrypted, a.payload_json) ==
         std::tie(b.tenant, b.queue, b.partition, b.transaction_id, b.producer_sub, b.trace_id, b.namespace_name,
                  b.task, b.deliver_at_ms, b.encrypted, b.payload_json);
}

// The unit of ordering during replay: events of one (tenant, queue, partition)
// keep their file order; different groups have no order between them.
struct ReplayGroupKey {
  Tenant tenant;
  std::string queue;
  std::string partition;

  static ReplayGroupKey of(const SpoolEvent& e) { return {e.tenant, e.queue, e.partition}; }
};

inline bool operator==(const ReplayGroupKey& a, const ReplayGroupKey& b) {
  return std::tie(a.tenant, a.queue, a.partition) == std::tie(b.tenant, b.queue, b.partition);
}
inline bool operator<(const ReplayGroupKey& a, const ReplayGroupKey& b) {
  return std::tie(a.tenant, a.queue, a.partition) < std::tie(b.tenant, b.queue, b.partition);
}

}  // namespace queen::spool
