#include "broker/broker.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "broker/admission.h"
#include "broker/encoding.h"
#include "broker/pop_wakes.h"
#include "broker/spool_bridge.h"
#include "db/item_index.h"
#include "util/json_text.h"
#include "util/uuid.h"

namespace queen::broker {
namespace {

// `value`, or `fallback` when the database left the column empty.
std::string nonempty_or(std::string value, const std::string& fallback) {
  return value.empty() ? fallback : value;
}

std::uint64_t accepted_items(const std::vector<PushItemResult>& results) {
  return static_cast<std::uint64_t>(std::count_if(results.begin(), results.end(),
                                                  [](const PushItemResult& r) { return r.status != PushStatus::Failed; }));
}

// The answer to push item `index` that was not stored, and why.
PushItemResult failed_push_result(const PushItem& item, std::size_t index, std::string error) {
  PushItemResult r;
  r.index = static_cast<int>(index);
  r.status = PushStatus::Failed;
  r.transaction_id = item.transaction_id;
  r.trace_id = item.trace_id;
  r.queue = item.queue;
  r.partition = item.partition;
  r.error = std::move(error);
  return r;
}

PushStatus parse_push_status(const std::string& status) {
  if (status == "queued") return PushStatus::Queued;
  if (status == "duplicate") return PushStatus::Duplicate;
  if (status == "buffered") return PushStatus::Buffered;
  return PushStatus::Failed;
}

}  // namespace

const char* to_string(PushStatus status) noexcept {
  switch (status) {
    case PushStatus::Queued: return "queued";
    case PushStatus::Duplicate: return "duplicate";
    case PushStatus::Buffered: return "buffered";
    case PushStatus::Failed: return "failed";
  }
  return "failed";
}

Broker::Broker(const config::Config& config, db::Procedures& db, wake::PopWaiters& waiters,
               metrics::Metrics& metrics, MaintenanceFlags& flags, SpoolBridge* spool, ClusterHooks* cluster)
    : config_(config),
      db_(db),
      waiters_(waiters),
      metrics_(metrics),
      recheck_policy_(wake::RecheckPolicy::from(config.pop)),
      flags_(flags),
      spool_(spool),
      cluster_(cluster),
      arbiter_(flow::flow_limits_from(config.flow), waiters_.clock()),
      reads_(arbiter_, std::chrono::milliseconds(config.flow.read_statement_timeout_ms)),
      combiner_([&db](const std::string& items, const PushOrigin& origin) { return db.push_messages(items, origin); },
                db::is_transient_failure, config.push.combine_max_items, config.push.max_concurrent_calls, &arbiter_,
                static_cast<std::size_t>(config.push.combine_max_bytes)),
      ack_combiner_([&db](const std::string& acks, const std::optional<std::string>& group,
                          const Tenant& tenant) { return db.ack_messages(acks, group, tenant); },
                    [&db](const std::string& requests, const Tenant& tenant) {
                      return db.ack_many(requests, tenant);
                    },
                    db::is_transient_failure, config.combine.ack_max_items, config.combine.ack_max_concurrent_calls,
                    &arbiter_, static_cast<std::size_t>(config.combine.ack_max_bytes)),
      pop_combiner_([&db](const db::PopRequest& request) { return db.pop_messages(request); },
                    [&db](int requests, const db::PopRequest& request) { return db.pop_many(requests, request); },
                    db::is_transient_failure, config.combine.pop_max_messages, config.combine.pop_max_concurrent_calls,
                    &arbiter_),
      encryption_(config, db),
      quotas_(config.tenant_quotas, [&db](const Tenant& tenant) { return db.tenant_quota_state(tenant); }) {
  encryption_.start();
  if (spool_ != nullptr) {
    spool_->seal_replays_with(&encryption_);
    spool_->admit_replays_through(&arbiter_);
  }
}

Broker::~Broker() {
  begin_shutdown();
  if (spool_ != nullptr) {
    spool_->admit_replays_through(nullptr);
    spool_->seal_replays_with(nullptr);
  }
}

void Broker::begin_shutdown() {
  if (stopping_.exchange(true)) return;
  waiters_.notify_all();
  encryption_.stop();
}

void Broker::rethrow_as_broker_error(const db::DbError& e, bool transient_is_unavailable) {
  rethrow_db_failure(e, metrics_, transient_is_unavailable);
}

// ---------------------------------------------------------------- configure

namespace {

// The configure result's options.encryptionEnabled.
bool encryption_requested(const std::string& configured_json) {
  const nlohmann::json configured = nlohmann::json::parse(configured_json, nullptr, false);
  if (configured.is_discarded() || !configured.contains("options")) return false;
  const nlohmann::json& options = configured["options"];
  return options.is_object() && options.value("encryptionEnabled", false);
}

// The keys of the requested options that the configured queue's options
// (every option the database knows, echoed back) do not have, in key order.
std::vector<std::string> unknown_option_keys(const std::string& requested_json, const std::string& configured_json) {
  std::vector<std::string> unknown;
  const nlohmann::json requested = nlohmann::json::parse(requested_json, nullptr, false);
  const nlohmann::json configured = nlohmann::json::parse(configured_json, nullptr, false);
  if (!requested.is_object() || configured.is_discarded() || !configured.contains("options")) return unknown;
  const nlohmann::json& known = configured["options"];
  if (!known.is_object()) return unknown;
  for (auto it = requested.begin(); it != requested.end(); ++it) {
    if (!known.contains(it.key())) unknown.push_back(it.key());
  }
  return unknown;
}

// Names the unknown option keys (at most kNamedUnknownOptions of them).
std::string unknown_options_warning(const std::vector<std::string>& keys) {
  constexpr std::size_t kNamedUnknownOptions = 10;
  std::string out = keys.size() == 1 ? "unknown option ignored: " : "unknown options ignored: ";
  for (std::size_t i = 0; i < keys.size() && i < kNamedUnknownOptions; ++i) {
    if (i) out += ", ";
    out += keys[i];
  }
  if (keys.size() > kNamedUnknownOptions) out += " and " + std::to_string(keys.size() - kNamedUnknownOptions) + " more";
  out += " (configure is a full replace: every option not given has its default)";
  return out;
}

// `result_json` (an object) with a `warning` field added, the others untouched.
std::string with_warning(std::string result_json, const std::string& warning) {
  const std::size_t close = result_json.rfind('}');
  if (close == std::string::npos) return result_json;
  std::string field = ",\"warning\":";
  util::append_json_string(field, warning);
  result_json.insert(close, field);
  return result_json;
}

}  // namespace

std::string Broker::configure(const std::string& queue, const std::string& namespace_name, const std::string& task,
                              const std::string& options_json, const Tenant& tenant) {
  try {
    std::string result = db_.configure_queue(queue, namespace_name, task, options_json, tenant).result_json;
    const bool wants_encryption = encryption_requested(result);
    encryption_.note_configured(tenant, queue, wants_encryption);
    // One `warning` for every note: what the request asked that was not done.
    std::string warning;
    // A misspelled option is not refused (clients send options we do not act
    // on), but not silent either: its real option was reset to its default.
    if (const std::vector<std::string> unknown = unknown_option_keys(options_json, result); !unknown.empty()) {
      warning = unknown_options_warning(unknown);
    }
    if (wants_encryption && !encryption_.enabled()) {
      // Said where the operator turns it on rather than pretend (docs/encryption.md).
      spdlog::warn("configure: queue {} asks for encryptionEnabled, but this broker has no "
                   "QUEEN_ENCRYPTION_KEY: pushes to it are refused by brokers without a key",
                   queue);
      if (!warning.empty()) warning += "; ";
      warning += kNoEncryptionKeyWarning;
    }
    if (!warning.empty()) result = with_warning(std::move(result), warning);
    if (cluster_ != nullptr) cluster_->queue_configured(queue);
    return result;
  } catch (const db::DbError& e) {
    // A database failure on configure is a 500 (unexpected server error), not a 503.
    rethrow_as_broker_error(e, /*transient_is_unavailable=*/false);
  }
}

void Broker::queue_reconfigured_elsewhere(const std::string& queue) {
  (void)queue;  // the whole list is re-read: it also tells which queues stopped wanting encryption
  encryption_.refresh_soon();
}

// --------------------------------------------------------------------- push

void Broker::check_tenant_quotas(const Tenant& tenant, std::size_t messages) {
  if (!quotas_.enabled()) return;
  if (std::optional<QuotaRefusal> refusal = quotas_.admit(tenant, messages)) {
    throw BrokerError(ErrorKind::TooManyRequests, refusal->error, refusal->retry_after_s);
  }
}

PushOutcome Broker::push(std::vector<PushItem> items, const PushOrigin& origin) {
  if (items.empty()) return {};
  check_tenant_quotas(origin.tenant, items.size());
  // Minted here rather than in SQL so the spool keeps the same id a retry
  // would carry, and the response can always name the item.
  for (auto& item : items) {
    if (item.transaction_id.empty()) item.transaction_id = util::new_uuid_v7();
  }
  // Before any path can store or spool them: a broker without a key cannot
  // seal a payload of an encrypted queue, so it never takes one.
  const std::vector<std::size_t> unsealable = encryption_.unsealable(origin.tenant, items);
  if (!unsealable.empty()) return push_refusing(std::move(items), unsealable, origin);
  return push_admitted(std::move(items), origin);
}

PushOutcome Broker::push_refusing(std::vector<PushItem> items, const std::vector<std::size_t>& unsealable,
                                  const PushOrigin& origin) {
  std::vector<bool> refused(items.size(), false);
  for (const std::size_t i : unsealable) refused[i] = true;
  std::vector<std::size_t> admitted_at;  // admitted item k is items[admitted_at[k]]
  std::vector<PushItem> admitted;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (refused[i]) continue;
    admitted_at.push_back(i);
    admitted.push_back(items[i]);
  }
  PushOutcome outcome = admitted.empty() ? PushOutcome{} : push_admitted(std::move(admitted), origin);
  std::vector<PushItemResult> results(items.size());
  for (std::size_t k = 0; k < outcome.items.size() && k < admitted_at.size(); ++k) {
    results[admitted_at[k]] = std::move(outcome.items[k]);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (refused[i]) {
      results[i] = failed_push_result(items[i], i, no_key_refusal(items[i].queue));
    } else {
      results[i].index = static_cast<int>(i);
    }
  }
  outcome.items = std::move(results);
  return outcome;
}

