#include "broker/ack.h"

#include "broker/admission.h"
#include "broker/broker_error.h"
#include "broker/encoding.h"
#include "db/item_index.h"
#include "util/uuid.h"

namespace queen::broker {

std::vector<AckResult> Acks::ack(const std::vector<AckItem>& items, const std::optional<std::string>& consumer_group,
                                 const Tenant& tenant) {
  if (items.empty()) return {};
  std::vector<std::string> partition_ids;
  partition_ids.reserve(items.size());
  for (const auto& item : items) partition_ids.push_back(item.partition_id);
  // Concurrent acks of the tenant share one call, which holds one Ack slot (ack_combiner.h).
  std::vector<db::AckRow> rows = translating_db_failures(metrics_, [&] {
    return combiner_.submit(encode_ack_items(items), items.size(), partition_ids, consumer_group, tenant);
  });
  std::vector<AckResult> results(items.size());
  std::vector<bool> answered(items.size(), false);
  for (auto& row : rows) {
    const std::size_t i = db::item_index_of(row.idx, items.size(), "ack_messages");
    results[i] = std::move(row);
    answered[i] = true;
  }
  std::uint64_t succeeded = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    results[i].idx = static_cast<int>(i);
    if (!answered[i]) {
      results[i].transaction_id = items[i].transaction_id;
      results[i].error = "the database returned no result for this item";
    }
    if (results[i].success) ++succeeded;
  }
  metrics_.record_ack(succeeded, items.size() - succeeded);
  return results;
}

LeaseExtension Acks::extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant) {
  if (!util::is_uuid(lease_id)) {
    LeaseExtension unknown;
    unknown.error = "Lease not found";
    return unknown;
  }
  return translating_db_failures(metrics_, [&] {
    // A consumer's write like an ack: the Ack lane.
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Ack);
    return db_.extend_lease(lease_id, seconds, tenant);
  });
}

}  // namespace queen::broker
