#pragma once
// The queue's own administration: POST /api/v1/configure (a full replace of
// the queue's options, docs/api.md) and DELETE /api/v1/resources/queues/:queue
// (docs/api-extensions.md). Either tells the peers, which drop what they
// cached of the queue; a peer's reconfiguration makes this broker re-read
// which queues want encryption.
#include <string>

#include "broker/cluster_hooks.h"
#include "broker/payload_encryption.h"
#include "db/procedures.h"
#include "metrics/metrics.h"
#include "tenant/tenant.h"

namespace queen::broker {

class QueueAdmin {
 public:
  // Everything given outlives the QueueAdmin. `cluster` null: no peers to tell.
  QueueAdmin(db::Procedures& db, PayloadEncryption& encryption, ClusterHooks* cluster, metrics::Metrics& metrics)
      : db_(db), encryption_(encryption), cluster_(cluster), metrics_(metrics) {}

  // The procedure's JSON result, with a `warning` naming what the request
  // asked that was not done (unknown options, encryption without a key).
  // A database failure is a 500 here, never a 503.
  std::string configure(const std::string& queue, const std::string& namespace_name, const std::string& task,
                        const std::string& options_json, const Tenant& tenant);

  // Whether the tenant's queue existed.
  bool delete_queue(const std::string& queue, const Tenant& tenant);

  // A peer reconfigured `queue`: the list of encrypted queues is re-read
  // soon (never blocks; called on the mesh receive thread).
  void queue_reconfigured_elsewhere(const std::string& queue);

 private:
  db::Procedures& db_;
  PayloadEncryption& encryption_;
  ClusterHooks* const cluster_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