PushOutcome Broker::push_admitted(std::vector<PushItem> items, const PushOrigin& origin) {
  encryption_.seal_items(origin.tenant, items);  // no-op without a key
  if (push_maintenance()) return push_unstored(items, UnstoredReason::PushMaintenance, origin);
  // After a transient failure the database is skipped (no timeout wait per
  // push) until it answers again; while older events are spooled, a push
  // waits for the drain or queues up behind them (per-partition order).
  if (spool_ != nullptr && spool_->route_push() == PushRoute::Spool) {
    return push_unstored(items, UnstoredReason::DatabaseUnavailable, origin);
  }
  std::optional<std::vector<db::PushRow>> rows = store_push(items, origin);
  if (!rows) return push_unstored(items, UnstoredReason::DatabaseUnavailable, origin);
  if (encryption_.enabled()) {
    resend_refused(items, *rows, origin);
  } else {
    encryption_.fail_refused(origin.tenant, *rows);
  }
  PushOutcome outcome;
  outcome.items = push_results(items, std::move(*rows));
  after_push_stored(items, outcome.items, origin.tenant);
  return outcome;
}

PushOutcome Broker::push_unstored(const std::vector<PushItem>& items, UnstoredReason reason,
                                  const PushOrigin& origin) {
  PushOutcome outcome;
  outcome.items = handle_unstored_push(items, reason, origin);
  if (reason == UnstoredReason::PushMaintenance) {
    for (const auto& r : outcome.items) {
      if (r.status == PushStatus::Failed) outcome.maintenance_spool_failed = true;
    }
  }
  const std::uint64_t accepted = accepted_items(outcome.items);
  metrics_.record_push(accepted);
  quotas_.note_accepted(origin.tenant, accepted);
  return outcome;
}

