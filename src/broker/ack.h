#pragma once
// What a consumer says about the messages it leased: acks (POST /api/v1/ack
// and /ack/batch; concurrent acks of a tenant share one call, ack_combiner.h)
// and lease extensions (POST /api/v1/lease/:leaseId/extend). Both write
// through the Ack lane (docs/flow-control.md).
#include <optional>
#include <string>
#include <vector>

#include "broker/ack_combiner.h"
#include "broker/types.h"
#include "db/procedures.h"
#include "flow/arbiter.h"
#include "metrics/metrics.h"
#include "tenant/tenant.h"

namespace queen::broker {

class Acks {
 public:
  // Everything given outlives the Acks.
  Acks(AckCombiner& combiner, flow::Arbiter& arbiter, db::Procedures& db, metrics::Metrics& metrics)
      : combiner_(combiner), arbiter_(arbiter), db_(db), metrics_(metrics) {}

  // Results in request order; an item the database did not answer fails.
  std::vector<AckResult> ack(const std::vector<AckItem>& items, const std::optional<std::string>& consumer_group,
                             const Tenant& tenant);

  // A lease id that is not a UUID is not found, without the database.
  LeaseExtension extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant);

 private:
  AckCombiner& combiner_;
  flow::Arbiter& arbiter_;
  db::Procedures& db_;
  metrics::Metrics& metrics_;
};

}  // namespace queen::broker
