#pragma once
// Who is told that queues just received committed messages: the long polls
// parked on this broker and, through the cluster hooks, the peers and the
// local sweeper. Shared by the live push path (Broker), the spool replay and
// the mesh, so every path wakes the same pops.
#include <set>
#include <string>

#include "broker/cluster_hooks.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

// Wakes local long polls on these queues, and the filter (namespace/task)
// pops, which cannot tell which queues match them.
void wake_local_pops(wake::PopWaiters& waiters, const std::set<std::string>& queues);

// wake_local_pops, then (with a cluster: null means none) the peers' hint.
void announce_committed(wake::PopWaiters& waiters, ClusterHooks* cluster, const std::set<std::string>& queues);

}  // namespace queen::broker
