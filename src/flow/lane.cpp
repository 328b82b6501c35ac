#include "flow/lane.h"

namespace queen::flow {

const char* to_string(Lane lane) noexcept {
  switch (lane) {
    case Lane::Push: return "push";
    case Lane::Pop: return "pop";
    case Lane::Ack: return "ack";
    case Lane::Maint: return "maint";
    case Lane::Read: return "read";
  }
  return "unknown";
}

const char* variable_part(Lane lane) noexcept {
  switch (lane) {
    case Lane::Push: return "PUSH";
    case Lane::Pop: return "POP";
    case Lane::Ack: return "ACK";
    case Lane::Maint: return "MAINT";
    case Lane::Read: return "READ";
  }
  return "UNKNOWN";
}

FlowLimits flow_limits_from(const config::FlowConfig& config) {
  FlowLimits limits;
  limits.total_slots = config.slots;
  const std::array<const config::FlowLaneConfig*, kLaneCount> lanes{&config.push, &config.pop, &config.ack,
                                                                    &config.maint, &config.read};
  for (const Lane lane : kWakeOrder) {
    const config::FlowLaneConfig& c = *lanes[index_of(lane)];
    limits[lane] = LaneLimits{c.slots, c.queue, std::chrono::milliseconds(c.wait_ms)};
  }
  return limits;
}

}  // namespace queen::flow
