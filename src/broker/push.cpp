#include "broker/push.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "broker/encoding.h"
#include "broker/pop_wakes.h"
#include "broker/spool_bridge.h"
#include "db/db_error.h"
#include "db/item_index.h"
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

void mint_transaction_ids(std::vector<PushItem>& items) {
  for (auto& item : items) {
    if (item.transaction_id.empty()) item.transaction_id = util::new_uuid_v7();
  }
}

PushOutcome Pushes::push(std::vector<PushItem> items, const PushOrigin& origin) {
  if (items.empty()) return {};
  throw_if_refused(quotas_.push_refusal(origin.tenant, items.size()));
  mint_transaction_ids(items);
  // Before any path can store or spool them: a broker without a key cannot
  // seal a payload of an encrypted queue, so it never takes one.
  const std::vector<std::size_t> unsealable = encryption_.unsealable(origin.tenant, items);
  if (!unsealable.empty()) return push_refusing(std::move(items), unsealable, origin);
  return push_sealable(std::move(items), origin);
}

PushOutcome Pushes::push_refusing(std::vector<PushItem> items, const std::vector<std::size_t>& unsealable,
                                  const PushOrigin& origin) {
  std::vector<bool> refused(items.size(), false);
  for (const std::size_t i : unsealable) refused[i] = true;
  std::vector<std::size_t> sealable_at;  // sealable item k is items[sealable_at[k]]
  std::vector<PushItem> sealable;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (refused[i]) continue;
    sealable_at.push_back(i);
    sealable.push_back(items[i]);
  }
  PushOutcome outcome = sealable.empty() ? PushOutcome{} : push_sealable(std::move(sealable), origin);
  std::vector<PushItemResult> results(items.size());
  for (std::size_t k = 0; k < outcome.items.size() && k < sealable_at.size(); ++k) {
    results[sealable_at[k]] = std::move(outcome.items[k]);
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

PushOutcome Pushes::push_sealable(std::vector<PushItem> items, const PushOrigin& origin) {
  encryption_.seal_items(origin.tenant, items);  // no-op without a key
  if (flags_.push()) return push_unstored(items, UnstoredReason::PushMaintenance, origin);
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

PushOutcome Pushes::push_unstored(const std::vector<PushItem>& items, UnstoredReason reason,
                                  const PushOrigin& origin) {
  PushOutcome outcome;
  outcome.items = unstored_results(items, reason, origin);
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

std::vector<PushItemResult> Pushes::unstored_results(const std::vector<PushItem>& items, UnstoredReason reason,
                                                     const PushOrigin& origin) {
  if (spool_ != nullptr) return spool_->spool_push(items, origin, reason);
  const char* why = reason == UnstoredReason::PushMaintenance ? "push maintenance is on and the spool is unavailable"
                                                              : kDatabaseUnavailable;
  std::vector<PushItemResult> results;
  results.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) results.push_back(failed_push_result(items[i], i, why));
  return results;
}

std::optional<std::vector<db::PushRow>> Pushes::store_push(const std::vector<PushItem>& items,
                                                           const PushOrigin& origin) {
  std::vector<std::string> encoded;
  encoded.reserve(items.size());
  for (const auto& item : items) encoded.push_back(encode_push_item(item));
  try {
    return combiner_.submit(encoded, dedup_items_of(items), origin);
  } catch (const db::DbError& e) {
    // Only a lost connection sends pushes to the spool. Anything else is this
    // request's own failure (a quota, a statement or lock timeout on a contended
    // partition, bad input), answered as every use case answers it.
    if (!e.connection_lost()) rethrow_db_failure(e, metrics_);
    metrics_.record_db_error();
    spdlog::warn("push: database unavailable ({}), {} item(s) not stored", e.what(), items.size());
    if (spool_ != nullptr) spool_->note_database_unavailable(e.what());
    return std::nullopt;
  }
}

void Pushes::resend_refused(std::vector<PushItem>& items, std::vector<db::PushRow>& rows, const PushOrigin& origin) {
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

std::vector<PushItemResult> Pushes::push_results(const std::vector<PushItem>& items,
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

void Pushes::after_push_stored(const std::vector<PushItem>& items, const std::vector<PushItemResult>& results,
                               const Tenant& tenant) {
  std::set<std::string> touched_queues;
  bool scheduled_timers = false;
  const std::int64_t now_ms = now_epoch_ms();
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
  listeners_.messages_committed(touched_queues);
  if (scheduled_timers) listeners_.timers_scheduled();
}

}  // namespace queen::broker
