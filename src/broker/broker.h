#pragma once
// The use cases of the broker: one procedure call per request (or per group
// of concurrent pushes), composed with the long-poll waker, the maintenance
// flags and the metrics. Transport-neutral: the http layer parses and
// validates, calls one method here, and renders the result.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "broker/broker_error.h"
#include "broker/cluster_hooks.h"
#include "broker/push_combiner.h"
#include "broker/transactions.h"
#include "broker/types.h"
#include "config/config.h"
#include "db/db_error.h"
#include "db/procedures.h"
#include "metrics/metrics.h"
#include "wake/long_poll.h"
#include "wake/pop_waiters.h"

namespace queen::broker {

class SpoolBridge;

class Broker {
 public:
  Broker(const config::Config& config, db::Procedures& db, wake::PopWaiters& waiters, metrics::Metrics& metrics);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // Reads the persisted maintenance flags (best effort) and starts the
  // periodic flag refresh.
  void start();
  // Stops background work and releases every parked long poll (answering
  // empty), so in-flight requests drain quickly.
  void begin_shutdown();

  // POST /api/v1/configure: returns the procedure's JSON result.
  std::string configure(const std::string& queue, const std::string& namespace_name, const std::string& task,
                        const std::string& options_json);

  // POST /api/v1/push. Items are validated by the caller.
  PushOutcome push(std::vector<PushItem> items, const std::optional<std::string>& producer_sub);

  // The single place where a push that PostgreSQL did not store is handled:
  // with a spool attached the items are spooled (`buffered`, or `failed` when
  // the spool write fails); without one every item answers `failed`.
  std::vector<PushItemResult> handle_unstored_push(const std::vector<PushItem>& items, UnstoredReason reason,
                                                   const std::optional<std::string>& producer_sub = std::nullopt);

  // The spool (seed "Surviving a PostgreSQL outage"). Attach before start();
  // null (the default) means no spool: unstored pushes fail.
  void attach_spool(SpoolBridge* spool) { spool_ = spool; }

  // The mesh and the local sweeper (broker::Cluster). Attach before the HTTP
  // server starts; detach (null) before the hooks are destroyed. Null (the
  // default): a single broker with in-process wake-ups only.
  void attach_cluster(ClusterHooks* cluster) { cluster_.store(cluster); }

  // Re-reads the maintenance flags from the database on the refresh thread
  // now instead of at its next period (a peer said a flag flipped: the frame
  // says "look", the database says what). Never blocks.
  void request_flag_refresh();

  // Wakes local long polls (and, with the mesh, peers) for queues that just
  // received committed messages: the live push path and the spool replay.
  void after_push_committed(const std::set<std::string>& queues);

  // The three pop forms, answered through `done` exactly once (with an
  // exception for a failure), on whichever thread ends the poll. The first
  // attempt runs on the calling thread; a long poll then parks without a
  // thread and re-attempts through `executor`. `client_gone` is asked before
  // every database attempt so an abandoned long poll never claims a lease.
  using PopDone = std::function<void(PopOutcome, std::exception_ptr)>;
  void pop(const PopCommand& command, std::function<bool()> client_gone, wake::Executor executor, PopDone done);

  // POST /api/v1/ack and /ack/batch (results in request order).
  std::vector<AckResult> ack(const std::vector<AckItem>& items, const std::optional<std::string>& consumer_group);

  // POST /api/v1/lease/:leaseId/extend.
  LeaseExtension extend_lease(const std::string& lease_id, int seconds);

  // POST /api/v1/transaction (transactions.cpp): one run_transaction call;
  // business failures come back as success:false, an outage as Unavailable.
  TransactionOutcome run_transaction(TransactionCommand command, const std::optional<std::string>& producer_sub);

  // GET /api/v1/dlq and DELETE /api/v1/resources/queues/:queue (admin.cpp).
  // delete_queue returns whether the queue existed.
  DlqPage list_dlq(const DlqQuery& query);
  bool delete_queue(const std::string& queue);

  // Maintenance flags: GET reads the persisted values (falling back to the
  // last known ones while the database is down); POST persists.
  MaintenanceStatus maintenance_status();
  MaintenanceStatus set_push_maintenance(bool enabled);
  MaintenanceStatus set_pop_maintenance(bool enabled);
  // The one place the push-maintenance flag changes in memory (POST, the
  // periodic refresh, boot, and a mesh flag frame): logs a change and makes
  // the spool follow (on: pause the drain; off: finalize and resume it).
  void apply_push_maintenance(bool enabled, const char* source);
  bool push_maintenance() const { return push_maintenance_.load(std::memory_order_relaxed); }
  bool pop_maintenance() const { return pop_maintenance_.load(std::memory_order_relaxed); }

  // Spool state from memory (defaults when no spool is attached).
  SpoolStatus spool_status() const;

  // A live database ping.
  DatabaseHealth database_health();
  db::PoolStats pool_stats() const { return db_.pool_stats(); }
  metrics::Gauges gauges() const;

  // Wakes local long polls for queues that just received committed messages
  // (a push here, or a mesh hint from a peer).
  void notify_queues(const std::set<std::string>& queues);

 private:
  void refresh_flags();
  void begin_flag_write();
  void flag_refresh_loop();
  [[noreturn]] void rethrow_as_broker_error(const db::DbError& error, bool transient_is_unavailable = true);

  const config::Config config_;
  db::Procedures& db_;
  wake::PopWaiters& waiters_;
  metrics::Metrics& metrics_;
  const wake::RecheckPolicy recheck_policy_;
  PushCombiner combiner_;
  SpoolBridge* spool_ = nullptr;
  std::atomic<ClusterHooks*> cluster_{nullptr};
  bool flag_refresh_requested_ = false;  // guarded by background_mutex_

  std::atomic<bool> push_maintenance_{false};
  std::atomic<bool> pop_maintenance_{false};
  // A database read of the flags may predate a POST that changes them; the
  // POST bumps flag_writes_ (before and after its write) and the refresh
  // applies what it read only if no write happened meanwhile, under
  // flags_mutex_, so a stale read can never undo a POST.
  std::mutex flags_mutex_;
  std::uint64_t flag_writes_ = 0;  // guarded by flags_mutex_
  std::atomic<bool> stopping_{false};

  std::mutex background_mutex_;
  std::condition_variable background_wake_;
  std::thread flag_refresher_;
};

}  // namespace queen::broker
