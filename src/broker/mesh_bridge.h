#pragma once
// Translation between the broker's events and mesh frames, both ways. Pure:
// what to send after a use case committed, and what a received frame asks
// this broker to do. Everything here is a hint: a lost frame costs latency,
// because every accelerated path keeps its periodic database floor.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/cluster_hooks.h"
#include "mesh/frame.h"

namespace queen::broker {

// One PopWake per queue that received committed messages (queues whose name
// cannot travel in a frame are skipped: their pops wait for the floor).
std::vector<mesh::Frame> pop_wake_frames(const std::set<std::string>& queues);

mesh::Frame maintenance_flip_frame(MaintenanceKind kind, bool enabled);

// What a valid frame from a peer asks of this broker.
struct FrameActions {
  std::set<std::string> wake_queues;         // PopWake / HotMark: wake local long polls on these
  bool refresh_maintenance_flags = false;    // MaintenanceFlip: re-read the flags from the database
  std::optional<std::string> forget_queue;   // ConfigInvalidation: drop anything cached about it
};
FrameActions actions_for(const mesh::Frame& frame);

}  // namespace queen::broker
