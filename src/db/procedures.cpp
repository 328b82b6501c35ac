// The named calls of Procedures, each over the catalogue's typed call.
#include "db/procedures.h"

#include <tuple>
#include <utility>

#include "util/assert.h"

namespace queen::db {

using namespace catalogue;

ConfiguredQueue Procedures::configure_queue(const std::string& queue, const std::string& namespace_name,
                                            const std::string& task, const std::string& options_json,
                                            const Tenant& tenant) {
  return ConfiguredQueue{
      call<ConfigureQueue>(queue, namespace_name, task, options_json, tenant).value_or(std::string())};
}

std::vector<PushRow> Procedures::push_messages(const std::string& items_json, const PushOrigin& origin) {
  return call<PushMessages>(items_json, origin.producer_sub, origin.tenant);
}

std::vector<PushRow> Procedures::push_with_dedup(const std::string& items_json, const PushOrigin& origin,
                                                 const std::string& dedup_json) {
  return call<PushWithDedup>(items_json, origin.producer_sub, origin.tenant, dedup_json);
}

std::vector<DedupKeyRow> Procedures::dedup_keys(const std::string& partition_id, std::optional<std::int64_t> after_seq,
                                                std::int64_t window_ms, int limit, const Tenant& tenant) {
  return call<DedupKeys>(partition_id, after_seq, window_ms, limit, tenant);
}

std::vector<PoppedMessage> Procedures::pop_messages(const PopRequest& q) {
  return std::apply([this](const auto&... fields) { return call<PopMessages>(fields...); }, fields_of(q));
}

std::vector<AckRow> Procedures::ack_messages(const std::string& acks_json,
                                             const std::optional<std::string>& consumer_group,
                                             const Tenant& tenant) {
  return call<AckMessages>(acks_json, consumer_group, tenant);
}

std::vector<CombinedPopRow> Procedures::pop_many(int requests, const PopRequest& q) {
  return std::apply([this, requests](const auto&... fields) { return call<PopMany>(requests, fields...); },
                    fields_of(q));
}

std::vector<CombinedAckRow> Procedures::ack_many(const std::string& requests_json, const Tenant& tenant) {
  return call<AckMany>(requests_json, tenant);
}

LeaseExtension Procedures::extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant) {
  std::vector<LeaseExtension> extended = call<ExtendLease>(lease_id, seconds, tenant);
  if (extended.empty()) {
    LeaseExtension not_found;
    not_found.error = "Lease not found";
    return not_found;
  }
  return std::move(extended.front());
}

bool Procedures::set_system_flag(const std::string& key, bool enabled) {
  return call<SetSystemFlag>(key, enabled).value_or(false);
}

bool Procedures::get_system_flag(const std::string& key) { return call<GetSystemFlag>(key).value_or(false); }

std::string Procedures::run_transaction(const std::string& ops_json, const PushOrigin& origin) {
  return call<RunTransaction>(ops_json, origin.producer_sub, origin.tenant).value_or(std::string());
}

std::string Procedures::stream_register_query(const std::string& request_json, const Tenant& tenant) {
  return call<StreamRegisterQuery>(request_json, tenant).value_or(std::string());
}

std::string Procedures::stream_state_get(const std::string& request_json, const Tenant& tenant) {
  return call<StreamStateGet>(request_json, tenant).value_or(std::string());
}

std::string Procedures::stream_cycle(const std::string& cycle_json, const PushOrigin& origin) {
  return call<StreamCycle>(cycle_json, origin.producer_sub, origin.tenant).value_or(std::string());
}

DlqPage Procedures::list_dlq(const DlqQuery& q) {
  QUEEN_ASSERT(q.limit >= 1 && q.offset >= 0, "the HTTP layer clamps limit and offset");
  const auto page_at = [&](int limit, int offset) {
    return call<ListDlq>(q.queue, q.consumer_group, q.partition, q.failed_from_ms, q.failed_to_ms, limit, offset,
                         q.tenant, q.max_payload_bytes);
  };
  std::vector<DlqRow> rows = page_at(q.limit, q.offset);
  DlqPage page;
  page.entries.reserve(rows.size());
  for (DlqRow& row : rows) {
    page.entries.push_back(std::move(row.entry));
    page.total = row.total;
  }
  // Every row carries the total; a page past the end has no row, so the
  // total comes from a one-row probe of the first page (procedures.md).
  if (rows.empty() && q.offset > 0) {
    const std::vector<DlqRow> probe = page_at(1, 0);
    page.total = probe.empty() ? 0 : probe.front().total;
  }
  return page;
}

