#pragma once
// The broker side of the spool (docs/operations-spool.md):
//   * push routing: after a transient push failure, pushes skip PostgreSQL and
//     go straight to the spool until the database answers again (a health
//     probe or a successful replay says so); while the spool still holds
//     events, a new push waits (bounded) for the drain to empty it so it never
//     overtakes them, and is spooled behind them when the wait runs out;
//   * spooling a push: PushItem -> SpoolEvent, in-request duplicates share the
//     spool write of their first occurrence, per-item `buffered`/`failed`;
//   * replay: the spool's ReplayStore over push_with_dedup (one call per batch,
//     per tenant and producer subject, through the broker's dedup cache),
//     failures classified by SQLSTATE, a
//     transient one followed by a ping so the drain tells an outage from a
//     batch the database will not take (spool/poison_policy.h); with
//     an encryption key, plaintext records of queues that want encryption are
//     sealed before they reach the database (docs/encryption.md);
//   * maintenance: the spool follows the push-maintenance flag;
//   * admission: each file's replay holds one Maint-lane slot of the broker's
//     admission arbiter (docs/flow-control.md), so replay never outranks live traffic.
// The pure parts are free functions so they are unit-testable without a
// database or a spool directory.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "broker/dedup_cache.h"
#include "broker/payload_encryption.h"
#include "broker/types.h"
#include "config/config.h"
#include "db/db_error.h"
#include "db/procedures.h"
#include "flow/arbiter.h"
#include "spool/replay.h"
#include "spool/spool.h"
#include "util/background_worker.h"

namespace queen::broker {

// ------------------------------------------------------------------ pure parts

// FILE_BUFFER_* as the spool module wants them.
spool::SpoolOptions spool_options_from(const config::SpoolConfig& config);

// --check-config: prints the spool directory a boot now would use (FILE_BUFFER_DIR or the per-user fallback,
// and why) to `out`, and to `err` a warning for the fallback or for a directory a running broker holds;
// creates and writes nothing. False when no directory is usable (the boot would refuse).
bool report_spool_directory(const config::SpoolConfig& config, std::ostream& out, std::ostream& err);

// One push item as a spool event, and back. The origin's tenant is empty for
// the default tenant (the record then omits it).
// push_item_of(to_spool_event(item, origin)) == item for every field, and
// origin_of(to_spool_event(item, origin)) == origin.
spool::SpoolEvent to_spool_event(const PushItem& item, const PushOrigin& origin);
PushItem push_item_of(const spool::SpoolEvent& event);
PushOrigin origin_of(const spool::SpoolEvent& event);

// Which items of one request are written to the spool: an item with the same
// (queue, partition, transactionId) as an earlier one is not written again and
// shares the outcome of that earlier item (its "twin"). A scheduled item
// (deliverAt) is spooled with its delivery time and replays as a timer.
struct SpoolPlan {
  std::vector<std::size_t> appended;  // item indices to append, in request order
  std::vector<std::size_t> twin;      // per item: index of the item whose write it shares (itself if appended)
};
SpoolPlan plan_spool_appends(const std::vector<PushItem>& items);

// Per-item results of a spooled push. `written[k]` tells whether the item
// plan.appended[k] reached the spool. Written items answer `buffered` with a
// provisional message id from `mint_id` (replay mints the real one); items
// not written answer `failed` with `write_error`; twins copy their original.
std::vector<PushItemResult> spooled_push_results(const std::vector<PushItem>& items, const SpoolPlan& plan,
                                                 const std::vector<bool>& written,
                                                 const std::function<std::string()>& mint_id,
                                                 const std::string& write_error);

// push_messages takes one origin (tenant and producer subject) per call, so a
// replay batch is cut into runs of consecutive events with the same origin:
// [begin, end) pairs.
std::vector<std::pair<std::size_t, std::size_t>> origin_runs(const std::vector<spool::SpoolEvent>& batch);

// The push items of events [begin, end) (push_item_of each, the original transactionId kept): a replay
// encodes and dedups them as a live push does (encode_push_items, dedup_items_of).
std::vector<PushItem> replay_items(const std::vector<spool::SpoolEvent>& batch, std::size_t begin, std::size_t end);

// A failed replay call: transient (retry later, keep the file) or permanent
// (the same bytes fail again), by db::classify_sqlstate.
spool::ReplayOutcome replay_outcome_of(const db::DbError& error);

// Where a push goes, given what the bridge knows right now.
enum class PushRoute {
  Database,      // the database is believed up and nothing is spooled
  Spool,         // the database is believed down, or spooled events cannot drain soon
  WaitForDrain,  // the database is up, spooled events must be stored first and the drain is running
};
// `drain_running`: the drain is neither paused nor in its transient-failure
// cooldown, so waiting for it can end before the handoff bound.
PushRoute decide_push_route(bool database_available, std::uint64_t spool_pending, bool drain_running);

// ------------------------------------------------------------------ the bridge

// probe_interval and handoff_wait derive from the spool's configuration
// (spool_bridge_options_from), so they have no default of their own.
struct SpoolBridgeOptions {
  // While the database is believed down, it is pinged this often
  // (FILE_BUFFER_FLUSH_MS): a success sends pushes back to it.
  std::chrono::milliseconds probe_interval{};
  // Longest time a push waits for the drain to empty the spool before it is
  // spooled behind the events already there (keeps per-partition order).
  std::chrono::milliseconds handoff_wait{};
  // How often a waiting push re-reads the spool's pending count.
  std::chrono::milliseconds handoff_poll{5};
};

// Derived from the spool config: probe every flush interval; a push waits for
// the drain at most 20 flush intervals (2 s by default), at least 500 ms.
SpoolBridgeOptions spool_bridge_options_from(const config::SpoolConfig& config);

class SpoolBridge final : public spool::ReplayStore, public spool::ReplayGate {
 public:
  // Called after replay stored messages in these queues (wakes local long
  // polls and broadcasts the mesh hint there), on the replaying thread and
  // outside every lock of the bridge.
  using CommittedHook = std::function<void(const std::set<std::string>& queues)>;

