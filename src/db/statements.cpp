#include "db/statements.h"

#include <pqxx/connection_base>
#include <string>
#include <utility>

namespace queen::db {
namespace {

// Timestamps leave the database as integer epoch microseconds so the broker
// formats them without depending on DateStyle.
void register_request_statements(pqxx::connection_base& c) {
  using namespace statement;
  c.prepare(kConfigureQueue,
            "SELECT queen.configure_queue($1::text, $2::text, $3::text, $4::jsonb, $5::text)::text AS result_json");
  c.prepare(kPushMessages,
            "SELECT idx, status, message_id::text AS message_id, transaction_id, partition_id::text AS partition_id, "
            "queue_name, partition_name, error FROM queen.push_messages($1::jsonb, $2::text, $3::text)");
  c.prepare(kPopMessages,
            "SELECT lease_id::text AS lease_id, queue_name, partition_name, partition_id::text AS partition_id, "
            "message_id::text AS message_id, transaction_id, trace_id::text AS trace_id, payload::text AS payload, "
            "producer_sub, is_encrypted, (extract(epoch from created_at) * 1000000)::int8 AS created_at_us, "
            "retry_count "
            "FROM queen.pop_messages($1::text, $2::text, $3::text, $4::int, $5::int, $6::bool, $7::text, "
            "$8::text, $9::text, $10::text, $11::text)");
  c.prepare(kAckMessages,
            "SELECT idx, transaction_id, success, error, queue_name, partition_name, lease_released, dlq "
            "FROM queen.ack_messages($1::jsonb, $2::text, $3::text)");
  c.prepare(kPopMany,
            "SELECT request_idx, lease_id::text AS lease_id, queue_name, partition_name, "
            "partition_id::text AS partition_id, message_id::text AS message_id, transaction_id, "
            "trace_id::text AS trace_id, payload::text AS payload, producer_sub, is_encrypted, "
            "(extract(epoch from created_at) * 1000000)::int8 AS created_at_us, retry_count "
            "FROM queen.pop_many($1::int, $2::text, $3::text, $4::text, $5::int, $6::int, $7::bool, $8::text, "
            "$9::text, $10::text, $11::text, $12::text)");
  c.prepare(kAckMany,
            "SELECT request_idx, idx, transaction_id, success, error, queue_name, partition_name, lease_released, dlq "
            "FROM queen.ack_many($1::jsonb, $2::text)");
  c.prepare(kExtendLease,
            "SELECT success, (extract(epoch from expires_at) * 1000000)::int8 AS expires_at_us, error "
            "FROM queen.extend_lease($1::uuid, $2::int, $3::text)");
  c.prepare(kSetSystemFlag, "SELECT queen.set_system_flag($1::text, $2::bool) AS enabled");
  c.prepare(kGetSystemFlag, "SELECT queen.get_system_flag($1::text) AS enabled");
  c.prepare(kPing, "SELECT 1 AS one");
  c.prepare(kRunTransaction, "SELECT queen.run_transaction($1::jsonb, $2::text, $3::text)::text AS result_json");
  // from/to travel as epoch milliseconds (exact, no text timestamp parsing).
  c.prepare(kListDlq,
            "SELECT message_id::text AS message_id, transaction_id, partition_id::text AS partition_id, queue_name, "
            "partition_name, consumer_group, error_message, retry_count, payload::text AS payload, payload_omitted, "
            "is_encrypted, "
            "producer_sub, trace_id::text AS trace_id, "
            "(extract(epoch from created_at) * 1000000)::int8 AS created_at_us, "
            "(extract(epoch from failed_at) * 1000000)::int8 AS failed_at_us, total "
            "FROM queen.list_dlq($1::text, $2::text, $3::text, "
            "'epoch'::timestamptz + $4::int8 * interval '1 millisecond', "
            "'epoch'::timestamptz + $5::int8 * interval '1 millisecond', $6::int, $7::int, $8::text, $9::int8)");
  c.prepare(kDeleteQueue, "SELECT queen.delete_queue($1::text, $2::text) AS deleted");
  c.prepare(kTenantQuotaState,
            "SELECT max_pending, push_rate, push_burst, pending, max_dead_letters, dead_letters, "
            "(extract(epoch from counted_at) * 1000000)::int8 AS counted_at_us FROM queen.tenant_quota_state($1::text)");
  c.prepare(kEncryptedQueueNames, "SELECT tenant, queue_name FROM queen.encrypted_queue_names()");
  c.prepare(kDeadLetterUndecryptable,
            "SELECT queen.dead_letter_undecryptable($1::jsonb, $2::text, $3::text) AS dead_lettered");
}

// Claim and fire are separate statements, hence separate transactions, as the
// timer protocol requires (docs/timers-kv-jobs.md).
void register_timer_statements(pqxx::connection_base& c) {
  using namespace statement;
  c.prepare(kClaimDueTimers, "SELECT id FROM queen.claim_due_timers($1::text, $2::int, $3::int) AS id");
  c.prepare(kFireTimers, "SELECT queen.fire_timers($1::text, $2::bigint[]) AS fired");
  // Both instants from the database clock, so broker clock skew cannot shift timers.
  c.prepare(kMsUntilNextTimer,
            "SELECT floor(extract(epoch FROM (queen.next_timer_due() - clock_timestamp())) * 1000)::int8 "
            "AS ms_until_due");
  c.prepare(kTimerQueueNames, "SELECT queen.timer_queue_names($1::bigint[]) AS queue_name");
}

void register_consumer_group_statements(pqxx::connection_base& c) {
  using namespace statement;
  c.prepare(kListConsumerGroups, "SELECT queen.list_consumer_groups($1::text)::text AS result_json");
  c.prepare(kLaggingConsumerGroups, "SELECT queen.lagging_consumer_groups($1::int8, $2::text)::text AS result_json");
  c.prepare(kConsumerGroupDetail, "SELECT queen.consumer_group_detail($1::text, $2::text)::text AS result_json");
  c.prepare(kDeleteConsumerGroup,
            "SELECT queen.delete_consumer_group($1::text, $2::text, $3::bool, $4::text) AS deleted");
  c.prepare(kSetSubscriptionStart,
            "SELECT queen.set_subscription_start($1::text, $2::timestamptz, $3::text) AS updated");
  c.prepare(kSeekConsumerGroup,
            "SELECT queen.seek_consumer_group($1::text, $2::text, $3::bool, $4::timestamptz, $5::text) AS moved");
  c.prepare(kSeekPartitionToEnd,
            "SELECT partition_found, (extract(epoch from cursor_moved_to) * 1000000)::int8 AS cursor_moved_to_us "
            "FROM queen.seek_partition_to_end($1::text, $2::text, $3::text, $4::text)");
}

void register_kv_statements(pqxx::connection_base& c) {
  using namespace statement;
  c.prepare(kKvSet,
            "SELECT (extract(epoch FROM queen.kv_set($1::text, $2::jsonb, $3::int8, $4::text)) * 1000000)::int8 "
            "AS expires_at_us");
  c.prepare(kKvGet,
            "SELECT value::text AS value_json, (extract(epoch FROM expires_at) * 1000000)::int8 AS expires_at_us "
            "FROM queen.kv_get($1::text, $2::text)");
  c.prepare(kKvDelete, "SELECT queen.kv_delete($1::text, $2::text) AS deleted");
  c.prepare(kKvPruneExpired, "SELECT queen.kv_prune_expired($1::int) AS pruned");
}

void register_job_statements(pqxx::connection_base& c) {
  using namespace statement;
  c.prepare(kTryBeginJobCycle, "SELECT queen.try_begin_job_cycle($1::text, $2::int8, $3::text) AS elected");
  c.prepare(kFinishJobCycle, "SELECT queen.finish_job_cycle($1::text, $2::text, $3::jsonb) AS finished");
  c.prepare(kApplyRetention,
            "SELECT queen.apply_retention($1::int, $2::int8 * interval '1 millisecond') AS deleted");
  c.prepare(kExpireMessages, "SELECT queen.expire_messages($1::int) AS expired");
  c.prepare(kReconcileStats, "SELECT queen.reconcile_stats($1::int, $2::int8) AS refreshed");
  c.prepare(kPruneStatsHistory, "SELECT queen.prune_stats_history($1::int, $2::int) AS pruned");
}

// Every view has the signature (tenant text, params jsonb) -> jsonb.
void register_stats_statements(pqxx::connection_base& c) {
  using namespace statement;
  c.prepare(kRefreshStats, "SELECT queen.refresh_stats($1::int, $2::int)::text AS result_json");
  c.prepare(kRecordBrokerMinute, "SELECT queen.record_broker_minute($1::text, $2::jsonb)");
  const std::pair<const char*, const char*> views[] = {
      {kResourcesOverview, "resources_overview"},     {kResourcesQueues, "resources_queues"},
      {kResourcesQueue, "resources_queue"},           {kResourcesNamespaces, "resources_namespaces"},
      {kResourcesTasks, "resources_tasks"},           {kStatusOverview, "status_overview"},
      {kStatusQueues, "status_queues"},               {kStatusQueue, "status_queue"},
      {kStatusQueueMessages, "status_queue_messages"}, {kStatusAnalytics, "status_analytics"},
      {kAnalyticsSystemMetrics, "analytics_system_metrics"}, {kAnalyticsWorkerMetrics, "analytics_worker_metrics"},
      {kAnalyticsPostgresStats, "analytics_postgres_stats"}, {kAnalyticsQueueLag, "analytics_queue_lag"},
      {kAnalyticsQueueOps, "analytics_queue_ops"},    {kAnalyticsParkedReplicas, "analytics_parked_replicas"},
      {kAnalyticsRetention, "analytics_retention"},
  };
  for (const auto& [name, function] : views) {
    c.prepare(name, std::string("SELECT queen.") + function + "($1::text, $2::jsonb)::text AS result_json");
  }
}

}  // namespace

void register_statements(pqxx::connection_base& connection) {
  register_request_statements(connection);
  register_timer_statements(connection);
  register_kv_statements(connection);
  register_consumer_group_statements(connection);
  register_job_statements(connection);
  register_message_admin_statements(connection);
  register_stats_statements(connection);
}

}  // namespace queen::db
