#include "db/consumer_groups_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/statements.h"

namespace queen::db {

using namespace statement;

std::string ConsumerGroupsDb::list(const std::string& tenant) {
  return runner_.run("list_consumer_groups", [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(tx.exec_prepared(kListConsumerGroups, tenant), "result_json").value_or("[]");
  });
}

std::string ConsumerGroupsDb::lagging(std::int64_t min_lag_seconds, const std::string& tenant) {
  return runner_.run("lagging_consumer_groups", [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(tx.exec_prepared(kLaggingConsumerGroups, min_lag_seconds, tenant), "result_json")
        .value_or("[]");
  });
}

std::string ConsumerGroupsDb::detail(const std::string& group, const std::string& tenant) {
  return runner_.run("consumer_group_detail", [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(tx.exec_prepared(kConsumerGroupDetail, group, tenant), "result_json")
        .value_or("{}");
  });
}

int ConsumerGroupsDb::remove(const std::string& group, const std::optional<std::string>& queue, bool delete_metadata,
                             const std::string& tenant) {
  return runner_.run("delete_consumer_group", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kDeleteConsumerGroup, group, queue, delete_metadata, tenant), "deleted")
        .value_or(0);
  });
}

int ConsumerGroupsDb::set_subscription_start(const std::string& group, const std::string& start_at,
                                             const std::string& tenant) {
  return runner_.run("set_subscription_start", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kSetSubscriptionStart, group, start_at, tenant), "updated").value_or(0);
  });
}

int ConsumerGroupsDb::seek(const std::string& group, const std::string& queue, bool to_end,
                           const std::optional<std::string>& at, const std::string& tenant) {
  return runner_.run("seek_consumer_group", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kSeekConsumerGroup, group, queue, to_end, at, tenant), "moved")
        .value_or(0);
  });
}

PartitionSeek ConsumerGroupsDb::seek_partition_to_end(const std::string& group, const std::string& queue,
                                                      const std::string& partition, const std::string& tenant) {
  return runner_.run("seek_partition_to_end", [&](pqxx::nontransaction& tx) {
    const pqxx::result result = tx.exec_prepared(kSeekPartitionToEnd, group, queue, partition, tenant);
    return PartitionSeek{first_value<bool>(result, "partition_found").value_or(false),
                         first_value<std::int64_t>(result, "cursor_moved_to_us")};
  });
}

}  // namespace queen::db