std::optional<std::vector<db::PushRow>> Broker::store_push(const std::vector<PushItem>& items,
                                                           const PushOrigin& origin) {
  std::vector<std::string> encoded;
  encoded.reserve(items.size());
  for (const auto& item : items) encoded.push_back(encode_push_item(item));
  try {
    return combiner_.submit(encoded, origin);
  } catch (const db::DbError& e) {
    // Only a lost connection sends pushes to the spool. Anything else is this
    // request's own failure (a quota, a statement or lock timeout on a contended
    // partition, bad input), answered as every use case answers it.
    if (!e.connection_lost()) rethrow_db_failure(e, metrics_, /*transient_is_unavailable=*/true);
    metrics_.record_db_error();
    spdlog::warn("push: database unavailable ({}), {} item(s) not stored", e.what(), items.size());
    if (spool_ != nullptr) spool_->note_database_unavailable(e.what());
    return std::nullopt;
  }
}

void Broker::resend_refused(std::vector<PushItem>& items, std::vector<db::PushRow>& rows, const PushOrigin& origin) {
  const RefusedPlaintext refused = encryption_.seal_refused(origin.tenant, items, rows, "push_messages");
  if (refused.rows.empty()) return;
  std::optional<std::vector<db::PushRow>> again = store_push(refused.resend, origin);
  if (again) {
    take_resent_answers(rows, refused.rows, std::move(*again));
    return;
  }
  for (const std::size_t r : refused.rows) {
    rows[r].status = "failed";
    rows[r].error = kDatabaseUnavailable;
  }
}

