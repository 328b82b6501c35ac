#include "metrics/minute_figures.h"

#include <cstdint>

#include <nlohmann/json.hpp>

namespace queen::metrics {
namespace {

std::uint64_t delta(std::uint64_t now, std::uint64_t before) { return now >= before ? now - before : now; }

}  // namespace

std::string minute_figures_json(const MinuteSample& before, const MinuteSample& now, const Gauges& gauges,
                                const std::string& hostname, int port) {
  const Counters& a = before.counters;
  const Counters& b = now.counters;
  nlohmann::json lanes = nlohmann::json::array();
  for (const AdmissionLane& lane : gauges.admission) {
    lanes.push_back({{"lane", lane.lane}, {"slots", lane.slots}, {"inUse", lane.in_use}, {"waiting", lane.waiting}});
  }
  const nlohmann::json figures = {
      {"hostname", hostname},
      {"port", port},
      {"requests", delta(b.requests, a.requests)},
      {"pushRequests", delta(b.push_requests, a.push_requests)},
      {"pushMessages", delta(b.push_messages, a.push_messages)},
      {"popRequests", delta(b.pop_requests, a.pop_requests)},
      {"popMessages", delta(b.pop_messages, a.pop_messages)},
      {"ackMessages", delta(b.ack_messages, a.ack_messages)},
      {"ackFailed", delta(b.ack_failed, a.ack_failed)},
      {"dbErrors", delta(b.db_errors, a.db_errors)},
      {"poolSize", gauges.db_pool_size},
      {"poolInUse", gauges.db_pool_active},
      {"poolWaiting", gauges.db_pool_waiting},
      {"parkedPops", gauges.parked_pops},
      {"rssBytes", now.process.resident_bytes},
      {"cpuUserUs", delta(now.process.cpu_user_us, before.process.cpu_user_us)},
      {"cpuSystemUs", delta(now.process.cpu_system_us, before.process.cpu_system_us)},
      {"lanes", lanes},
  };
  return figures.dump();
}

}  // namespace queen::metrics
