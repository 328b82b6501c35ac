#pragma once
// Procedures implemented against PostgreSQL through the connection pool.
#include "config/config.h"
#include "db/procedure_runner.h"
#include "db/procedures.h"
#include "tenant/tenant.h"

namespace queen::db {

class Database final : public Procedures {
 public:
  explicit Database(const config::DbConfig& config);
  ~Database() override;

  ConfiguredQueue configure_queue(const std::string& queue, const std::string& namespace_name,
                                  const std::string& task, const std::string& options_json,
                                  const Tenant& tenant) override;
  std::vector<PushRow> push_messages(const std::string& items_json, const PushOrigin& origin) override;
  std::vector<PoppedMessage> pop_messages(const PopRequest& request) override;
  std::vector<CombinedPopRow> pop_many(int requests, const PopRequest& request) override;
  std::vector<CombinedAckRow> ack_many(const std::string& requests_json, const Tenant& tenant) override;
  std::vector<AckRow> ack_messages(const std::string& acks_json, const std::optional<std::string>& consumer_group,
                                   const Tenant& tenant) override;
  LeaseExtension extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant) override;
  bool set_system_flag(const std::string& key, bool enabled) override;
  bool get_system_flag(const std::string& key) override;
  std::chrono::microseconds ping() override;
  std::string run_transaction(const std::string& ops_json, const PushOrigin& origin) override;
  std::string stream_register_query(const std::string& request_json, const Tenant& tenant) override;
  std::string stream_state_get(const std::string& request_json, const Tenant& tenant) override;
  std::string stream_cycle(const std::string& cycle_json, const PushOrigin& origin) override;
  DlqPage list_dlq(const DlqQuery& query) override;
  bool delete_queue(const std::string& queue, const Tenant& tenant) override;
  TenantQuotaState tenant_quota_state(const Tenant& tenant) override;
  std::vector<TenantQueue> encrypted_queue_names() override;
  int dead_letter_undecryptable(const std::string& items_json, const std::optional<std::string>& consumer_group,
                                const Tenant& tenant) override;

  // Message administration (message_admin_db.cpp).
  std::optional<std::string> record_trace(const TraceRecord& trace) override;
  std::string message_traces(const std::string& partition_id, const std::string& transaction_id,
                             const Tenant& tenant) override;
  TracesByName traces_by_name(const std::string& trace_name, int limit, int offset, const Tenant& tenant,
                              std::int64_t max_payload_bytes) override;
  std::string trace_names(int limit, int offset, const Tenant& tenant) override;
  std::string list_messages(const MessageListQuery& query) override;
  std::optional<ObjectWithPayload> get_message(const std::string& partition_id, const std::string& transaction_id,
                                               const Tenant& tenant) override;
  bool delete_message(const std::string& partition_id, const std::string& transaction_id,
                      const Tenant& tenant) override;
  std::optional<std::int64_t> clear_queue(const std::string& queue, const std::optional<std::string>& partition,
                                          const Tenant& tenant) override;
  std::string list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                              const Tenant& tenant) override;
  bool dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                           const std::optional<std::string>& consumer_group, const std::optional<std::string>& error,
                           const Tenant& tenant) override;
  std::string requeue_dead_letters(const DlqSelection& selection) override;
  int delete_dead_letters(const DlqSelection& selection) override;
  std::optional<std::string> retry_dead_message(const std::string& partition_id, const std::string& transaction_id,
                                                const Tenant& tenant) override;

  PoolStats pool_stats() const override { return runner_.pool_stats(); }
  // The runner and its pool, shared with the background loops' calls
  // (timers, KV, jobs) so that DB_POOL_SIZE bounds every connection this
  // broker opens and their failures reach the same health flag.
  ProcedureRunner& runner() { return runner_; }
  bool healthy() const override { return runner_.healthy(); }

 private:
  ProcedureRunner runner_;
};

}  // namespace queen::db
