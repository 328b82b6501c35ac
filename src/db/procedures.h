#pragma once
// The database API as C++ (docs/procedures.md). Callers see plain structs
// (db/procedure_types.h) and DbError, never libpqxx. jsonb arguments and
// results travel as JSON text.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/catalogue.h"
#include "db/procedure_types.h"
#include "tenant/tenant.h"

namespace queen::db {

// Every call throws DbError on failure (see db_error.h); business outcomes
// (duplicate, lease lost ...) are returned, as the procedures do.
//
// The interface is the catalogue: one virtual call(Id, arguments) per entry
// of QUEEN_CATALOGUE, generated from it, so a new entry needs no line here, in
// Database or in the unit tests' fake. call<Id>(args...) is the typed call
// (argument count and types checked against the entry at compile time). The
// named functions below are the use cases' shapes of some calls (structs for
// long argument lists, defaults for a null answer), written over call<Id>.
class Procedures {
 public:
  virtual ~Procedures() = default;

#define QUEEN_PROCEDURES_CALL(Id, ...)                                    \
  virtual catalogue::Answer<catalogue::Id> call(catalogue::Id /*entry*/, \
                                                const catalogue::Arguments<catalogue::Id>& arguments) = 0;
  QUEEN_CATALOGUE(QUEEN_PROCEDURES_CALL)
#undef QUEEN_PROCEDURES_CALL

  template <typename P, typename... A>
  catalogue::Answer<P> call(const A&... args) {
    static_assert(P::template accepts<A...>, "the arguments do not match the catalogue entry");
    return call(P{}, catalogue::Arguments<P>(args...));
  }

  // A trivial round trip; returns its latency.
  virtual std::chrono::microseconds ping() = 0;
  virtual PoolStats pool_stats() const = 0;
  // The database health flag: false after a transient failure, true again
  // after the next successful call.
  virtual bool healthy() const = 0;

  // `tenant` everywhere: the tenant the call acts for ("" = the default
  // tenant); another tenant's queues, messages and leases do not exist for it.
  ConfiguredQueue configure_queue(const std::string& queue, const std::string& namespace_name,
                                  const std::string& task, const std::string& options_json, const Tenant& tenant);
  // items_json: a JSON array of push items (procedures.md). push_messages reads
  // each partition's whole dedup window (the spool's replay); push_with_dedup
  // only what dedup_json's caller does not answer for (broker/dedup_cache.h).
  std::vector<PushRow> push_messages(const std::string& items_json, const PushOrigin& origin);
  std::vector<PushRow> push_with_dedup(const std::string& items_json, const PushOrigin& origin,
                                       const std::string& dedup_json);
  // The transaction ids of a partition's dedup window after `after_seq` (all without).
  std::vector<DedupKeyRow> dedup_keys(const std::string& partition_id, std::optional<std::int64_t> after_seq,
                                      std::int64_t window_ms, int limit, const Tenant& tenant);
  std::vector<PoppedMessage> pop_messages(const PopRequest& request);
  std::vector<AckRow> ack_messages(const std::string& acks_json, const std::optional<std::string>& consumer_group,
                                   const Tenant& tenant);
  // "Lease not found" when the tenant has no such lease.
  LeaseExtension extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant);
  bool set_system_flag(const std::string& key, bool enabled);
  bool get_system_flag(const std::string& key);

  // Admin and transaction calls.
  // queen.run_transaction: ops_json is the request body {operations,
  // requiredLeases}; returns the procedure's jsonb result as text.
  std::string run_transaction(const std::string& ops_json, const PushOrigin& origin);
  // Stream queries (docs/streams.md); each returns the procedure's jsonb result as text.
  // queen.stream_register_query: request_json {name, source_queue, config_hash, sink_queue?, reset?}.
  std::string stream_register_query(const std::string& request_json, const Tenant& tenant);
  // queen.stream_state_get: request_json {query_id, partition_id, keys?, key_prefix?, ripe_at_or_before?}.
  std::string stream_state_get(const std::string& request_json, const Tenant& tenant);
  // queen.stream_cycle: cycle_json {query_id, partition_id, consumer_group?, release_lease?, state_ops?,
  // push_items?, ack?, idempotency_key?}; the pushes are stamped with origin's producer.
  std::string stream_cycle(const std::string& cycle_json, const PushOrigin& origin);
  // queen.pop_many: `requests` pop_messages calls with the same parameters in
  // one transaction, each with its own lease.
  std::vector<CombinedPopRow> pop_many(int requests, const PopRequest& request);
  // queen.ack_many: requests_json [{"group": text|null, "acks": [...]}, ...]
  // of one tenant, applied in one transaction.
  std::vector<CombinedAckRow> ack_many(const std::string& requests_json, const Tenant& tenant);
  // queen.list_dlq, with `total` filled in even when the page is past the end.
  DlqPage list_dlq(const DlqQuery& query);
  // queen.delete_queue: true when the queue existed (and is now gone).
  bool delete_queue(const std::string& queue, const Tenant& tenant);
  // queen.tenant_quota_state (read by the quota cache, only when quotas are on).
  TenantQuotaState tenant_quota_state(const Tenant& tenant);

  // queen.encrypted_queue_names: the (tenant, queue) pairs configured with encryptionEnabled.
  std::vector<TenantQueue> encrypted_queue_names();
  // queen.dead_letter_undecryptable: items_json [{partitionId, transactionId, leaseId?, error}]
  // for the pop's group (null: queue mode) of the tenant's partitions; returns how many were dead-lettered.
  int dead_letter_undecryptable(const std::string& items_json, const std::optional<std::string>& consumer_group,
                                const Tenant& tenant);

  // --- Message administration. JSON results are the procedures' jsonb
  // answers as text.
  // queen.record_trace: the trace id, nullopt when the tenant has no such message.
  std::optional<std::string> record_trace(const TraceRecord& trace);
  std::string message_traces(const std::string& partition_id, const std::string& transaction_id,
                             const Tenant& tenant);
  TracesByName traces_by_name(const std::string& trace_name, int limit, int offset, const Tenant& tenant,
                              std::int64_t max_payload_bytes);
  std::string trace_names(int limit, int offset, const Tenant& tenant);
  std::string list_messages(const MessageListQuery& query);
  // queen.get_message (payload apart): nullopt when the tenant has no such message.
  std::optional<ObjectWithPayload> get_message(const std::string& partition_id, const std::string& transaction_id,
                                               const Tenant& tenant);
  bool delete_message(const std::string& partition_id, const std::string& transaction_id, const Tenant& tenant);
  // queen.clear_queue: messages deleted, nullopt when the queue (or partition) does not exist.
  std::optional<std::int64_t> clear_queue(const std::string& queue, const std::optional<std::string>& partition,
                                          const Tenant& tenant);
  std::string list_partitions(const std::optional<std::string>& queue, int limit, int offset, const Tenant& tenant);
  // queen.dead_letter_message: false when the tenant has no such message.
  bool dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                           const std::optional<std::string>& consumer_group, const std::optional<std::string>& error,
                           const Tenant& tenant);
  // queen.requeue_dead_letters: {"requeued": N, "queues": [...]}.
  std::string requeue_dead_letters(const DlqSelection& selection);
  int delete_dead_letters(const DlqSelection& selection);
  // queen.retry_dead_message: {"messageId", "queues"}, nullopt when the message has no DLQ entry.
  std::optional<std::string> retry_dead_message(const std::string& partition_id, const std::string& transaction_id,
                                                const Tenant& tenant);
};

}  // namespace queen::db