bool Procedures::delete_queue(const std::string& queue, const Tenant& tenant) {
  return call<DeleteQueue>(queue, tenant).value_or(false);
}

TenantQuotaState Procedures::tenant_quota_state(const Tenant& tenant) {
  std::vector<TenantQuotaState> states = call<QuotaStateOfTenant>(tenant);
  return states.empty() ? TenantQuotaState{} : states.front();
}

std::vector<TenantQueue> Procedures::encrypted_queue_names() { return call<EncryptedQueueNames>(); }

int Procedures::dead_letter_undecryptable(const std::string& items_json,
                                          const std::optional<std::string>& consumer_group, const Tenant& tenant) {
  return call<DeadLetterUndecryptable>(items_json, consumer_group, tenant).value_or(0);
}

std::optional<std::string> Procedures::record_trace(const TraceRecord& t) {
  return call<RecordTrace>(t.partition_id, t.transaction_id, t.data_json, t.trace_names_json, t.event_type,
                           t.consumer_group, t.worker_id, t.tenant);
}

std::string Procedures::message_traces(const std::string& partition_id, const std::string& transaction_id,
                                       const Tenant& tenant) {
  return call<MessageTracesOf>(partition_id, transaction_id, tenant).value_or("{\"traces\":[]}");
}

TracesByName Procedures::traces_by_name(const std::string& trace_name, int limit, int offset, const Tenant& tenant,
                                        std::int64_t max_payload_bytes) {
  return call<TracesNamed>(trace_name, limit, offset, tenant, max_payload_bytes);
}

std::string Procedures::trace_names(int limit, int offset, const Tenant& tenant) {
  return call<TraceNames>(limit, offset, tenant).value_or("{}");
}

std::string Procedures::list_messages(const MessageListQuery& q) {
  QUEEN_ASSERT(q.limit >= 1 && q.offset >= 0, "the HTTP layer clamps limit and offset");
  return call<ListMessages>(q.queue, q.partition, q.namespace_name, q.task, q.status, q.from_ms, q.to_ms, q.limit,
                            q.offset, q.tenant)
      .value_or("{}");
}

std::optional<ObjectWithPayload> Procedures::get_message(const std::string& partition_id,
                                                         const std::string& transaction_id, const Tenant& tenant) {
  return call<GetMessage>(partition_id, transaction_id, tenant);
}

bool Procedures::delete_message(const std::string& partition_id, const std::string& transaction_id,
                                const Tenant& tenant) {
  return call<DeleteMessage>(partition_id, transaction_id, tenant).value_or(false);
}

std::optional<std::int64_t> Procedures::clear_queue(const std::string& queue,
                                                    const std::optional<std::string>& partition,
                                                    const Tenant& tenant) {
  return call<ClearQueue>(queue, partition, tenant);
}

std::string Procedures::list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                                        const Tenant& tenant) {
  return call<ListPartitions>(queue, limit, offset, tenant).value_or("{\"partitions\":[]}");
}

bool Procedures::dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                                     const std::optional<std::string>& consumer_group,
                                     const std::optional<std::string>& error, const Tenant& tenant) {
  return call<DeadLetterMessage>(partition_id, transaction_id, consumer_group.value_or(kQueueModeGroup),
                                 error.value_or("Moved to the DLQ by an operator"), tenant)
      .value_or(false);
}

std::string Procedures::requeue_dead_letters(const DlqSelection& s) {
  return call<RequeueDeadLetters>(s.queue, s.consumer_group, s.partition, s.failed_from_ms, s.failed_to_ms,
                                  s.message_id, s.tenant)
      .value_or("{\"requeued\":0,\"queues\":[]}");
}

int Procedures::delete_dead_letters(const DlqSelection& s) {
  return call<DeleteDeadLetters>(s.queue, s.consumer_group, s.partition, s.failed_from_ms, s.failed_to_ms,
                                 s.message_id, s.tenant)
      .value_or(0);
}

std::optional<std::string> Procedures::retry_dead_message(const std::string& partition_id,
                                                          const std::string& transaction_id, const Tenant& tenant) {
  return call<RetryDeadMessage>(partition_id, transaction_id, tenant);
}

}  // namespace queen::db
