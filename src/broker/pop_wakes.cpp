#include "broker/pop_wakes.h"

#include <chrono>

namespace queen::broker {

void wake_local_pops(wake::PopWaiters& waiters, const std::set<std::string>& queues) {
  for (const auto& queue : queues) waiters.notify(queue);
  waiters.notify(wake::kFilterPopKey);
}

void announce_committed(wake::PopWaiters& waiters, ClusterHooks* cluster, const std::set<std::string>& queues) {
  wake_local_pops(waiters, queues);
  if (cluster != nullptr) cluster->push_committed(queues);
}

void CommitListeners::messages_committed(const std::set<std::string>& queues) const {
  if (!queues.empty()) announce_committed(waiters_, cluster_, queues);
}

void CommitListeners::timers_scheduled() const {
  if (cluster_ != nullptr) cluster_->timers_scheduled();
}

std::int64_t now_epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void add_queues_to_wake(const std::vector<PushItem>& items, std::int64_t now_ms, std::set<std::string>& queues) {
  for (const auto& item : items) {
    if (!item.deliver_at_ms || *item.deliver_at_ms <= now_ms) queues.insert(item.queue);
  }
}

bool schedules_timers(const std::vector<PushItem>& items, std::int64_t now_ms) {
  for (const auto& item : items) {
    if (item.deliver_at_ms && *item.deliver_at_ms > now_ms) return true;
  }
  return false;
}

}  // namespace queen::broker
