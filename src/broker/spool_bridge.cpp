#include "broker/spool_bridge.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <tuple>

#include <spdlog/spdlog.h>

#include "broker/encoding.h"
#include "db/item_index.h"
#include "spool/spool_log.h"
#include "util/uuid.h"

namespace queen::broker {
namespace {

constexpr const char* kSpoolWriteFailedOutage =
    "database unavailable and the spool write failed (disk full or I/O error): the item was not accepted";
constexpr const char* kSpoolWriteFailedMaintenance =
    "push maintenance is on and the spool write failed (disk full or I/O error): the item was not accepted";

// Bounds of the push handoff wait (see spool_bridge_options_from).
constexpr int kHandoffWaitFlushIntervals = 20;
constexpr std::chrono::milliseconds kMinHandoffWait{500};

// The fields a push item and a spool event share, by the same names, copied either way.
template <typename From, typename To>
void copy_item_fields(const From& from, To& to) {
  to.queue = from.queue;
  to.partition = from.partition;
  to.transaction_id = from.transaction_id;
  to.trace_id = from.trace_id;
  to.namespace_name = from.namespace_name;
  to.task = from.task;
  to.deliver_at_ms = from.deliver_at_ms;
  to.encrypted = from.encrypted;
  to.payload_json = from.payload_json;
}

}  // namespace

// ------------------------------------------------------------------ pure parts

spool::SpoolOptions spool_options_from(const config::SpoolConfig& config) {
  spool::SpoolOptions options;
  options.dir = config.dir;
  options.flush_interval = std::chrono::milliseconds(config.flush_ms);
  options.events_per_file = static_cast<std::size_t>(config.events_per_file);
  options.fsync = config.fsync;
  options.drain.max_batch = static_cast<std::size_t>(config.max_batch);
  options.drain.max_batch_bytes = static_cast<std::uint64_t>(config.max_batch_bytes);
  options.drain.poison_attempts = static_cast<unsigned>(config.poison_attempts);
  options.drain.replay_lanes = static_cast<std::size_t>(config.replay_lanes);
  return options;
}

bool report_spool_directory(const config::SpoolConfig& config, std::ostream& out, std::ostream& err) {
  const spool::SpoolDirectoryCheck check =
      spool::check_spool_directory(config.dir, spool::per_user_fallback_directory());
  for (const auto& line : check.lines) out << line << "\n";
  for (const auto& warning : check.warnings) err << "queen-broker: warning: spool: " << warning << "\n";
  if (!check.error.empty()) err << "queen-broker: spool: " << check.error << "\n";
  return check.error.empty();
}

SpoolBridgeOptions spool_bridge_options_from(const config::SpoolConfig& config) {
  SpoolBridgeOptions options;
  options.probe_interval = std::chrono::milliseconds(config.flush_ms);
  options.handoff_wait = std::max(kMinHandoffWait, options.probe_interval * kHandoffWaitFlushIntervals);
  return options;
}

spool::SpoolEvent to_spool_event(const PushItem& item, const PushOrigin& origin) {
  spool::SpoolEvent event(origin.tenant);
  copy_item_fields(item, event);
  event.producer_sub = origin.producer_sub;
  return event;
}

PushItem push_item_of(const spool::SpoolEvent& event) {
  PushItem item;
  copy_item_fields(event, item);
  return item;
}

PushOrigin origin_of(const spool::SpoolEvent& event) { return PushOrigin{event.tenant, event.producer_sub}; }

SpoolPlan plan_spool_appends(const std::vector<PushItem>& items) {
  SpoolPlan plan;
  plan.twin.resize(items.size());
  std::map<std::tuple<const std::string&, const std::string&, const std::string&>, std::size_t> first_of;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto key = std::tie(items[i].queue, items[i].partition, items[i].transaction_id);
    const auto [it, inserted] = first_of.emplace(key, i);
    plan.twin[i] = it->second;
    if (inserted) plan.appended.push_back(i);
  }
  return plan;
}

std::vector<PushItemResult> spooled_push_results(const std::vector<PushItem>& items, const SpoolPlan& plan,
                                                 const std::vector<bool>& written,
                                                 const std::function<std::string()>& mint_id,
                                                 const std::string& write_error) {
  std::vector<PushItemResult> results(items.size());
  for (std::size_t k = 0; k < plan.appended.size(); ++k) {
    const std::size_t i = plan.appended[k];
    PushItemResult& r = results[i];
    if (k < written.size() && written[k]) {
      r.status = PushStatus::Buffered;
      r.message_id = mint_id();  // provisional: replay mints the id the message is stored under
    } else {
      r.status = PushStatus::Failed;
      r.error = write_error;
    }
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    PushItemResult& r = results[i];
    if (plan.twin[i] != i) {
      const PushItemResult& original = results[plan.twin[i]];
      r.status = original.status;
      r.message_id = original.message_id;
      r.error = original.error;
    }
    r.index = static_cast<int>(i);
    r.transaction_id = items[i].transaction_id;
    r.trace_id = items[i].trace_id;
    r.queue = items[i].queue;
    r.partition = items[i].partition;
  }
  return results;
}

