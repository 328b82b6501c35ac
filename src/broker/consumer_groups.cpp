#include "broker/consumer_groups.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "broker/pop_wakes.h"
#include "db/db_error.h"

namespace queen::broker {

std::string ConsumerGroups::list(const Tenant& tenant) {
  return translating_db_failures([&] { return reads_.run([&] { return db_.list(tenant); }); });
}

std::string ConsumerGroups::lagging(std::int64_t min_lag_seconds, const Tenant& tenant) {
  return translating_db_failures([&] { return reads_.run([&] { return db_.lagging(min_lag_seconds, tenant); }); });
}

std::string ConsumerGroups::detail(const std::string& group, const Tenant& tenant) {
  return translating_db_failures([&] { return reads_.run([&] { return db_.detail(group, tenant); }); });
}

int ConsumerGroups::remove(const std::string& group, const std::optional<std::string>& queue, bool delete_metadata,
                           const Tenant& tenant) {
  const int removed = translating_db_failures([&] { return db_.remove(group, queue, delete_metadata, tenant); });
  if (removed > 0) spdlog::info("consumer group {} removed from {} partition(s)", group, removed);
  // A long poll of the group parked on the queue re-registers it now (its new
  // start point may expose messages) instead of at its next re-check.
  if (removed > 0 && queue) wake_pops(*queue);
  return removed;
}

int ConsumerGroups::set_subscription_start(const std::string& group, const std::string& start_at,
                                           const Tenant& tenant) {
  return translating_db_failures([&] { return db_.set_subscription_start(group, start_at, tenant); });
}

int ConsumerGroups::seek(const std::string& group, const std::string& queue, bool to_end,
                         const std::optional<std::string>& at, const Tenant& tenant) {
  const int moved = translating_db_failures([&] { return db_.seek(group, queue, to_end, at, tenant); });
  // Pops read the cursors in PostgreSQL, so the next pop anywhere sees the
  // re-exposed messages; parked long polls are told at once.
  if (moved > 0) wake_pops(queue);
  return moved;
}

PartitionSeekResult ConsumerGroups::seek_partition_to_end(const std::string& group, const std::string& queue,
                                                          const std::string& partition, const Tenant& tenant) {
  const db::PartitionSeek seek =
      translating_db_failures([&] { return db_.seek_partition_to_end(group, queue, partition, tenant); });
  return PartitionSeekResult{seek.partition_found, seek.cursor_moved_to_us};
}

void ConsumerGroups::wake_pops(const std::string& queue) { announce_committed(waiters_, cluster_, {queue}); }

}  // namespace queen::broker
