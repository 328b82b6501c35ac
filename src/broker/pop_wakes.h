#pragma once
// Who is told that queues just received committed messages: the long polls
// parked on this broker and, through the cluster hooks, the peers and the
// local sweeper. Shared by every use case that commits messages, the spool
// replay and the mesh, so every path wakes the same pops.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "broker/cluster_hooks.h"
#include "broker/types.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

// Wakes local long polls on these queues, and the filter (namespace/task)
// pops, which cannot tell which queues match them.
void wake_local_pops(wake::PopWaiters& waiters, const std::set<std::string>& queues);

// wake_local_pops, then (with a cluster: null means none) the peers' hint.
void announce_committed(wake::PopWaiters& waiters, ClusterHooks* cluster, const std::set<std::string>& queues);

// Who hears what a use case committed: the long polls parked here and,
// through the cluster hooks (null: a single broker), the peers and the
// local sweeper.
class CommitListeners {
 public:
  CommitListeners(wake::PopWaiters& waiters, ClusterHooks* cluster) : waiters_(waiters), cluster_(cluster) {}

  // Messages are poppable now on these queues (announce_committed; no
  // queues: nothing is said).
  void messages_committed(const std::set<std::string>& queues) const;
  // Items with a future deliverAt were scheduled: the local sweeper looks
  // now rather than at its next sleep ceiling.
  void timers_scheduled() const;

 private:
  wake::PopWaiters& waiters_;
  ClusterHooks* const cluster_;
};

// The system clock in epoch ms: what a deliverAt is compared with after a commit.
std::int64_t now_epoch_ms();
// After a commit: adds the queues of the pushed items whose messages are
// poppable now (no deliverAt after now_ms), whose parked long polls should wake.
void add_queues_to_wake(const std::vector<PushItem>& items, std::int64_t now_ms, std::set<std::string>& queues);
// After a commit: true when an item was scheduled (deliverAt after now_ms),
// so the sweeper should look now rather than at its next sleep ceiling.
bool schedules_timers(const std::vector<PushItem>& items, std::int64_t now_ms);

}  // namespace queen::broker
