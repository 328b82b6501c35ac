#include "broker/system_admin.h"

#include <optional>
#include <string>

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"
#include "broker/spool_bridge.h"
#include "db/db_error.h"

namespace queen::broker {

MaintenanceStatus SystemAdmin::maintenance_status() {
  try {
    // A read like any other; refused, it answers the last known values (the
    // refresher re-reads them every SYSTEM_FLAG_REFRESH_MS anyway).
    reads_.run([this] { flags_.refresh(); });
  } catch (const LaneRefused& e) {
    spdlog::debug("maintenance: {}; answering the last known flags", e.what());
  }
  MaintenanceStatus s;
  s.push_maintenance = flags_.push();
  s.pop_maintenance = flags_.pop();
  s.spool = spool_status();
  return s;
}

MaintenanceStatus SystemAdmin::set_push_maintenance(bool enabled) {
  return set_maintenance(MaintenanceKind::Push, enabled);
}

MaintenanceStatus SystemAdmin::set_pop_maintenance(bool enabled) {
  return set_maintenance(MaintenanceKind::Pop, enabled);
}

MaintenanceStatus SystemAdmin::set_maintenance(MaintenanceKind kind, bool enabled) {
  const bool push = kind == MaintenanceKind::Push;
  translating_db_failures(metrics_, [&] {
    if (push) {
      flags_.persist_push(enabled);
    } else {
      flags_.persist_pop(enabled);
    }
  });
  if (cluster_ != nullptr) cluster_->maintenance_changed(kind, enabled);
  MaintenanceStatus s;
  s.push_maintenance = push ? enabled : flags_.push();
  s.pop_maintenance = push ? flags_.pop() : enabled;
  s.spool = spool_status();
  return s;
}

SpoolStatus SystemAdmin::spool_status() const {
  if (spool_ != nullptr) return spool_->status();
  SpoolStatus s;
  s.db_healthy = db_.healthy();
  s.healthy = false;  // no spool to write to
  return s;
}

DatabaseHealth SystemAdmin::database_health() {
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

}  // namespace queen::broker
