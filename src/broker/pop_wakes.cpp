#include "broker/pop_wakes.h"

namespace queen::broker {

void wake_local_pops(wake::PopWaiters& waiters, const std::set<std::string>& queues) {
  for (const auto& queue : queues) waiters.notify(queue);
  waiters.notify(wake::kFilterPopKey);
}

void announce_committed(wake::PopWaiters& waiters, ClusterHooks* cluster, const std::set<std::string>& queues) {
  wake_local_pops(waiters, queues);
  if (cluster != nullptr) cluster->push_committed(queues);
}

}  // namespace queen::broker
