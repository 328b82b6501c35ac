// GET/POST /api/v1/system/maintenance and /api/v1/system/maintenance/pop
// (docs/operations-spool.md, "Planned database work").
#include <nlohmann/json.hpp>

#include "http/api/maintenance_request.h"
#include "http/api/routes.h"

namespace queen::http {

namespace {

nlohmann::json buffer_stats(const broker::SpoolStatus& spool) {
  return {
      {"pendingCount", spool.pending},
      {"failedCount", spool.failed},
      {"dbHealthy", spool.db_healthy},
      {"files", spool.files},
      {"bytes", spool.bytes},
      {"failedFiles",
       {{"count", spool.failed_files},
        {"totalBytes", spool.failed_bytes},
        {"totalMB", static_cast<double>(spool.failed_bytes) / (1024.0 * 1024.0)}}},
  };
}

std::string pop_message(bool enabled) {
  return enabled ? "Pop maintenance enabled: pops return no messages."
                 : "Pop maintenance disabled: pops are served normally.";
}

}  // namespace

void register_maintenance_routes(Router& router, const RouteContext& context) {
  broker::SystemAdmin& system_admin = context.broker.system_admin();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("GET", "/api/v1/system/maintenance", auth::AccessLevel::Operator, [&system_admin](const Request&) {
    const broker::MaintenanceStatus s = system_admin.maintenance_status();
    nlohmann::json body = {
        {"maintenanceMode", s.push_maintenance},
        {"popMaintenanceMode", s.pop_maintenance},
        {"bufferedMessages", s.spool.pending},
        {"bufferHealthy", s.spool.healthy},
        {"bufferStats", buffer_stats(s.spool)},
    };
    return Response::json(200, body.dump());
  });

  router.add("POST", "/api/v1/system/maintenance", auth::AccessLevel::Operator, [&system_admin, &limits](const Request& request) {
    const bool enabled = parse_enabled_body(request.body, limits);
    const broker::MaintenanceStatus s = system_admin.set_push_maintenance(enabled);
    nlohmann::json body = {
        {"maintenanceMode", s.push_maintenance},
        {"bufferedMessages", s.spool.pending},
        {"bufferHealthy", s.spool.healthy},
        {"message", enabled ? "Push maintenance enabled: pushes are written to the local spool."
                            : "Push maintenance disabled: pushes go to the database and the spool drains."},
    };
    return Response::json(200, body.dump());
  });

  router.add("GET", "/api/v1/system/maintenance/pop", auth::AccessLevel::Operator, [&system_admin](const Request&) {
    const broker::MaintenanceStatus s = system_admin.maintenance_status();
    nlohmann::json body = {{"popMaintenanceMode", s.pop_maintenance}, {"message", pop_message(s.pop_maintenance)}};
    return Response::json(200, body.dump());
  });

  router.add("POST", "/api/v1/system/maintenance/pop", auth::AccessLevel::Operator, [&system_admin, &limits](const Request& request) {
    const bool enabled = parse_enabled_body(request.body, limits);
    const broker::MaintenanceStatus s = system_admin.set_pop_maintenance(enabled);
    nlohmann::json body = {{"popMaintenanceMode", s.pop_maintenance}, {"message", pop_message(s.pop_maintenance)}};
    return Response::json(200, body.dump());
  });
}

}  // namespace queen::http
