// GET /health (liveness) and GET /health/ready (readiness), semantics §13.6.
#include <nlohmann/json.hpp>

#include "http/routes.h"

namespace queen::http {

void register_health_routes(Router& router, const RouteContext& context) {
  broker::Broker& broker = context.broker;
  const std::string server_id = context.config.process.server_id;

  // Liveness: 200 while the process serves; the database state is reported.
  router.add("GET", "/health", [&broker, server_id](const Request&) {
    const broker::DatabaseHealth db = broker.database_health();
    nlohmann::json body = {
        {"status", db.connected ? "healthy" : "degraded"},
        {"database", db.connected ? "connected" : "disconnected"},
        {"server", "queen-compatible broker"},
        {"version", "1.0.0"},
        {"worker_id", 0},
        {"server_id", server_id},
        {"shared_state", {{"enabled", false}}},
        {"queen", {{"worker_id", 0}, {"status", "active"}}},
    };
    return Response::json(200, body.dump());
  });

  // Readiness: 503 while PostgreSQL is unreachable (to be extended with the
  // spool and startup-recovery state).
  router.add("GET", "/health/ready", [&broker](const Request&) {
    const broker::DatabaseHealth db = broker.database_health();
    nlohmann::json body = {
        {"status", db.connected ? "ready" : "not_ready"},
        {"database", db.connected ? "connected" : "disconnected"},
    };
    if (db.connected) {
      body["databaseLatencyMs"] = static_cast<double>(db.latency.count()) / 1000.0;
    } else {
      body["error"] = db.error;
    }
    return Response::json(db.connected ? 200 : 503, body.dump());
  });
}

}  // namespace queen::http