std::vector<std::pair<std::size_t, std::size_t>> origin_runs(const std::vector<spool::SpoolEvent>& batch) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= batch.size(); ++i) {
    if (i == batch.size() || batch[i].producer_sub != batch[begin].producer_sub ||
        batch[i].tenant != batch[begin].tenant) {
      runs.emplace_back(begin, i);
      begin = i;
    }
  }
  return runs;
}

std::vector<PushItem> replay_items(const std::vector<spool::SpoolEvent>& batch, std::size_t begin, std::size_t end) {
  std::vector<PushItem> items;
  items.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) items.push_back(push_item_of(batch[i]));
  return items;
}

spool::ReplayOutcome replay_outcome_of(const db::DbError& error) {
  std::string message = error.what();
  if (!error.sqlstate().empty()) message = "SQLSTATE " + error.sqlstate() + ": " + message;
  if (error.transient()) return spool::ReplayOutcome::transient(std::move(message));
  return spool::ReplayOutcome::permanent(std::move(message));
}

PushRoute decide_push_route(bool database_available, std::uint64_t spool_pending, bool drain_running) {
  if (!database_available) return PushRoute::Spool;
  if (spool_pending == 0) return PushRoute::Database;
  return drain_running ? PushRoute::WaitForDrain : PushRoute::Spool;
}

// ------------------------------------------------------------------ the bridge

SpoolBridge::SpoolBridge(db::Procedures& db, spool::SpoolOptions spool_options, SpoolBridgeOptions options,
                         CommittedHook on_committed)
    : db_(db),
      options_(options),
      on_committed_(std::move(on_committed)),
      probe_("spool-probe", util::real_clock(),
             [this] {
               probe_database();
               return probe_.clock().now() + options_.probe_interval;
             },
             options.probe_interval) {
  spool_ = std::make_unique<spool::Spool>(std::move(spool_options), *this, util::real_clock());
}

SpoolBridge::~SpoolBridge() {
  stop();
  spool_.reset();
}

spool::RecoverySummary SpoolBridge::recover_at_startup(bool push_maintenance) {
  if (push_maintenance) {
    // A zero budget finalizes leftover .tmp files and replays nothing: the
    // spool must keep accumulating while the database is being worked on.
    spool::spool_log()->info("push maintenance is on: startup recovery only finalizes leftover files; "
                             "the drain replays them once maintenance is off");
    return spool_->drain().recover_at_startup(std::chrono::milliseconds(0));
  }
  return spool_->recover_at_startup();
}

void SpoolBridge::start() {
  if (probe_.running()) return;
  // Before the drain starts: every file it replays takes a Maint slot first.
  spool_->drain().set_replay_gate(this);
  spool_->start_drain();
  probe_.start(probe_.clock().now() + options_.probe_interval);
}

void SpoolBridge::stop() {
  probe_.stop();
  if (spool_) spool_->stop_drain();
}

PushRoute SpoolBridge::current_route() const {
  const spool::SpoolDrain& drain = spool_->drain();
  return decide_push_route(database_available(), spool_->stats().pending_events,
                           !drain.paused() && !drain.cooling_down());
}

PushRoute SpoolBridge::route_push() {
  PushRoute route = current_route();
  if (route != PushRoute::WaitForDrain) return route;
  // The database is back but older events are still spooled: let the drain
  // store them first (pushes stop feeding the active file meanwhile, so the
  // drain catches up), then go to the database behind them.
  const auto deadline = std::chrono::steady_clock::now() + options_.handoff_wait;
  std::unique_lock lock(handoff_mutex_);
  while (std::chrono::steady_clock::now() < deadline) {
    // Polled: the pending count drops inside the spool, which signals nobody.
    handoff_changed_.wait_for(lock, options_.handoff_poll);
    route = current_route();
    if (route != PushRoute::WaitForDrain) return route;
  }
  // Still not drained: behind the spooled events is the only place that keeps their order.
  return PushRoute::Spool;
}

void SpoolBridge::note_database_unavailable(const std::string& why) { mark_database_unavailable(why); }