std::vector<PushItemResult> Broker::push_results(const std::vector<PushItem>& items,
                                                 std::vector<db::PushRow> rows) const {
  std::vector<PushItemResult> results(items.size());
  std::vector<bool> answered(items.size(), false);
  for (auto& row : rows) {
    const std::size_t i = db::item_index_of(row.idx, items.size(), "push_messages");
    PushItemResult& r = results[i];
    r.status = parse_push_status(row.status);
    r.transaction_id = nonempty_or(std::move(row.transaction_id), items[i].transaction_id);
    r.message_id = std::move(row.message_id);
    r.partition_id = std::move(row.partition_id);
    r.queue = nonempty_or(std::move(row.queue_name), items[i].queue);
    r.partition = nonempty_or(std::move(row.partition_name), items[i].partition);
    r.error = std::move(row.error);
    answered[i] = true;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!answered[i]) results[i] = failed_push_result(items[i], i, "the database returned no result for this item");
    results[i].index = static_cast<int>(i);
    results[i].trace_id = items[i].trace_id;
  }
  return results;
}

void Broker::after_push_stored(const std::vector<PushItem>& items, const std::vector<PushItemResult>& results,
                               const Tenant& tenant) {
  std::set<std::string> touched_queues;
  bool scheduled_timers = false;
  const std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (results[i].status != PushStatus::Queued) continue;
    // A future deliverAt was scheduled, not stored: nothing to pop yet, the
    // sweeper fires it (and wakes the pops) when it is due.
    if (items[i].deliver_at_ms && *items[i].deliver_at_ms > now_ms) {
      scheduled_timers = true;
    } else {
      touched_queues.insert(results[i].queue);
    }
  }
  const std::uint64_t accepted = accepted_items(results);
  metrics_.record_push(accepted);
  quotas_.note_accepted(tenant, accepted);
  if (!touched_queues.empty()) after_push_committed(touched_queues);
  if (scheduled_timers && cluster_ != nullptr) cluster_->timers_scheduled();
}

std::vector<PushItemResult> Broker::handle_unstored_push(const std::vector<PushItem>& items, UnstoredReason reason,
                                                         const PushOrigin& origin) {
  if (spool_ != nullptr) return spool_->spool_push(items, origin, reason);
  const char* why = reason == UnstoredReason::PushMaintenance ? "push maintenance is on and the spool is unavailable"
                                                              : kDatabaseUnavailable;
  std::vector<PushItemResult> results;
  results.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) results.push_back(failed_push_result(items[i], i, why));
  return results;
}

void Broker::after_push_committed(const std::set<std::string>& queues) {
  announce_committed(waiters_, cluster_, queues);
}

// ---------------------------------------------------------------------- pop

