#include "broker/cluster_options.h"

#include "mesh/peers.h"

namespace queen::broker {

MeshOptionsResult mesh_options_from(const config::Config& config) {
  MeshOptionsResult result;
  mesh::MeshOptions& o = result.options;
  o.server_id = config.process.server_id;
  // The mesh is a control surface: it listens where the HTTP API does unless told otherwise.
  o.listen_host = config.mesh.host.empty() ? config.http.host : config.mesh.host;
  if (o.listen_host == "localhost") o.listen_host = "127.0.0.1";
  o.secret = config.mesh.sync_secret;
  o.heartbeat_interval = std::chrono::milliseconds(config.mesh.heartbeat_ms);
  o.dead_threshold = std::chrono::milliseconds(config.mesh.dead_threshold_ms);

  std::string peer_list;
  for (const auto& peer : config.mesh.peers) peer_list += (peer_list.empty() ? "" : ",") + peer;
  mesh::PeersParseResult peers = mesh::parse_peers(peer_list);
  if (!peers.ok()) {
    result.errors.push_back("QUEEN_MESH_PEERS: " + peers.error);
    return result;
  }
  o.peers = std::move(peers.peers);
  if (o.peers.empty()) return result;  // the mesh is off: port and secret are not used

  if (config.mesh.port <= 0 || config.mesh.port > 65535) {
    result.errors.emplace_back("QUEEN_MESH_PEERS is set but QUEEN_MESH_PORT is not: peers need a port to dial");
  } else {
    o.listen_port = static_cast<std::uint16_t>(config.mesh.port);
  }
  for (auto& error : mesh::validate_options(o)) result.errors.push_back(std::move(error));
  return result;
}

sweeper::SweeperOptions sweeper_options_from(const config::Config& config) {
  sweeper::SweeperOptions o;
  o.server_id = config.process.server_id;
  o.lease_ms = config.sweeper.lease_ms;
  o.max_sleep_ms = config.sweeper.max_sleep_ms;
  // The coalescing floor must stay below the ceiling an operator chose.
  if (o.min_sleep_ms > o.max_sleep_ms) o.min_sleep_ms = o.max_sleep_ms;
  return o;
}

jobs::BuiltinJobOptions builtin_job_options_from(const config::Config& config) {
  jobs::BuiltinJobOptions o;
  o.retention_interval_ms = config.jobs.retention_interval_ms;
  o.retention_batch = config.jobs.retention_batch_size;
  o.dedup_window_ms = config.push.dedup_window_ms;
  o.eviction_interval_ms = config.jobs.eviction_interval_ms;
  o.eviction_batch = config.jobs.eviction_batch_size;
  o.stats_reconcile_interval_ms = config.jobs.stats_reconcile_interval_ms;
  o.table_statistics_interval_ms = config.jobs.table_statistics_interval_ms;
  o.stats_history_retention_hours = config.jobs.stats_history_retention_hours;
  return o;
}

jobs::JobRunnerOptions job_runner_options_from(const config::Config& config) {
  jobs::JobRunnerOptions o;
  o.server_id = config.process.server_id;
  return o;
}

}  // namespace queen::broker
