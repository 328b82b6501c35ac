#include "broker/waking_sweeper_store.h"

#include <spdlog/spdlog.h>

namespace queen::broker {

int WakingSweeperStore::fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) {
  std::set<std::string> queues;
  if (!ids.empty()) {
    try {
      const std::vector<std::string> names = lookup_(ids);
      queues.insert(names.begin(), names.end());
    } catch (const std::exception& e) {
      spdlog::debug("sweeper: cannot read the queues of {} claimed timer(s), pops will see them on their floor: {}",
                    ids.size(), e.what());
    }
  }
  const int fired = inner_.fire_timers(server_id, ids);
  if (fired > 0 && !queues.empty()) wake_(queues);
  return fired;
}

}  // namespace queen::broker
