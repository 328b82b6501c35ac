#include "mesh/mesh_options.h"

#include "mesh/frame.h"

namespace queen::mesh {

std::vector<std::string> validate_options(const MeshOptions& o) {
  std::vector<std::string> errors;
  if (o.peers.empty()) return errors;  // the mesh is off; nothing else is used

  if (o.secret.empty()) errors.emplace_back("QUEEN_MESH_PEERS is set but QUEEN_SYNC_SECRET is empty");
  if (o.server_id.empty()) errors.emplace_back("QUEEN_SERVER_ID must be set when QUEEN_MESH_PEERS is");
  if (o.server_id.size() > kMaxServerIdBytes)
    errors.emplace_back("QUEEN_SERVER_ID is longer than " + std::to_string(kMaxServerIdBytes) + " bytes");
  if (o.listen_host.empty()) errors.emplace_back("mesh listen host is empty");
  if (o.send_queue_max_frames == 0) errors.emplace_back("mesh send queue frame limit must be at least 1");
  if (o.send_queue_max_bytes < kMaxFrameBytes)
    errors.emplace_back("mesh send queue byte limit must hold at least one maximum-size frame (" +
                        std::to_string(kMaxFrameBytes) + " bytes)");
  if (o.reconnect_backoff_min.count() <= 0) errors.emplace_back("mesh reconnect backoff minimum must be positive");
  if (o.reconnect_backoff_max < o.reconnect_backoff_min)
    errors.emplace_back("mesh reconnect backoff maximum is below its minimum");
  if (o.connect_timeout.count() <= 0) errors.emplace_back("mesh connect timeout must be positive");
  if (o.write_timeout.count() <= 0) errors.emplace_back("mesh write timeout must be positive");
  if (o.heartbeat_interval.count() <= 0) errors.emplace_back("QUEEN_SYNC_HEARTBEAT_MS must be positive");
  if (o.dead_threshold <= o.heartbeat_interval)
    errors.emplace_back("QUEEN_SYNC_DEAD_THRESHOLD_MS must be greater than QUEEN_SYNC_HEARTBEAT_MS");
  if (o.max_clock_skew.count() <= 0) errors.emplace_back("mesh maximum clock skew must be positive");
  if (o.max_inbound_connections == 0) errors.emplace_back("mesh inbound connection limit must be at least 1");
  if (o.max_tracked_senders == 0) errors.emplace_back("mesh tracked sender limit must be at least 1");
  return errors;
}

}  // namespace queen::mesh
