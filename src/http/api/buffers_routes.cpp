// GET /api/v1/status/buffers: the spool gauges as JSON plus a
// live database ping (bounded by DB_CONNECTION_TIMEOUT through the pool).
#include <nlohmann/json.hpp>

#include "http/api/routes.h"

namespace queen::http {

void register_buffer_routes(Router& router, const RouteContext& context) {
  broker::SystemAdmin& system_admin = context.broker.system_admin();
  const std::string server_id = context.config.process.server_id;

  router.add("GET", "/api/v1/status/buffers", auth::AccessLevel::Operator, [&system_admin, server_id](const Request&) {
    const broker::SpoolStatus spool = system_admin.spool_status();
    const broker::DatabaseHealth db = system_admin.database_health();
    nlohmann::json database = {
        {"reachable", db.connected},
        {"latencyMs", db.connected ? static_cast<double>(db.latency.count()) / 1000.0 : 0.0},
    };
    if (!db.connected) database["error"] = db.error;
    nlohmann::json body = {
        {"pending", spool.pending},
        {"failed", spool.failed},
        {"dbHealthy", spool.db_healthy},
        {"worker", server_id},
        {"database", std::move(database)},
    };
    return Response::json(200, body.dump());
  });
}

}  // namespace queen::http
