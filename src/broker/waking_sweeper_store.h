#pragma once
// A SweeperStore that, when this broker fires timers, wakes the long polls
// parked here on the queues those timers fire into, so a parked pop sees a
// fired timer at once instead of at its re-check floor. In-process only:
// there is deliberately no mesh frame for a due timer (pops on other brokers
// find it on their floor).
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "sweeper/sweeper.h"

namespace queen::broker {

class WakingSweeperStore final : public sweeper::SweeperStore {
 public:
  // Queue names of timer ids (queen.timer_queue_names); may throw.
  using QueueLookup = std::function<std::vector<std::string>(const std::vector<std::int64_t>& ids)>;
  using WakeQueues = std::function<void(const std::set<std::string>& queues)>;

  WakingSweeperStore(sweeper::SweeperStore& inner, QueueLookup lookup, WakeQueues wake)
      : inner_(inner), lookup_(std::move(lookup)), wake_(std::move(wake)) {}

  std::vector<std::int64_t> claim_due_timers(const std::string& server_id, int limit, int lease_ms) override {
    return inner_.claim_due_timers(server_id, limit, lease_ms);
  }
  // Looks the queues up before the fire (the fire deletes the rows), fires,
  // and wakes those queues when something fired. A failed lookup only costs
  // the wake-up; the fire goes ahead.
  int fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) override;
  std::optional<std::int64_t> ms_until_next_timer() override { return inner_.ms_until_next_timer(); }
  int prune_expired_kv(int limit) override { return inner_.prune_expired_kv(limit); }

 private:
  sweeper::SweeperStore& inner_;
  QueueLookup lookup_;
  WakeQueues wake_;
};

}  // namespace queen::broker
