#include "broker/maintenance_flags.h"

#include <spdlog/spdlog.h>

#include "broker/spool_bridge.h"

namespace queen::broker {
namespace {

constexpr const char* kPushMaintenanceFlag = "maintenance";
constexpr const char* kPopMaintenanceFlag = "pop_maintenance";

}  // namespace

MaintenanceFlags::MaintenanceFlags(db::Procedures& db, wake::PopWaiters& waiters, SpoolBridge* spool,
                                   std::chrono::milliseconds refresh_period)
    : db_(db),
      waiters_(waiters),
      spool_(spool),
      refresh_period_(refresh_period),
      refresher_("maint-flags", util::real_clock(), refresh_period, [this] { refresh(); }) {}

void MaintenanceFlags::start() {
  refresh();
  refresher_.start(refresher_.clock().now() + refresh_period_);
}

void MaintenanceFlags::stop() { refresher_.stop(); }

void MaintenanceFlags::refresh() {
  std::uint64_t writes_before;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    writes_before = writes_;
  }
  bool push_flag;
  bool pop_flag;
  try {
    push_flag = db_.get_system_flag(kPushMaintenanceFlag);
    pop_flag = db_.get_system_flag(kPopMaintenanceFlag);
  } catch (const db::DbError& e) {
    spdlog::debug("maintenance: cannot read flags, keeping the last known values: {}", e.what());
    return;
  }
  PushChange push_change;
  bool pop_changed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (writes_ != writes_before) return;  // a POST changed a flag while we read: ours may be stale
    push_change = change_push_locked(push_flag);
    pop_changed = pop_.exchange(pop_flag) != pop_flag;
  }
  after_push_change(push_change, "read from the database");
  if (pop_changed) {
    spdlog::info("maintenance: pop maintenance {} (read from the database)", pop_flag ? "on" : "off");
    if (!pop_flag) waiters_.notify_all();
  }
}

void MaintenanceFlags::begin_write() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++writes_;
}

void MaintenanceFlags::persist_push(bool enabled) {
  begin_write();
  db_.set_system_flag(kPushMaintenanceFlag, enabled);
  PushChange change;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++writes_;
    change = change_push_locked(enabled);
  }
  after_push_change(change, "set by request");
}

void MaintenanceFlags::persist_pop(bool enabled) {
  begin_write();
  db_.set_system_flag(kPopMaintenanceFlag, enabled);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++writes_;
    pop_.store(enabled);
  }
  spdlog::info("maintenance: pop maintenance {}", enabled ? "enabled" : "disabled");
  // Parked pops re-check at once instead of waiting for their floor.
  if (!enabled) waiters_.notify_all();
}

void MaintenanceFlags::apply_push(bool enabled, const char* source) {
  PushChange change;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    change = change_push_locked(enabled);
  }
  after_push_change(change, source);
}

MaintenanceFlags::PushChange MaintenanceFlags::change_push_locked(bool enabled) {
  return PushChange{enabled, push_.exchange(enabled) != enabled, ++push_generation_};
}

void MaintenanceFlags::after_push_change(const PushChange& change, const char* source) {
  if (change.changed) spdlog::info("maintenance: push maintenance {} ({})", change.enabled ? "on" : "off", source);
  // Every time, not only on a change: the spool ignores repeats, and this
  // also covers the boot read, where the in-memory default already matched.
  if (spool_ != nullptr) spool_->follow_maintenance(change.enabled, change.generation);
}

}  // namespace queen::broker