void Broker::pop(const PopCommand& command, std::function<bool()> client_gone, wake::Executor executor,
                 PopDone done) {
  auto outcome = std::make_shared<PopOutcome>();
  outcome->consumer_group = command.query.consumer_group.value_or(kQueueModeGroup);
  const std::int64_t timeout_ms = std::clamp<std::int64_t>(command.timeout_ms, 0, config_.pop.max_timeout_ms);
  const bool long_poll = command.wait && timeout_ms > 0;
  const auto deadline = waiters_.clock().now() + std::chrono::milliseconds(timeout_ms);

  auto attempt = [this, query = command.query, long_poll, deadline, outcome]() -> bool {
    // Pop maintenance: empty without touching the database.
    if (pop_maintenance()) return false;
    try {
      // Concurrent attempts with the same parameters share one call, which
      // holds one Pop slot for this attempt only: a parked poll holds none
      // (pop_combiner.h).
      outcome->messages = pop_combiner_.submit(query, long_poll ? deadline : wake::Clock::time_point::max());
      open_popped(outcome->messages, query.consumer_group, query.tenant);
      return !outcome->messages.empty();
    } catch (const LaneRefused&) {
      // A long poll that gets no slot in time re-checks later like an empty
      // attempt (its client gets 204 at the deadline, never 429).
      if (long_poll) return false;
      throw;
    } catch (const db::DbError& e) {
      if (e.transient() && long_poll) {
        // A long poll keeps re-checking through an outage until its timeout.
        metrics_.record_db_error();
        spdlog::debug("pop: database unavailable, will re-check: {}", e.what());
        return false;
      }
      rethrow_as_broker_error(e);
    }
  };
  auto abandoned = [this, client_gone = std::move(client_gone)] {
    return stopping_.load(std::memory_order_relaxed) || (client_gone && client_gone());
  };
  auto finish = [this, outcome, done = std::move(done)](wake::PollEnd, std::exception_ptr error) {
    if (!error) metrics_.record_pop(outcome->messages.size());
    done(std::move(*outcome), error);
  };

  if (!long_poll) {
    std::exception_ptr error;
    try {
      if (!abandoned()) attempt();
    } catch (...) {
      error = std::current_exception();
    }
    return finish(wake::PollEnd::Found, error);
  }
  const std::string key = command.query.queue ? *command.query.queue : std::string(wake::kFilterPopKey);
  wake::start_long_poll(waiters_, std::move(executor), key, deadline, recheck_policy_,
                        {std::move(attempt), std::move(abandoned), std::move(finish)});
}

void Broker::open_popped(std::vector<db::PoppedMessage>& messages, const std::optional<std::string>& consumer_group,
                         const Tenant& tenant) {
  const std::vector<UndecryptableMessage> bad = encryption_.open_popped(messages);
  if (bad.empty()) return;
  metrics_.record_undecryptable(bad.size());
  try {
    db_.dead_letter_undecryptable(encode_undecryptable(bad), consumer_group, tenant);
  } catch (const db::DbError& e) {
    // They stay leased and come back after the lease; the next pop retries.
    metrics_.record_db_error();
    spdlog::warn("encryption: {} undecryptable message(s) not moved to the DLQ: {}", bad.size(), e.what());
  }
}

// ---------------------------------------------------------------------- ack

std::vector<AckResult> Broker::ack(const std::vector<AckItem>& items,
                                   const std::optional<std::string>& consumer_group, const Tenant& tenant) {
  if (items.empty()) return {};
  std::vector<std::string> partition_ids;
  partition_ids.reserve(items.size());
  for (const auto& item : items) partition_ids.push_back(item.partition_id);
  std::vector<db::AckRow> rows;
  try {
    // Concurrent acks of the tenant share one call, which holds one Ack slot (ack_combiner.h).
    rows = ack_combiner_.submit(encode_ack_items(items), items.size(), partition_ids, consumer_group, tenant);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  std::vector<AckResult> results(items.size());
  std::vector<bool> answered(items.size(), false);
  for (auto& row : rows) {
    const std::size_t i = db::item_index_of(row.idx, items.size(), "ack_messages");
    results[i] = std::move(row);
    answered[i] = true;
  }
  std::uint64_t succeeded = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    results[i].idx = static_cast<int>(i);
    if (!answered[i]) {
      results[i].transaction_id = items[i].transaction_id;
      results[i].error = "the database returned no result for this item";
    }
    if (results[i].success) ++succeeded;
  }
  metrics_.record_ack(succeeded, items.size() - succeeded);
  return results;
}

// -------------------------------------------------------------------- lease

