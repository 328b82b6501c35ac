// GET /health (liveness) and GET /health/ready (readiness); docs/operations.md "Probes".
#include <nlohmann/json.hpp>

#include "config/version.h"
#include "http/api/cluster_request.h"
#include "http/api/routes.h"
#include "http/transport/json_body.h"

namespace queen::http {
namespace {

// Where the spool is, and whether it is the per-user fallback because FILE_BUFFER_DIR was not usable.
nlohmann::json render_spool_directory(const broker::SpoolStatus& spool) {
  nlohmann::json directory = {
      {"path", spool.directory},
      {"configured", spool.configured_directory},
      {"fallback", spool.directory_fallback},
  };
  if (spool.directory_fallback) directory["fallbackReason"] = spool.fallback_reason;
  return directory;
}

}  // namespace

void register_health_routes(Router& router, const RouteContext& context) {
  broker::SystemAdmin& system_admin = context.broker.system_admin();
  const std::string server_id = context.config.process.server_id;
  broker::Cluster* cluster = context.cluster;

  // Liveness: 200 while the process serves; the database state is reported.
  router.add("GET", "/health", auth::kPublic, [&system_admin, server_id, cluster](const Request&) {
    const broker::DatabaseHealth db = system_admin.database_health();
    const std::string shared_state =
        cluster != nullptr ? render_shared_state(cluster->snapshot()) : std::string(kSharedStateDisabled);
    nlohmann::json body = {
        {"status", db.connected ? "healthy" : "degraded"},
        {"database", db.connected ? "connected" : "disconnected"},
        {"server", "queen-compatible broker"},
        {"version", std::string(config::broker_version())},
        {"worker_id", 0},
        {"server_id", server_id},
        {"shared_state", nlohmann::json::parse(shared_state)},
        {"queen", {{"worker_id", 0}, {"status", "active"}}},
    };
    return Response::json(200, body.dump());
  });

  // Readiness: 503 while the broker can neither reach PostgreSQL nor write
  // its spool (a broker that can spool still accepts pushes through an
  // outage; one spooling to the fallback directory says so in the body), and
  // while the database refuses it for good (wrong password, no such
  // database, no schema: spooling would not end without an operator).
  // Startup recovery runs before the listener binds, so no answer at all
  // comes before it ends. From SIGTERM on it answers 503 at once, for the
  // grace (SHUTDOWN_GRACE_MS) in which the rest is still served.
  const std::atomic<bool>* stopping = context.stopping;
  router.add("GET", "/health/ready", auth::kPublic, [&system_admin, stopping](const Request&) {
    const broker::DatabaseHealth db = system_admin.database_health();
    const broker::SpoolStatus spool = system_admin.spool_status();
    const bool spool_writable = spool.healthy;
    const bool misconfigured = !db.configuration_fault.empty();
    const bool shutting_down = stopping != nullptr && stopping->load();
    const bool ready = (db.connected || spool_writable) && !misconfigured && !shutting_down;
    nlohmann::json body = {
        {"status", ready ? "ready" : "not_ready"},
        {"database", db.connected ? "connected" : "disconnected"},
        {"spool", spool_writable ? "writable" : "unwritable"},
    };
    if (db.connected) {
      body["databaseLatencyMs"] = static_cast<double>(db.latency.count()) / 1000.0;
    } else {
      body["error"] = db.error;
    }
    if (!spool.directory.empty()) body["spoolDirectory"] = render_spool_directory(spool);
    if (misconfigured) body["reason"] = "database unusable as configured: " + db.configuration_fault;
    if (shutting_down) body["reason"] = "shutting down";
    // A directory name is bytes, not necessarily UTF-8.
    return Response::json(ready ? 200 : 503, dump_json(body));
  });
}

}  // namespace queen::http
