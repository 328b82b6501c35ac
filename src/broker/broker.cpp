#include "broker/broker.h"

#include "broker/spool_bridge.h"
#include "db/db_error.h"

namespace queen::broker {

Broker::Broker(const config::Config& config, db::Procedures& db, wake::PopWaiters& waiters,
               metrics::Metrics& metrics, MaintenanceFlags& flags, SpoolBridge* spool, ClusterHooks* cluster)
    : db_(db),
      waiters_(waiters),
      flags_(flags),
      spool_(spool),
      arbiter_(flow::flow_limits_from(config.flow), waiters_.clock()),
      reads_(arbiter_, std::chrono::milliseconds(config.flow.read_statement_timeout_ms)),
      dedup_(std::chrono::milliseconds(config.push.dedup_window_ms), dedup_cache_keys(config.push.dedup_cache_mb)),
      push_combiner_(
          [&db, this](const std::string& items, const PushOrigin& origin, const std::vector<DedupItem>& keys) {
            return push_with_dedup(db, dedup_, items, origin, keys);
          },
          db::is_transient_failure, config.push.combine_max_items, config.push.max_concurrent_calls, &arbiter_,
          static_cast<std::size_t>(config.push.combine_max_bytes)),
      ack_combiner_([&db](const std::string& acks, const std::optional<std::string>& group,
                          const Tenant& tenant) { return db.ack_messages(acks, group, tenant); },
                    [&db](const std::string& requests, const Tenant& tenant) {
                      return db.ack_many(requests, tenant);
                    },
                    db::is_transient_failure, config.combine.ack_max_items, config.combine.ack_max_concurrent_calls,
                    &arbiter_, static_cast<std::size_t>(config.combine.ack_max_bytes)),
      pop_combiner_([&db](const db::PopRequest& request) { return db.pop_messages(request); },
                    [&db](int requests, const db::PopRequest& request) { return db.pop_many(requests, request); },
                    db::is_transient_failure, config.combine.pop_max_messages, config.combine.pop_max_concurrent_calls,
                    &arbiter_),
      encryption_(config, db),
      quotas_(config.tenant_quotas, [&db](const Tenant& tenant) { return db.tenant_quota_state(tenant); }),
      listeners_(waiters, cluster),
      pushes_(push_combiner_, encryption_, quotas_, flags, spool, listeners_, metrics),
      pops_(config.pop, pop_combiner_, encryption_, flags, db, waiters, metrics),
      acks_(ack_combiner_, arbiter_, db, metrics),
      transactions_(db, arbiter_, encryption_, quotas_, listeners_, metrics),
      streams_(db, arbiter_, reads_, encryption_, quotas_, listeners_, metrics),
      message_admin_(db, reads_, encryption_, metrics),
      dead_letters_(db, reads_, encryption_, quotas_, listeners_, metrics),
      queue_admin_(db, encryption_, cluster, metrics),
      system_admin_(flags, spool, db, reads_, cluster, metrics) {
  encryption_.start();
  if (spool_ != nullptr) {
    spool_->replay_with(&encryption_, &dedup_);
    spool_->admit_replays_through(&arbiter_);
  }
}

Broker::~Broker() {
  begin_shutdown();
  if (spool_ != nullptr) {
    spool_->admit_replays_through(nullptr);
    spool_->replay_with(nullptr, nullptr);
  }
}

void Broker::begin_shutdown() {
  pops_.stop();
  encryption_.stop();
}

std::size_t Broker::queued_for_call(flow::Lane lane) const {
  switch (lane) {
    case flow::Lane::Push: return push_combiner_.waiting();
    case flow::Lane::Pop: return pop_combiner_.waiting();
    case flow::Lane::Ack: return ack_combiner_.waiting();
    case flow::Lane::Maint:
    case flow::Lane::Read: return 0;
  }
  return 0;
}

metrics::Gauges Broker::gauges() const {
  metrics::Gauges g;
  const db::PoolStats pool = db_.pool_stats();
  g.db_pool_size = pool.size;
  g.db_pool_idle = pool.idle;
  g.db_pool_active = pool.in_use;
  g.db_pool_waiting = pool.waiting;
  const SpoolStatus spool = system_admin_.spool_status();
  g.spool_pending = spool.pending;
  g.spool_failed = spool.failed;
  g.spool_db_healthy = spool.db_healthy;
  g.spool_fallback = spool.directory_fallback;
  g.maintenance = flags_.push();
  g.pop_maintenance = flags_.pop();
  g.parked_pops = waiters_.parked();
  for (const flow::LaneSnapshot& lane : arbiter_.snapshot()) {
    metrics::AdmissionLane a;
    a.lane = flow::to_string(lane.lane);
    a.slots = lane.slots;
    a.in_use = lane.in_use;
    a.waiting = lane.waiting;
    // Requests queued for a combined call wait for that call's slot.
    a.waiting += static_cast<int>(queued_for_call(lane.lane));
    a.granted = lane.granted;
    a.rejected_queue_full = lane.rejected_queue_full;
    a.rejected_timeout = lane.rejected_timeout;
    for (std::size_t b = 0; b < flow::kWaitBucketsS.size(); ++b) {
      a.wait_buckets.emplace_back(flow::kWaitBucketsS[b], lane.wait_buckets[b]);
    }
    a.wait_seconds_sum = lane.wait_seconds_sum;
    a.wait_count = lane.wait_count;
    g.admission.push_back(std::move(a));
  }
  const auto counts = [](const CombinerStats& s) { return metrics::CombinedCalls{s.calls, s.combined_requests}; };
  g.push_combining = counts(push_combiner_.stats());
  g.ack_combining = counts(ack_combiner_.stats());
  g.pop_combining = counts(pop_combiner_.stats());
  return g;
}

}  // namespace queen::broker