LeaseExtension Broker::extend_lease(const std::string& lease_id, int seconds, const Tenant& tenant) {
  if (!util::is_uuid(lease_id)) {
    LeaseExtension unknown;
    unknown.error = "Lease not found";
    return unknown;
  }
  try {
    // A consumer's write like an ack: the Ack lane.
    const flow::Permit slot = admit_or_throw(arbiter_, flow::Lane::Ack);
    return db_.extend_lease(lease_id, seconds, tenant);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

// -------------------------------------------------------------- maintenance

MaintenanceStatus Broker::maintenance_status() {
  try {
    // A read like any other; refused, it answers the last known values (the
    // refresher re-reads them every SYSTEM_FLAG_REFRESH_MS anyway).
    reads_.run([this] { flags_.refresh(); });
  } catch (const LaneRefused& e) {
    spdlog::debug("maintenance: {}; answering the last known flags", e.what());
  }
  MaintenanceStatus s;
  s.push_maintenance = push_maintenance();
  s.pop_maintenance = pop_maintenance();
  s.spool = spool_status();
  return s;
}

MaintenanceStatus Broker::set_push_maintenance(bool enabled) { return set_maintenance(MaintenanceKind::Push, enabled); }

MaintenanceStatus Broker::set_pop_maintenance(bool enabled) { return set_maintenance(MaintenanceKind::Pop, enabled); }

MaintenanceStatus Broker::set_maintenance(MaintenanceKind kind, bool enabled) {
  const bool push = kind == MaintenanceKind::Push;
  try {
    if (push) {
      flags_.persist_push(enabled);
    } else {
      flags_.persist_pop(enabled);
    }
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  if (cluster_ != nullptr) cluster_->maintenance_changed(kind, enabled);
  MaintenanceStatus s;
  s.push_maintenance = push ? enabled : push_maintenance();
  s.pop_maintenance = push ? pop_maintenance() : enabled;
  s.spool = spool_status();
  return s;
}

SpoolStatus Broker::spool_status() const {
  if (spool_ != nullptr) return spool_->status();
  SpoolStatus s;
  s.db_healthy = db_.healthy();
  s.healthy = false;  // no spool to write to
  return s;
}

// ------------------------------------------------------------------- health

DatabaseHealth Broker::database_health() {
  DatabaseHealth h;
  try {
    h.latency = db_.ping();
    h.connected = true;
  } catch (const db::DbError& e) {
    spdlog::debug("health: database ping failed: {}", e.what());
    h.error = e.client_message();
    if (const std::optional<db::ConfigurationFault> fault = db::configuration_fault(e.sqlstate())) {
      h.configuration_fault = std::string(fault->cause) + " (SQLSTATE " + e.sqlstate() + "): fix " + fault->variable;
    }
  }
  return h;
}

std::size_t Broker::queued_for_call(flow::Lane lane) const {
  switch (lane) {
    case flow::Lane::Push: return combiner_.waiting();
    case flow::Lane::Pop: return pop_combiner_.waiting();
    case flow::Lane::Ack: return ack_combiner_.waiting();
    case flow::Lane::Maint:
    case flow::Lane::Read: return 0;
  }
  return 0;
}

metrics::Gauges Broker::gauges() const {
  metrics::Gauges g;
  const db::PoolStats pool = db_.pool_stats();
  g.db_pool_size = pool.size;
  g.db_pool_idle = pool.idle;
  g.db_pool_active = pool.in_use;
  g.db_pool_waiting = pool.waiting;
  const SpoolStatus spool = spool_status();
  g.spool_pending = spool.pending;
  g.spool_failed = spool.failed;
  g.spool_db_healthy = spool.db_healthy;
  g.spool_fallback = spool.directory_fallback;
  g.maintenance = push_maintenance();
  g.pop_maintenance = pop_maintenance();
  g.parked_pops = waiters_.parked();
  for (const flow::LaneSnapshot& lane : arbiter_.snapshot()) {
    metrics::AdmissionLane a;
    a.lane = flow::to_string(lane.lane);
    a.slots = lane.slots;
    a.in_use = lane.in_use;
    a.waiting = lane.waiting;
    // Requests queued for a combined call wait for that call's slot.
    a.waiting += static_cast<int>(queued_for_call(lane.lane));
    a.granted = lane.granted;
    a.rejected_queue_full = lane.rejected_queue_full;
    a.rejected_timeout = lane.rejected_timeout;
    for (std::size_t b = 0; b < flow::kWaitBucketsS.size(); ++b) {
      a.wait_buckets.emplace_back(flow::kWaitBucketsS[b], lane.wait_buckets[b]);
    }
    a.wait_seconds_sum = lane.wait_seconds_sum;
    a.wait_count = lane.wait_count;
    g.admission.push_back(std::move(a));
  }
  const auto counts = [](const CombinerStats& s) { return metrics::CombinedCalls{s.calls, s.combined_requests}; };
  g.push_combining = counts(combiner_.stats());
  g.ack_combining = counts(ack_combiner_.stats());
  g.pop_combining = counts(pop_combiner_.stats());
  return g;
}

}  // namespace queen::broker