std::vector<PushItemResult> SpoolBridge::spool_push(const std::vector<PushItem>& items, const PushOrigin& origin,
                                                    UnstoredReason reason) {
  const SpoolPlan plan = plan_spool_appends(items);
  std::vector<spool::SpoolEvent> events;
  events.reserve(plan.appended.size());
  for (const std::size_t i : plan.appended) events.push_back(to_spool_event(items[i], origin));
  const std::vector<bool> written = spool_->append(events);
  const char* error =
      reason == UnstoredReason::PushMaintenance ? kSpoolWriteFailedMaintenance : kSpoolWriteFailedOutage;
  return spooled_push_results(items, plan, written, util::new_uuid_v7, error);
}

void SpoolBridge::follow_maintenance(bool enabled, std::uint64_t generation) {
  std::lock_guard lock(maintenance_mutex_);
  if (generation != 0) {
    if (generation <= maintenance_generation_) return;  // a newer change was followed already
    maintenance_generation_ = generation;
  }
  if (maintenance_ == enabled) return;
  const bool first = !maintenance_.has_value();
  maintenance_ = enabled;
  spool_->set_maintenance(enabled);
  if (enabled) {
    spool::spool_log()->info("push maintenance on: pushes go to the spool, the drain is paused");
  } else if (!first) {
    spool::spool_log()->info("push maintenance off: active spool file finalized, the drain resumes");
  }
}

SpoolStatus SpoolBridge::status() const {
  const spool::SpoolStats s = spool_->stats();
  SpoolStatus out;
  out.pending = s.pending_events;
  out.failed = s.failed_events;
  out.db_healthy = s.db_healthy;
  // The spool is healthy while it can take writes: a usable directory (the
  // spool exists) and the latest append succeeded.
  out.healthy = !s.last_append_failed;
  out.files = s.finalized_files;
  out.bytes = s.bytes;
  out.failed_files = s.failed_files;
  out.failed_bytes = s.failed_bytes;
  const spool::SpoolDirectory& directory = spool_->directory();
  out.directory = directory.path.string();
  out.configured_directory = directory.requested;
  out.directory_fallback = directory.fell_back;
  out.fallback_reason = directory.fallback_reason;
  return out;
}

void SpoolBridge::replay_with(PayloadEncryption* encryption, DedupCache* dedup) {
  std::lock_guard lock(lent_mutex_);
  encryption_ = encryption;
  dedup_ = dedup;
}

void SpoolBridge::admit_replays_through(flow::Arbiter* arbiter) {
  std::lock_guard lock(arbiter_mutex_);
  arbiter_ = arbiter;
}

namespace {

// One file's replay: a Maint slot (none without an arbiter), and the bridge's
// arbiter lock so the arbiter outlives the slot. The slot goes first.
class ReplaySlot final : public spool::ReplayPermit {
 public:
  ReplaySlot(std::shared_lock<std::shared_mutex> lock, flow::Permit slot)
      : lock_(std::move(lock)), slot_(std::move(slot)) {}

 private:
  std::shared_lock<std::shared_mutex> lock_;
  flow::Permit slot_;
};

}  // namespace

std::unique_ptr<spool::ReplayPermit> SpoolBridge::admit() {
  std::shared_lock lock(arbiter_mutex_);
  if (arbiter_ == nullptr) return std::make_unique<ReplaySlot>(std::move(lock), flow::Permit());
  flow::Permit slot = arbiter_->acquire(flow::Lane::Maint);
  if (!slot) return nullptr;
  return std::make_unique<ReplaySlot>(std::move(lock), std::move(slot));
}

std::vector<db::PushRow> SpoolBridge::push(const std::string& items, const std::vector<DedupItem>& keys,
                                           const PushOrigin& origin) {
  if (dedup_ == nullptr) return db_.push_messages(items, origin);
  return push_with_dedup(db_, *dedup_, items, origin, keys);
}

std::vector<db::PushRow> SpoolBridge::store_replay_run(const std::vector<spool::SpoolEvent>& batch,
                                                       std::size_t begin, std::size_t end) {
  const PushOrigin origin = origin_of(batch[begin]);
  std::vector<PushItem> items = replay_items(batch, begin, end);
  if (encryption_ == nullptr || !encryption_->enabled()) {
    std::vector<db::PushRow> rows = push(encode_push_items(items), dedup_items_of(items), origin);
    // Without a key a refused record cannot be sealed: it fails, and the
    // drain's rule for refused events quarantines it (docs/encryption.md).
    if (encryption_ != nullptr) encryption_->fail_refused(origin.tenant, rows);
    return rows;
  }
  // A record spooled in plaintext while this broker's encrypted queue set was
  // stale is sealed now, before the database: by the set, or (keyHeld) after
  // the database refused it, as on a live push.
  encryption_->seal_items(origin.tenant, items);
  std::vector<db::PushRow> rows = push(encode_push_items(items), dedup_items_of(items), origin);
  const RefusedPlaintext refused = encryption_->seal_refused(origin.tenant, items, rows, "push_messages (replay)");
  if (!refused.rows.empty()) {
    take_resent_answers(rows, refused.rows,
                        push(encode_push_items(refused.resend), dedup_items_of(refused.resend), origin));
  }
  return rows;
}

