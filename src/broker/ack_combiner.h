#pragma once
// Ack combining: concurrent ack requests of one tenant share one database
// call, up to `max_items` items and `max_bytes` request bytes (a larger
// request is a call of its own; the generic mechanism and its failure rules:
// combiner.h). A request
// alone calls queen.ack_messages; a combined call is queen.ack_many, which
// applies each request with its own consumer group (named, or recognised by
// its lease as a lone ack_messages would) in one transaction. Requests acking
// a common partition never share a call, so a combined call answers each
// request exactly as that request alone would (docs/combining.md). With an
// arbiter, each call holds one Ack-lane slot (docs/flow-control.md).
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker/combiner.h"
#include "db/procedures.h"
#include "tenant/tenant.h"

namespace queen::broker {

class AckCombiner {
 public:
  using AckCall = std::function<std::vector<db::AckRow>(
      const std::string& acks_json, const std::optional<std::string>& consumer_group, const Tenant& tenant)>;
  using AckManyCall =
      std::function<std::vector<db::CombinedAckRow>(const std::string& requests_json, const Tenant& tenant)>;
  using IsTransient = std::function<bool(const std::exception_ptr&)>;

  // `arbiter` null: no admission.
  // `max_bytes`: request bytes (acks_json) of one combined call, 0 for no byte bound.
  AckCombiner(AckCall ack, AckManyCall ack_many, IsTransient is_transient, int max_items, int max_concurrent_calls,
              flow::Arbiter* arbiter = nullptr, std::size_t max_bytes = 0);

  // Applies one request's acks (a JSON array of `items` objects naming
  // `partition_ids`). Returns its rows, `idx` relative to it. Throws what the
  // call threw, or LaneRefused (nothing acked).
  std::vector<db::AckRow> submit(const std::string& acks_json, std::size_t items,
                                 const std::vector<std::string>& partition_ids,
                                 const std::optional<std::string>& consumer_group, const Tenant& tenant);

  CombinerStats stats() const { return combiner_.stats(); }
  std::size_t waiting() const { return combiner_.waiting(); }

 private:
  struct Request {
    const std::string* acks_json;
    std::size_t items;
    std::vector<std::string> partition_keys;  // the partition ids, normalised, sorted, unique
    const std::optional<std::string>* consumer_group;
    const Tenant* tenant;
  };
  using Rows = std::vector<db::CombinedAckRow>;
  Combiner<Request, Rows, std::vector<db::AckRow>> combiner_;
};

}  // namespace queen::broker
