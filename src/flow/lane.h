#pragma once
// The five lanes of the admission arbiter (docs/flow-control.md) and their
// limits. A lane is a kind of database work: live pushes, pops, acks,
// maintenance (spool replay) and reads (the listings and lookups of the read
// routes). Every lane has its own cap on concurrent database slots, its own
// wait queue and its own wait bound; all lanes share one pool of slots.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "config/config.h"

namespace queen::flow {

enum class Lane : std::uint8_t { Push = 0, Pop = 1, Ack = 2, Maint = 3, Read = 4 };

inline constexpr std::size_t kLaneCount = 5;

// The order in which a freed slot looks for a waiter (guaranteed shares aside).
inline constexpr std::array<Lane, kLaneCount> kWakeOrder{Lane::Push, Lane::Pop, Lane::Ack, Lane::Read, Lane::Maint};

// The lanes with a guaranteed share (FlowLimits::share_permille), in the order
// their shares are honoured when several are owed at once.
inline constexpr std::array<Lane, 2> kSharedLanes{Lane::Maint, Lane::Read};

constexpr std::size_t index_of(Lane lane) { return static_cast<std::size_t>(lane); }

// "push", "pop", "ack", "maint", "read": metric labels and messages.
const char* to_string(Lane lane) noexcept;
// "PUSH", "POP", "ACK", "MAINT", "READ": the middle of the lane's variable names (QUEEN_FLOW_<X>_SLOTS).
const char* variable_part(Lane lane) noexcept;

struct LaneLimits {
  int slots = 1;                          // QUEEN_FLOW_<LANE>_SLOTS: slots this lane may hold at once
  int max_waiters = 0;                    // QUEEN_FLOW_<LANE>_QUEUE: requests waiting for a slot (refused beyond)
  std::chrono::milliseconds max_wait{0};  // QUEEN_FLOW_<LANE>_WAIT_MS: longest wait for a slot
};

struct FlowLimits {
  int total_slots = 1;  // QUEEN_FLOW_SLOTS: slots of all lanes together
  std::array<LaneLimits, kLaneCount> lanes{};
  // A lane's guaranteed share of the slots granted while it waits, in
  // thousandths; 0 for the live lanes, which are served in wake order. Maint
  // 50 (0.05): replay neither starves nor outranks live work. Read 100 (0.1):
  // reads are served under a full live load, and their cap (slots) keeps them
  // from crowding it out.
  std::array<int, kLaneCount> share_permille{0, 0, 0, 50, 100};

  const LaneLimits& operator[](Lane lane) const { return lanes[index_of(lane)]; }
  LaneLimits& operator[](Lane lane) { return lanes[index_of(lane)]; }
  int share_of(Lane lane) const { return share_permille[index_of(lane)]; }
};

FlowLimits flow_limits_from(const config::FlowConfig& config);

}  // namespace queen::flow
