#pragma once
// The names of the prepared statements every pooled connection knows
// (statements.cpp holds their SQL text). Each runs as one autocommit statement
// (a nontransaction): one round trip, the procedure is the unit of atomicity.
// Result columns carry names, which the decoders of row_decode.h read.

namespace pqxx {
class connection_base;
}

namespace queen::db::statement {

// Request path (Database).
inline constexpr const char* kConfigureQueue = "queen_configure_queue";
inline constexpr const char* kPushMessages = "queen_push_messages";
inline constexpr const char* kPopMessages = "queen_pop_messages";
inline constexpr const char* kAckMessages = "queen_ack_messages";
inline constexpr const char* kPopMany = "queen_pop_many";
inline constexpr const char* kAckMany = "queen_ack_many";
inline constexpr const char* kExtendLease = "queen_extend_lease";
inline constexpr const char* kSetSystemFlag = "queen_set_system_flag";
inline constexpr const char* kGetSystemFlag = "queen_get_system_flag";
inline constexpr const char* kPing = "queen_ping";
inline constexpr const char* kRunTransaction = "queen_run_transaction";
inline constexpr const char* kListDlq = "queen_list_dlq";
inline constexpr const char* kDeleteQueue = "queen_delete_queue";
inline constexpr const char* kTenantQuotaState = "queen_tenant_quota_state";
inline constexpr const char* kEncryptedQueueNames = "queen_encrypted_queue_names";
inline constexpr const char* kDeadLetterUndecryptable = "queen_dead_letter_undecryptable";

// Consumer-group administration (ConsumerGroupsDb).
inline constexpr const char* kListConsumerGroups = "queen_list_consumer_groups";
inline constexpr const char* kLaggingConsumerGroups = "queen_lagging_consumer_groups";
inline constexpr const char* kConsumerGroupDetail = "queen_consumer_group_detail";
inline constexpr const char* kDeleteConsumerGroup = "queen_delete_consumer_group";
inline constexpr const char* kSetSubscriptionStart = "queen_set_subscription_start";
inline constexpr const char* kSeekConsumerGroup = "queen_seek_consumer_group";
inline constexpr const char* kSeekPartitionToEnd = "queen_seek_partition_to_end";

// Timers (TimersDb, timer_queue_names).
inline constexpr const char* kClaimDueTimers = "queen_claim_due_timers";
inline constexpr const char* kFireTimers = "queen_fire_timers";
inline constexpr const char* kMsUntilNextTimer = "queen_ms_until_next_timer";
inline constexpr const char* kTimerQueueNames = "queen_timer_queue_names";

// KV (KvDb).
inline constexpr const char* kKvSet = "queen_kv_set";
inline constexpr const char* kKvGet = "queen_kv_get";
inline constexpr const char* kKvDelete = "queen_kv_delete";
inline constexpr const char* kKvPruneExpired = "queen_kv_prune_expired";

// Jobs (JobsDb).
inline constexpr const char* kTryBeginJobCycle = "queen_try_begin_job_cycle";
inline constexpr const char* kFinishJobCycle = "queen_finish_job_cycle";
inline constexpr const char* kApplyRetention = "queen_apply_retention";
inline constexpr const char* kExpireMessages = "queen_expire_messages";
inline constexpr const char* kReconcileStats = "queen_reconcile_stats";
inline constexpr const char* kPruneStatsHistory = "queen_prune_stats_history";

// Statistics (StatsDb, docs/operations-stats.md): one view per status, resources and analytics route.
inline constexpr const char* kRefreshStats = "queen_refresh_stats";
inline constexpr const char* kRecordBrokerMinute = "queen_record_broker_minute";
inline constexpr const char* kResourcesOverview = "queen_resources_overview";
inline constexpr const char* kResourcesQueues = "queen_resources_queues";
inline constexpr const char* kResourcesQueue = "queen_resources_queue";
inline constexpr const char* kResourcesNamespaces = "queen_resources_namespaces";
inline constexpr const char* kResourcesTasks = "queen_resources_tasks";
inline constexpr const char* kStatusOverview = "queen_status_overview";
inline constexpr const char* kStatusQueues = "queen_status_queues";
inline constexpr const char* kStatusQueue = "queen_status_queue";
inline constexpr const char* kStatusQueueMessages = "queen_status_queue_messages";
inline constexpr const char* kStatusAnalytics = "queen_status_analytics";
inline constexpr const char* kAnalyticsSystemMetrics = "queen_analytics_system_metrics";
inline constexpr const char* kAnalyticsWorkerMetrics = "queen_analytics_worker_metrics";
inline constexpr const char* kAnalyticsPostgresStats = "queen_analytics_postgres_stats";
inline constexpr const char* kAnalyticsQueueLag = "queen_analytics_queue_lag";
inline constexpr const char* kAnalyticsQueueOps = "queen_analytics_queue_ops";
inline constexpr const char* kAnalyticsParkedReplicas = "queen_analytics_parked_replicas";
inline constexpr const char* kAnalyticsRetention = "queen_analytics_retention";

// Message administration (message_admin_db.cpp, message_admin_statements.cpp).
inline constexpr const char* kRecordTrace = "queen_record_trace";
inline constexpr const char* kMessageTraces = "queen_message_traces_of";
inline constexpr const char* kTracesByName = "queen_traces_by_name";
inline constexpr const char* kTraceNames = "queen_trace_names";
inline constexpr const char* kListMessages = "queen_list_messages";
inline constexpr const char* kGetMessage = "queen_get_message";
inline constexpr const char* kDeleteMessage = "queen_delete_message";
inline constexpr const char* kClearQueue = "queen_clear_queue";
inline constexpr const char* kListPartitions = "queen_list_partitions";
inline constexpr const char* kDeadLetterMessage = "queen_dead_letter_message";
inline constexpr const char* kRequeueDeadLetters = "queen_requeue_dead_letters";
inline constexpr const char* kDeleteDeadLetters = "queen_delete_dead_letters";
inline constexpr const char* kRetryDeadMessage = "queen_retry_dead_message";

}  // namespace queen::db::statement

namespace queen::db {

// Registers every statement above on `connection` (libpqxx prepares each one
// on its first use, so this costs no round trip).
void register_statements(pqxx::connection_base& connection);
// The message administration statements (called by register_statements).
void register_message_admin_statements(pqxx::connection_base& connection);

}  // namespace queen::db
