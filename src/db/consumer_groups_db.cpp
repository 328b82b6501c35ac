#include "db/consumer_groups_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/catalogue_calls.h"

namespace queen::db {

using namespace catalogue;

std::string ConsumerGroupsDb::list(const Tenant& tenant) {
  return call_first<ListConsumerGroups>(runner_, tenant).value_or("[]");
}

std::string ConsumerGroupsDb::lagging(std::int64_t min_lag_seconds, const Tenant& tenant) {
  return call_first<LaggingConsumerGroups>(runner_, min_lag_seconds, tenant).value_or("[]");
}

std::string ConsumerGroupsDb::detail(const std::string& group, const Tenant& tenant) {
  return call_first<ConsumerGroupDetail>(runner_, group, tenant).value_or("{}");
}

int ConsumerGroupsDb::remove(const std::string& group, const std::optional<std::string>& queue, bool delete_metadata,
                             const Tenant& tenant) {
  return call_first<DeleteConsumerGroup>(runner_, group, queue, delete_metadata, tenant).value_or(0);
}

int ConsumerGroupsDb::set_subscription_start(const std::string& group, const std::string& start_at,
                                             const Tenant& tenant) {
  return call_first<SetSubscriptionStart>(runner_, group, start_at, tenant).value_or(0);
}

int ConsumerGroupsDb::seek(const std::string& group, const std::string& queue, bool to_end,
                           const std::optional<std::string>& at, const Tenant& tenant) {
  return call_first<SeekConsumerGroup>(runner_, group, queue, to_end, at, tenant).value_or(0);
}

PartitionSeek ConsumerGroupsDb::seek_partition_to_end(const std::string& group, const std::string& queue,
                                                      const std::string& partition, const Tenant& tenant) {
  std::vector<PartitionSeek> seeks = call_rows<SeekPartitionToEnd>(runner_, group, queue, partition, tenant);
  return seeks.empty() ? PartitionSeek{} : seeks.front();
}

}  // namespace queen::db
