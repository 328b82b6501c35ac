#pragma once
// The use cases of the broker: one procedure call per request (or per group
// of concurrent pushes), composed with the long-poll waker, the maintenance
// flags and the metrics. Transport-neutral: the http layer parses and
// validates, calls one method here, and renders the result.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <set>

#include "broker/broker_error.h"
#include "broker/ack_combiner.h"
#include "broker/admission.h"
#include "broker/cluster_hooks.h"
#include "broker/maintenance_flags.h"
#include "broker/payload_encryption.h"
#include "broker/pop_combiner.h"
#include "broker/push_combiner.h"
#include "broker/streams.h"
#include "broker/tenant_quotas.h"
#include "broker/transactions.h"
#include "broker/types.h"
#include "config/config.h"
#include "db/db_error.h"
#include "db/procedures.h"
#include "flow/arbiter.h"
#include "metrics/metrics.h"
#include "tenant/tenant.h"
#include "wake/long_poll.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

class SpoolBridge;

class Broker {
 public:
  // Everything the broker uses is built before it and outlives it. `spool`
  // null: no spool, unstored pushes fail. `cluster` null: a single broker
  // with in-process wake-ups only (the mesh and the local sweeper are not
  // told what committed).
  Broker(const config::Config& config, db::Procedures& db, wake::PopWaiters& waiters, metrics::Metrics& metrics,
         MaintenanceFlags& flags, SpoolBridge* spool = nullptr, ClusterHooks* cluster = nullptr);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // Releases every parked long poll (answering empty) and answers new pops
  // empty, so in-flight requests drain quickly.
  void begin_shutdown();

  // `tenant` / `origin.tenant` below: the requester's tenant (always given;
  // Tenant::default_tenant() names the default tenant, docs/tenants.md); another
  // tenant's queues do not exist for it.

  // POST /api/v1/configure: returns the procedure's JSON result.
  std::string configure(const std::string& queue, const std::string& namespace_name, const std::string& task,
                        const std::string& options_json, const Tenant& tenant);

  // POST /api/v1/push. Items are validated by the caller; the origin's
  // producer subject is stamped on every message. Throws BrokerError
  // TooManyRequests when a tenant quota refuses the push.
  PushOutcome push(std::vector<PushItem> items, const PushOrigin& origin);

  // The single place where a push that PostgreSQL did not store is handled:
  // with a spool attached the items are spooled (`buffered`, or `failed` when
  // the spool write fails); without one every item answers `failed`.
  std::vector<PushItemResult> handle_unstored_push(const std::vector<PushItem>& items, UnstoredReason reason,
                                                   const PushOrigin& origin);

  // Wakes local long polls (and, with the mesh, peers) for queues that just
  // received committed messages (announce_committed in pop_wakes.h).
  void after_push_committed(const std::set<std::string>& queues);

  // The three pop forms, answered through `done` exactly once (with an
  // exception for a failure), on whichever thread ends the poll. The first
  // attempt runs on the calling thread; a long poll then parks without a
  // thread and re-attempts through `executor`. `client_gone` is asked before
  // every database attempt so an abandoned long poll never claims a lease.
  using PopDone = std::function<void(PopOutcome, std::exception_ptr)>;
  void pop(const PopCommand& command, std::function<bool()> client_gone, wake::Executor executor, PopDone done);

  // POST /api/v1/ack and /ack/batch (results in request order).
  std::vector<AckResult> ack(const std::vector<AckItem>& items, const std::optional<std::string>& consumer_group,
                             const Tenant& tenant);

