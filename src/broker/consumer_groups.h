#pragma once
// The consumer-group administration use cases (docs/procedures.md,
// "Consumer-group administration"): listings, deletion, the subscription start
// and seeks. One procedure call each. A seek that moved cursors wakes the long
// polls parked on the queue, here and (through the cluster hooks, as a pop
// wake frame) on every peer, so re-exposed messages reach waiting consumers
// at once rather than at their next periodic re-check. Database failures
// become BrokerError (503 while PostgreSQL is unreachable, 400 for a bad
// argument).
#include <cstdint>
#include <optional>
#include <string>

#include "broker/admission.h"
#include "broker/cluster_hooks.h"
#include "db/consumer_groups_db.h"
#include "tenant/tenant.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

struct PartitionSeekResult {
  bool partition_found = false;
  std::optional<std::int64_t> cursor_moved_to_us;  // empty: the partition holds no message
};

class ConsumerGroups {
 public:
  // `cluster` null: a single broker (only local long polls are woken). The
  // listings are reads: they go through `reads` (the Read lane, the read
  // statement timeout).
  ConsumerGroups(db::ConsumerGroupProcedures& db, wake::PopWaiters& waiters, ClusterHooks* cluster, const ReadGate& reads)
      : db_(db), waiters_(waiters), cluster_(cluster), reads_(reads) {}

  // `tenant` everywhere: the requester's tenant; another tenant's queues do not exist for it.
  // The listings answer the wire JSON the procedures build.
  std::string list(const Tenant& tenant);
  std::string lagging(std::int64_t min_lag_seconds, const Tenant& tenant);
  std::string detail(const std::string& group, const Tenant& tenant);
  // queue empty: every queue of the tenant. Returns the cursor rows removed.
  int remove(const std::string& group, const std::optional<std::string>& queue, bool delete_metadata,
             const Tenant& tenant);
  // start_at: ISO-8601, checked by the caller. Returns the records rewritten.
  int set_subscription_start(const std::string& group, const std::string& start_at, const Tenant& tenant);
  // Whole queue: to the end, or to `at` (ISO-8601, checked by the caller). Returns the partitions moved.
  int seek(const std::string& group, const std::string& queue, bool to_end, const std::optional<std::string>& at,
           const Tenant& tenant);
  PartitionSeekResult seek_partition_to_end(const std::string& group, const std::string& queue,
                                            const std::string& partition, const Tenant& tenant);

 private:
  // Long polls on `queue`, here and on the peers, re-check now.
  void wake_pops(const std::string& queue);

  db::ConsumerGroupProcedures& db_;
  wake::PopWaiters& waiters_;
  ClusterHooks* const cluster_;
  const ReadGate& reads_;
};

}  // namespace queen::broker
