#include "broker/cluster.h"

#include <spdlog/spdlog.h>

#include "broker/cluster_options.h"
#include "broker/maintenance_flags.h"
#include "broker/mesh_bridge.h"
#include "broker/pop_wakes.h"
#include "db/timer_wake_db.h"
#include "util/clock.h"

namespace queen::broker {

Cluster::Cluster(const config::Config& config, mesh::MeshOptions mesh_options, db::ProcedureRunner& runner,
                 wake::PopWaiters& waiters)
    : server_id_(config.process.server_id),
      waiters_(waiters),
      timers_db_(runner),
      kv_db_(runner),
      jobs_db_(runner),
      db_sweeper_store_(timers_db_, kv_db_),
      sweeper_store_(
          db_sweeper_store_,
          [&runner](const std::vector<std::int64_t>& ids) { return db::timer_queue_names(runner, ids); },
          [&waiters](const std::set<std::string>& queues) { wake_local_pops(waiters, queues); }),
      sweeper_(sweeper_options_from(config), sweeper_store_, util::real_clock()),
      job_election_(jobs_db_),
      jobs_(job_runner_options_from(config), job_election_, util::real_clock()),
      mesh_(std::move(mesh_options), util::real_clock()),
      kv_(kv_db_) {
  jobs::add_builtin_jobs(jobs_, jobs_db_, builtin_job_options_from(config));
  mesh_.set_handler([this](const mesh::Frame& frame) { on_frame(frame); });
}

Cluster::~Cluster() { stop(); }

std::string Cluster::start(MaintenanceFlags& flags, const ReadGate& reads) {
  if (started_) return "cluster already started";
  flags_ = &flags;
  kv_.read_through(reads);
  if (std::string error = mesh_.start(); !error.empty()) return error;
  started_ = true;
  sweeper_.start();
  jobs_.start();
  return {};
}

void Cluster::stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  jobs_.stop();
  sweeper_.stop();
  mesh_.stop();
  spdlog::info("cluster: jobs, sweeper and mesh stopped (claimed timers, if any, fire after their claim lease)");
}

ClusterSnapshot Cluster::snapshot() const {
  ClusterSnapshot s;
  s.server_id = server_id_;
  s.mesh = mesh_.stats();
  s.sweeper = sweeper_.counters();
  for (const char* job : {jobs::kRetentionJob, jobs::kEvictionJob, jobs::kStatsReconcileJob}) {
    s.jobs.emplace_back(job, jobs_.counters(job));
  }
  return s;
}

void Cluster::on_queue_reconfigured(std::function<void(const std::string& queue)> listener) {
  queue_reconfigured_ = std::move(listener);
}

void Cluster::push_committed(const std::set<std::string>& queues) {
  for (auto& frame : pop_wake_frames(queues)) mesh_.broadcast(std::move(frame));
}

void Cluster::timers_scheduled() { sweeper_.wake(); }

void Cluster::maintenance_changed(MaintenanceKind kind, bool enabled) {
  mesh_.broadcast(maintenance_flip_frame(kind, enabled));
}

void Cluster::queue_configured(const std::string& queue) {
  if (!queue.empty()) mesh_.broadcast(mesh::make_config_invalidation(queue));
}

void Cluster::on_frame(const mesh::Frame& frame) {
  const FrameActions actions = actions_for(frame);
  if (!actions.wake_queues.empty()) wake_local_pops(waiters_, actions.wake_queues);
  if (actions.refresh_maintenance_flags) {
    spdlog::debug("mesh: {} says a maintenance flag flipped, re-reading the flags", frame.sender_id);
    flags_->request_refresh();
  }
  if (actions.forget_queue) {
    // Queue options are read by the procedures on every call; the one thing
    // a broker keeps is its list of encrypted queues, re-read soon.
    spdlog::debug("mesh: {} reconfigured queue {}", frame.sender_id, *actions.forget_queue);
    if (queue_reconfigured_) queue_reconfigured_(*actions.forget_queue);
  }
}

}  // namespace queen::broker
