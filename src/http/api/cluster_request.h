#pragma once
// How the cluster machinery (mesh, sweeper, jobs) is shown: the
// `shared_state` object of GET /health, the fuller
// GET /api/v1/system/shared-state and the mesh/sweeper/job series of
// GET /metrics/prometheus (the cluster feature's answers, also shown by
// health and metrics). Pure: snapshot in, text out.
#include <string>

#include "broker/cluster.h"

namespace queen::http {

// {"enabled", "server_id", "listen_port", "peers": [{"address", "connected"}],
//  "senders": [{"server_id", "alive"}]}, as JSON text.
std::string render_shared_state(const broker::ClusterSnapshot& snapshot);

// The same plus counters: per peer (sent, dropped, connects, last error),
// per sender (frames, last frame age), frames received/rejected by reason,
// sweeper and job counters.
std::string render_shared_state_detail(const broker::ClusterSnapshot& snapshot);

// Prometheus text: queen_mesh_frames_{sent,dropped,received,rejected}_total,
// queen_mesh_peer_connected{peer}, queen_mesh_sender_alive{server_id},
// queen_sweeper_*_total, queen_job_{runs,failures}_total{job}.
std::string render_cluster_prometheus(const broker::ClusterSnapshot& snapshot);

// What /health shows when no cluster is wired (unit tests, tools).
inline constexpr const char* kSharedStateDisabled = R"({"enabled":false})";

}  // namespace queen::http