  // POST /api/v1/lease/:leaseId/extend.
  LeaseExtension extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant);

  // POST /api/v1/transaction (transactions.cpp): one run_transaction call;
  // business failures come back as success:false, an outage as Unavailable.
  TransactionOutcome run_transaction(TransactionCommand command, const PushOrigin& origin);

  // The stream routes (streams.cpp, docs/streams.md): one procedure call each.
  // Their business answers (a config_hash mismatch, a failed cycle) come back
  // with success false; an outage is Unavailable, never spooled.
  StreamOutcome register_stream_query(const StreamQueryRegistration& registration, const Tenant& tenant);
  StreamOutcome read_stream_state(const StreamStateRead& read, const Tenant& tenant);  // the Read lane
  StreamOutcome run_stream_cycle(StreamCycleCommand command, const PushOrigin& origin);

  // GET /api/v1/dlq and DELETE /api/v1/resources/queues/:queue (admin.cpp).
  // delete_queue returns whether the tenant's queue existed.
  DlqPage list_dlq(const DlqQuery& query);
  bool delete_queue(const std::string& queue, const Tenant& tenant);

  // --- Message administration (message_admin.cpp; docs/api-extensions.md):
  // traces, the message list/detail/delete, queue clearing, partitions, and
  // the DLQ requeue/delete. One procedure call each; JSON results are the
  // procedures' wire shapes, payloads decrypted (docs/encryption.md).
  std::optional<std::string> record_trace(const TraceRecord& trace);  // trace id; nullopt: no such message
  std::string message_traces(const std::string& partition_id, const std::string& transaction_id,
                             const Tenant& tenant);
  db::TracesByName traces_by_name(const std::string& trace_name, int limit, int offset, const Tenant& tenant,
                                  std::int64_t max_payload_bytes);
  std::string trace_names(int limit, int offset, const Tenant& tenant);
  std::string list_messages(const MessageListQuery& query);
  std::optional<db::ObjectWithPayload> get_message(const std::string& partition_id,
                                                   const std::string& transaction_id,
                                                   const Tenant& tenant);  // nullopt: no such message
  bool delete_message(const std::string& partition_id, const std::string& transaction_id, const Tenant& tenant);
  std::optional<std::int64_t> clear_queue(const std::string& queue, const std::optional<std::string>& partition,
                                          const Tenant& tenant);  // nullopt: no such queue/partition
  std::string list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                              const Tenant& tenant);
  bool dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                           const std::optional<std::string>& consumer_group, const std::optional<std::string>& error,
                           const Tenant& tenant);
  // Requeued entries (copies wake the pops of their queues).
  int requeue_dead_letters(const DlqSelection& selection);
  int delete_dead_letters(const DlqSelection& selection);
  // The new message's id; nullopt when the message has no DLQ entry.
  std::optional<std::string> retry_dead_message(const std::string& partition_id, const std::string& transaction_id,
                                                const Tenant& tenant);

  // A peer reconfigured `queue`: the list of encrypted queues is re-read
  // soon (never blocks; called on the mesh receive thread).
  void queue_reconfigured_elsewhere(const std::string& queue);

  // Maintenance flags: GET reads the persisted values (falling back to the
  // last known ones while the database is down); POST persists.
  MaintenanceStatus maintenance_status();
  MaintenanceStatus set_push_maintenance(bool enabled);
  MaintenanceStatus set_pop_maintenance(bool enabled);
  bool push_maintenance() const { return flags_.push(); }
  bool pop_maintenance() const { return flags_.pop(); }

  // Spool state from memory (defaults when no spool is attached).
  SpoolStatus spool_status() const;

  // A live database ping.
  DatabaseHealth database_health();
  db::PoolStats pool_stats() const { return db_.pool_stats(); }
  metrics::Gauges gauges() const;
  // The admission arbiter (docs/flow-control.md): pushes, pops, acks,
  // transactions and lease extensions take their database slots here, and
  // the spool's replay its Maint slots.
  flow::Arbiter& arbiter() { return arbiter_; }
  // The Read lane and the read statement timeout: every database-backed read
  // route's call goes through it (here, and in the Statistics, ConsumerGroups
  // and KvStore use cases).
  const ReadGate& reads() const { return reads_; }

 private:
  // Requests of `lane` queued in its combiner for a call (and so for that call's slot).
  std::size_t queued_for_call(flow::Lane lane) const;
  // push() once the items are minted: the items this broker may store or spool.
  PushOutcome push_admitted(std::vector<PushItem> items, const PushOrigin& origin);
  // push() when a broker without a key must refuse the items at `unsealable`
  // (their queue wants encryption): the others go through push_admitted.
  PushOutcome push_refusing(std::vector<PushItem> items, const std::vector<std::size_t>& unsealable,
                            const PushOrigin& origin);
  // The parts of push(): spool the items (maintenance or outage), store them
  // (empty on a transient failure: the caller spools them), and read the rows.
  PushOutcome push_unstored(const std::vector<PushItem>& items, UnstoredReason reason, const PushOrigin& origin);
  std::optional<std::vector<db::PushRow>> store_push(const std::vector<PushItem>& items, const PushOrigin& origin);
  // Items the database refused as plaintext for a queue that wants encryption
  // (this broker's list was stale): marked, sealed and stored once more.
  void resend_refused(std::vector<PushItem>& items, std::vector<db::PushRow>& rows, const PushOrigin& origin);
  // Pop: decrypts the messages, dead-letters those that cannot be (one call).
  void open_popped(std::vector<db::PoppedMessage>& messages, const std::optional<std::string>& consumer_group,
                   const Tenant& tenant);
  std::vector<PushItemResult> push_results(const std::vector<PushItem>& items, std::vector<db::PushRow> rows) const;
  void after_push_stored(const std::vector<PushItem>& items, const std::vector<PushItemResult>& results,
                         const Tenant& tenant);
  // Throws BrokerError TooManyRequests when a quota of `tenant` refuses `messages` more.
  void check_tenant_quotas(const Tenant& tenant, std::size_t messages);
  // Persists one flag, tells the peers, and answers the status the route renders.
  MaintenanceStatus set_maintenance(MaintenanceKind kind, bool enabled);
  // One run_transaction call; its result in `outcome`, summarized.
  TransactionSummary call_run_transaction(const TransactionCommand& command, const PushOrigin& origin,
                                          TransactionOutcome& outcome);
  // One stream_cycle call; its result in `outcome`, summarized.
  StreamCycleSummary call_stream_cycle(const StreamCycleCommand& command, const PushOrigin& origin,
                                       StreamOutcome& outcome);
  [[noreturn]] void rethrow_as_broker_error(const db::DbError& error, bool transient_is_unavailable = true);

  const config::Config config_;
  db::Procedures& db_;
  wake::PopWaiters& waiters_;
  metrics::Metrics& metrics_;
  const wake::RecheckPolicy recheck_policy_;
  MaintenanceFlags& flags_;
  SpoolBridge* const spool_;
  ClusterHooks* const cluster_;
  flow::Arbiter arbiter_;  // before the combiners, whose calls take its slots
  const ReadGate reads_;
  PushCombiner combiner_;
  AckCombiner ack_combiner_;
  PopCombiner pop_combiner_;
  PayloadEncryption encryption_;
  TenantQuotas quotas_;
  std::atomic<bool> stopping_{false};
};

}  // namespace queen::broker
