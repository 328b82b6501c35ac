#pragma once
// The broker's use cases, one group per file, each one procedure call per
// request (or per group of concurrent requests): push.h, pop.h, ack.h (and
// lease extension), transactions.h, streams.h, message_admin.h,
// dead_letters.h, queue_admin.h, system_admin.h; consumer_groups.h,
// kv_store.h and statistics.h stand on their own. Transport-neutral: the
// http layer parses and validates, calls one use case, and renders the result.
//
// The Broker builds what the groups share (the admission arbiter and its Read
// lane, the three combiners, the payload encryption, the tenant quotas, who
// hears of a commit) and owns the groups; a handler asks it for the group it calls.
#include <cstddef>

#include "broker/ack.h"
#include "broker/ack_combiner.h"
#include "broker/admission.h"
#include "broker/cluster_hooks.h"
#include "broker/dead_letters.h"
#include "broker/maintenance_flags.h"
#include "broker/message_admin.h"
#include "broker/payload_encryption.h"
#include "broker/pop.h"
#include "broker/pop_combiner.h"
#include "broker/pop_wakes.h"
#include "broker/push.h"
#include "broker/push_combiner.h"
#include "broker/queue_admin.h"
#include "broker/streams.h"
#include "broker/system_admin.h"
#include "broker/tenant_quotas.h"
#include "broker/transactions.h"
#include "config/config.h"
#include "db/procedures.h"
#include "flow/arbiter.h"
#include "metrics/metrics.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

class SpoolBridge;

class Broker {
 public:
  // Everything the broker uses is built before it and outlives it. `spool`
  // null: no spool, unstored pushes fail. `cluster` null: a single broker
  // with in-process wake-ups only (the mesh and the local sweeper are not
  // told what committed).
  Broker(const config::Config& config, db::Procedures& db, wake::PopWaiters& waiters, metrics::Metrics& metrics,
         MaintenanceFlags& flags, SpoolBridge* spool = nullptr, ClusterHooks* cluster = nullptr);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // Releases every parked long poll (answering empty) and answers new pops
  // empty, so in-flight requests drain quickly.
  void begin_shutdown();

  // The use cases. `tenant` / `origin.tenant` in each: the requester's tenant
  // (always given; Tenant::default_tenant() names the default tenant,
  // docs/tenants.md); another tenant's queues do not exist for it.
  Pushes& pushes() { return pushes_; }
  Pops& pops() { return pops_; }
  Acks& acks() { return acks_; }
  Transactions& transactions() { return transactions_; }
  Streams& streams() { return streams_; }
  MessageAdmin& message_admin() { return message_admin_; }
  DeadLetters& dead_letters() { return dead_letters_; }
  QueueAdmin& queue_admin() { return queue_admin_; }
  SystemAdmin& system_admin() { return system_admin_; }

  // This broker's figures for /metrics and the minute flush.
  metrics::Gauges gauges() const;
  // The admission arbiter (docs/flow-control.md): pushes, pops, acks,
  // transactions and lease extensions take their database slots here, and
  // the spool's replay its Maint slots.
  flow::Arbiter& arbiter() { return arbiter_; }
  // The Read lane and the read statement timeout: every database-backed read
  // route's call goes through it (here, and in the Statistics, ConsumerGroups
  // and KvStore use cases).
  const ReadGate& reads() const { return reads_; }

 private:
  // Requests of `lane` queued in its combiner for a call (and so for that call's slot).
  std::size_t queued_for_call(flow::Lane lane) const;

  db::Procedures& db_;
  wake::PopWaiters& waiters_;
  MaintenanceFlags& flags_;
  SpoolBridge* const spool_;
  flow::Arbiter arbiter_;  // before the combiners, whose calls take its slots
  const ReadGate reads_;
  DedupCache dedup_;  // before push_combiner_, whose calls use it
  PushCombiner push_combiner_;
  AckCombiner ack_combiner_;
  PopCombiner pop_combiner_;
  PayloadEncryption encryption_;
  TenantQuotas quotas_;
  const CommitListeners listeners_;

  Pushes pushes_;
  Pops pops_;
  Acks acks_;
  Transactions transactions_;
  Streams streams_;
  MessageAdmin message_admin_;
  DeadLetters dead_letters_;
  QueueAdmin queue_admin_;
  SystemAdmin system_admin_;
};

}  // namespace queen::broker