spool::ReplayOutcome SpoolBridge::replay(const std::vector<spool::SpoolEvent>& batch) {
  // Past the push combiner: one call per batch (per run of one tenant and
  // producer subject; a call stores many partitions), called concurrently by
  // the drain's lanes for batches of different partitions, original
  // transactionIds kept, so a batch an earlier attempt committed comes back
  // `duplicate` and writes nothing. The dedup cache only spares the database
  // the scan of what it vouches for; the database decides.
  std::shared_lock lent_lock(lent_mutex_);
  std::set<std::string> stored_queues;
  std::string rejected;
  for (const auto& [begin, end] : origin_runs(batch)) {
    std::vector<bool> answered(end - begin, false);
    try {
      const std::vector<db::PushRow> rows = store_replay_run(batch, begin, end);
      for (const auto& row : rows) {
        // An index outside the batch throws a permanent DbError: the same bytes would fail the same way.
        answered[db::item_index_of(row.idx, answered.size(), "push_messages (replay)")] = true;
        if (row.status == "queued") stored_queues.insert(row.queue_name.empty() ? batch[begin].queue : row.queue_name);
        // `failed` rows (maxSize reached): not stored now, and retrying the same
        // bytes soon fails the same way; the drain's permanent-failure rule decides.
        // So is a refusal the re-send did not answer.
        if ((row.status == "failed" || row.status == kEncryptionRequiredStatus) && rejected.empty())
          rejected = "transactionId " + row.transaction_id + ": " + row.error.value_or("not stored");
      }
    } catch (const db::DbError& e) {
      spool::ReplayOutcome outcome = replay_outcome_of(e);
      // Only a lost connection is spool mode (db/sqlstate.h); a lock timeout on
      // a contended partition is retried later like any transient failure.
      if (e.connection_lost()) {
        // An outage, or PostgreSQL dropping a call it cannot take? A ping
        // tells; the drain counts the latter toward quarantine, never the former.
        if (database_answers()) {
          outcome.database_answered = true;
        } else {
          mark_database_unavailable(outcome.error);
        }
      }
      notify_committed(stored_queues);
      return outcome;
    } catch (const std::exception& e) {
      // Not the database's answer: the broker could not build the call (an
      // event it cannot encode). The same bytes fail the same way.
      notify_committed(stored_queues);
      return spool::ReplayOutcome::permanent(std::string("cannot build the replay call: ") + e.what());
    }
    if (rejected.empty() && std::find(answered.begin(), answered.end(), false) != answered.end())
      rejected = "the database returned no result for an item (its queue was deleted meanwhile?)";
  }
  mark_database_available("a replay batch was stored");
  notify_committed(stored_queues);
  if (!rejected.empty()) return spool::ReplayOutcome::permanent(rejected);
  return spool::ReplayOutcome::ok();
}

void SpoolBridge::mark_database_available(const char* how) {
  spool_->set_db_healthy(true);
  if (!database_available_.exchange(true)) {
    spool::spool_log()->info("database reachable again ({}): pushes return to PostgreSQL once the spool has "
                             "drained ({} events pending)",
                             how, spool_->stats().pending_events);
  }
}

void SpoolBridge::mark_database_unavailable(const std::string& why) {
  spool_->set_db_healthy(false);
  if (database_available_.exchange(false)) {
    spool::spool_log()->warn("database unavailable ({}): pushes go straight to the spool until it answers again",
                             why);
  }
  // Pushes waiting for the drain stop waiting: the drain cannot finish now.
  handoff_changed_.notify_all();
}

void SpoolBridge::notify_committed(const std::set<std::string>& queues) const {
  if (!queues.empty() && on_committed_) on_committed_(queues);
}

void SpoolBridge::probe_database() {
  // Only while someone believes the database is down: the push path, or the
  // drain (e.g. after a failed startup recovery with nothing left to replay).
  if (database_available() && spool_->stats().db_healthy) return;
  if (database_answers()) mark_database_available("health probe");
}

bool SpoolBridge::database_answers() {
  try {
    db_.ping();
    return true;
  } catch (const db::DbError& e) {
    mark_database_unavailable(e.what());
    return false;
  }
}

}  // namespace queen::broker
