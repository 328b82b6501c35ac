#include "broker/mesh_bridge.h"

#include "config/config.h"

namespace queen::broker {
namespace {

// A frame holds the queue as a str16 inside kMaxFrameBytes together with the
// envelope; a name that long is refused by the database anyway.
constexpr std::size_t kMaxQueueNameInFrame = 1024;
static_assert(kMaxQueueNameInFrame >= 4 * config::kNameMaxChars, "a valid UTF-8 queue name always fits a frame");

}  // namespace

std::vector<mesh::Frame> pop_wake_frames(const std::set<std::string>& queues) {
  std::vector<mesh::Frame> frames;
  frames.reserve(queues.size());
  for (const auto& queue : queues) {
    if (queue.empty() || queue.size() > kMaxQueueNameInFrame) continue;
    frames.push_back(mesh::make_pop_wake(queue));
  }
  return frames;
}

mesh::Frame maintenance_flip_frame(MaintenanceKind kind, bool enabled) {
  return mesh::make_maintenance_flip(kind == MaintenanceKind::Push ? mesh::MaintenanceFlag::Push
                                                                   : mesh::MaintenanceFlag::Pop,
                                     enabled);
}

FrameActions actions_for(const mesh::Frame& frame) {
  FrameActions actions;
  switch (frame.type) {
    case mesh::FrameType::PopWake:
    case mesh::FrameType::HotMark:
      if (!frame.queue.empty()) actions.wake_queues.insert(frame.queue);
      break;
    case mesh::FrameType::MaintenanceFlip:
      // The frame's value is not trusted: it only says that a flag changed.
      actions.refresh_maintenance_flags = true;
      break;
    case mesh::FrameType::ConfigInvalidation:
      if (!frame.queue.empty()) actions.forget_queue = frame.queue;
      break;
    case mesh::FrameType::Heartbeat:
      break;
  }
  return actions;
}

}  // namespace queen::broker
