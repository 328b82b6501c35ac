#pragma once
// What an operator asks of this broker process (the /health, /status/buffers
// and /api/v1/system/maintenance routes): the maintenance flags, read and
// set (docs/operations-spool.md); the spool's state, from memory; and a live
// database ping.
#include "broker/admission.h"
#include "broker/cluster_hooks.h"
#include "broker/maintenance_flags.h"
#include "broker/types.h"
#include "db/procedures.h"
#include "metrics/metrics.h"

namespace queen::broker {

class SpoolBridge;

class SystemAdmin {
 public:
  // Everything given outlives the SystemAdmin. `spool` null: no spool.
  // `cluster` null: no peers to tell of a flag change.
  SystemAdmin(MaintenanceFlags& flags, SpoolBridge* spool, db::Procedures& db, const ReadGate& reads,
              ClusterHooks* cluster, metrics::Metrics& metrics)
      : flags_(flags), spool_(spool), db_(db), reads_(reads), cluster_(cluster), metrics_(metrics) {}

  // The persisted flags (the last known ones while the database is down or
  // the Read lane refuses), and the spool's state.
  MaintenanceStatus maintenance_status();
  // Persists one flag, tells the peers, and answers the status the route renders.
  MaintenanceStatus set_push_maintenance(bool enabled);
  MaintenanceStatus set_pop_maintenance(bool enabled);

  // Spool state from memory (defaults when no spool is attached).
  SpoolStatus spool_status() const;

  // A live database ping.
  DatabaseHealth database_health();

 private:
  MaintenanceStatus set_maintenance(MaintenanceKind kind, bool enabled);

  MaintenanceFlags& flags_;
  SpoolBridge* const spool_;
  db::Procedures& db_;
  const ReadGate& reads_;
  ClusterHooks* const cluster_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
