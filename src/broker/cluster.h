#pragma once
// The machinery every replica runs besides serving requests
// (docs/operations-ha.md), owned in one place so main only starts and stops it:
//   - the mesh node: pop wakes, maintenance flips and config invalidations to
//     and from peers (hints only; nothing authoritative crosses it);
//   - the sweeper: fires due timers and prunes expired KV rows on every
//     replica, sharing the work through FOR UPDATE ... SKIP LOCKED;
//   - the job runner: retention, eviction, the statistics reconciler and the
//     planner statistics of grown tables (table_statistics), each
//     run by one replica per cycle (advisory-lock election in the database);
//   - the KV use cases.
// It implements the broker's ClusterHooks: the broker tells it what committed,
// it tells the peers and the local sweeper. It is built before the spool and
// the broker (both tell it what committed); what a peer's frame asks of this
// broker is done through the parked pops it is given at construction and the
// maintenance flags it is given at start(), a late-bound dependency:
// frames only arrive between start() and stop(), and the flags follow the
// spool, which is built after this object. The KV reads' gate (the broker's
// Read lane) is the other one, given at start() too, before the listener binds.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "broker/cluster_hooks.h"
#include "broker/kv_store.h"
#include "broker/waking_sweeper_store.h"
#include "config/config.h"
#include "db/jobs_db.h"
#include "db/kv_db.h"
#include "db/timers_db.h"
#include "jobs/builtin_jobs.h"
#include "jobs/job_runner.h"
#include "mesh/mesh_node.h"
#include "sweeper/db_sweeper_store.h"
#include "sweeper/sweeper.h"
#include "wake/pop_waiters.h"

namespace queen::db {
class ProcedureRunner;
}

namespace queen::broker {

class MaintenanceFlags;

// What /health, /api/v1/system/shared-state and /metrics/prometheus show.
struct ClusterSnapshot {
  std::string server_id;
  mesh::MeshStats mesh;
  sweeper::SweeperCounters sweeper;
  std::vector<std::pair<std::string, jobs::JobCounters>> jobs;  // by job name
};

class Cluster final : public ClusterHooks {
 public:
  // `mesh_options` come from mesh_options_from() and were checked there;
  // `runner` and `waiters` must outlive the Cluster.
  Cluster(const config::Config& config, mesh::MeshOptions mesh_options, db::ProcedureRunner& runner,
          wake::PopWaiters& waiters);
  ~Cluster() override;  // stop()s
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Binds the mesh port (when peers are configured), starts the sweeper and
  // the jobs. A peer's maintenance frame refreshes `flags` from then on
  // (they must outlive the Cluster). Returns why it could not start (e.g.
  // the mesh port is taken), empty on success. KV reads go through `reads`
  // (it must outlive the Cluster).
  std::string start(MaintenanceFlags& flags, const ReadGate& reads);
  // Called (on the mesh receive thread, so it must not block) when a peer
  // says it reconfigured or deleted a queue. Set before start().
  void on_queue_reconfigured(std::function<void(const std::string& queue)> listener);
  // Stops the jobs (a batch in flight completes), the sweeper (its claims
  // are not handed back: they expire after QUEEN_SWEEPER_LEASE_MS) and the
  // mesh. Idempotent. Hooks called afterwards do nothing harmful: a
  // broadcast is dropped, a sweeper wake is never acted on.
  void stop();

  KvStore& kv() { return kv_; }
  ClusterSnapshot snapshot() const;

  // ClusterHooks (called on request threads; never block).
  void push_committed(const std::set<std::string>& queues) override;
  void timers_scheduled() override;
  void maintenance_changed(MaintenanceKind kind, bool enabled) override;
  void queue_configured(const std::string& queue) override;

 private:
  // Runs on the mesh receive thread: must be quick (no database call).
  void on_frame(const mesh::Frame& frame);

  const std::string server_id_;
  wake::PopWaiters& waiters_;
  MaintenanceFlags* flags_ = nullptr;  // set by start(), before the mesh delivers a frame
  std::function<void(const std::string&)> queue_reconfigured_;  // set before start()
  db::TimersDb timers_db_;
  db::KvDb kv_db_;
  db::JobsDb jobs_db_;
  sweeper::DbSweeperStore db_sweeper_store_;
  WakingSweeperStore sweeper_store_;
  sweeper::Sweeper sweeper_;
  jobs::DbJobElection job_election_;
  jobs::JobRunner jobs_;
  mesh::MeshNode mesh_;
  KvStore kv_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace queen::broker
