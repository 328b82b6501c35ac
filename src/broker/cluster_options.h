#pragma once
// The configuration of the machinery shared between replicas, mapped from
// config::Config: the mesh node (QUEEN_MESH_*, QUEEN_SYNC_*), the sweeper
// (QUEEN_SWEEPER_*) and the single-runner jobs (RETENTION_*, EVICTION_*,
// STATS_RECONCILE_INTERVAL_MS, QUEEN_DEDUP_WINDOW_MS). Pure: unit-tested.
#include <string>
#include <vector>

#include "config/config.h"
#include "jobs/builtin_jobs.h"
#include "mesh/mesh_options.h"
#include "sweeper/sweeper.h"

namespace queen::broker {

struct MeshOptionsResult {
  mesh::MeshOptions options;
  std::vector<std::string> errors;  // non-empty: the broker refuses to boot
  bool ok() const { return errors.empty(); }
};

// No peers: a mesh that binds nothing (in-process wake-ups only). With peers,
// every problem (no secret, no port, an unparsable peer, a bad server id) is
// reported, one line each, naming the variable to fix.
MeshOptionsResult mesh_options_from(const config::Config& config);

sweeper::SweeperOptions sweeper_options_from(const config::Config& config);

jobs::BuiltinJobOptions builtin_job_options_from(const config::Config& config);

jobs::JobRunnerOptions job_runner_options_from(const config::Config& config);

}  // namespace queen::broker