  // Builds the spool (directory with fallback, its lock, inventory of what is
  // on disk) with this object as its replay store. Throws
  // spool::SpoolDirectoryLocked when another broker holds the directory,
  // std::runtime_error when no spool directory is usable.
  SpoolBridge(db::Procedures& db, spool::SpoolOptions spool_options, SpoolBridgeOptions options,
              CommittedHook on_committed = {});
  ~SpoolBridge() override;  // stops the drain and the probe
  SpoolBridge(const SpoolBridge&) = delete;
  SpoolBridge& operator=(const SpoolBridge&) = delete;

  spool::Spool& spool() { return *spool_; }

  // Boot: replays what a previous process left (before the listener binds).
  // With push maintenance on, leftover active files are only finalized: the
  // drain replays them once maintenance is off.
  spool::RecoverySummary recover_at_startup(bool push_maintenance);
  // Starts the drain loop and the health probe. No-op when running.
  void start();
  // Stops both (waits for a cycle in progress); call before the database goes away.
  void stop();

  // Push path. May wait up to handoff_wait (see above).
  PushRoute route_push();
  // A push transaction failed transiently: later pushes skip the database.
  void note_database_unavailable(const std::string& why);
  // Appends the items and answers them `buffered` / `failed`.
  std::vector<PushItemResult> spool_push(const std::vector<PushItem>& items, const PushOrigin& origin,
                                         UnstoredReason reason);

  // The push-maintenance flag changed (POST, periodic refresh, boot, mesh):
  // on pauses the drain, off finalizes the active file and resumes it.
  // `generation` orders racing callers: a call with a generation not above
  // the last one followed is ignored (0: unordered, always followed).
  void follow_maintenance(bool enabled, std::uint64_t generation = 0);

  // The broker's payload encryption and push dedup cache, used by replay from
  // now on (nullptr: none; without a cache every replayed push scans its
  // partitions' whole dedup window). Set by the broker that owns them, and
  // cleared before they go away: waits for a replay in progress.
  void replay_with(PayloadEncryption* encryption, DedupCache* dedup);
  // The arbiter whose Maint lane admits each replayed file (nullptr: every
  // file is admitted). Set by the broker that owns it, and cleared before it
  // goes away: waits for a file's replay in progress.
  void admit_replays_through(flow::Arbiter* arbiter);

  // Gauges and status routes: from memory, never touches the database.
  SpoolStatus status() const;
  bool database_available() const { return database_available_.load(); }

  // spool::ReplayStore (the drain's lanes, concurrently for different groups, or recovery before it runs).
  spool::ReplayOutcome replay(const std::vector<spool::SpoolEvent>& batch) override;
  // spool::ReplayGate (the drain, before each file): a Maint slot, or null
  // when none came within QUEEN_FLOW_MAINT_WAIT_MS (the file waits for the next cycle).
  std::unique_ptr<spool::ReplayPermit> admit() override;

 private:
  void mark_database_available(const char* how);
  void mark_database_unavailable(const std::string& why);
  void probe_database();
  // One ping; a failure marks the database unavailable.
  bool database_answers();
  void notify_committed(const std::set<std::string>& queues) const;
  PushRoute current_route() const;
  // Stores the events [begin, end) of one origin (replay holds lent_mutex_ shared).
  std::vector<db::PushRow> store_replay_run(const std::vector<spool::SpoolEvent>& batch, std::size_t begin,
                                            std::size_t end);
  // One push call of `items` (the encoded p_items of `keys`), through dedup_ when set.
  std::vector<db::PushRow> push(const std::string& items, const std::vector<DedupItem>& keys,
                                const PushOrigin& origin);

  db::Procedures& db_;
  const SpoolBridgeOptions options_;
  const CommittedHook on_committed_;  // set at construction only: read without a lock

  // Held (shared: the drain's lanes replay concurrently) by replay for its whole
  // call, so the broker can take its encryption and dedup cache back safely.
  std::shared_mutex lent_mutex_;
  PayloadEncryption* encryption_ = nullptr;  // guarded by lent_mutex_
  DedupCache* dedup_ = nullptr;              // guarded by lent_mutex_

  // Held (shared) by every replay permit, so the broker can take its arbiter back safely.
  std::shared_mutex arbiter_mutex_;
  flow::Arbiter* arbiter_ = nullptr;  // guarded by arbiter_mutex_

  std::atomic<bool> database_available_{true};
  std::mutex maintenance_mutex_;
  std::optional<bool> maintenance_;  // last flag the spool was told; unset = never told
  std::uint64_t maintenance_generation_ = 0;  // guarded by maintenance_mutex_

  // Pushes waiting for the drain to empty the spool (route_push).
  std::mutex handoff_mutex_;
  std::condition_variable handoff_changed_;

  // While the database is believed down, pings it every probe_interval.
  util::BackgroundWorker probe_;

  // Last member: destroyed first, so the drain stops before the rest goes.
  std::unique_ptr<spool::Spool> spool_;
};

}  // namespace queen::broker
