// GET /metrics (JSON) and GET /metrics/prometheus (text exposition format).
// Both are served from process memory: they answer while the database is down.
#include <nlohmann/json.hpp>

#include "config/version.h"
#include "http/cluster_render.h"
#include "http/routes.h"

namespace queen::http {

void register_metrics_routes(Router& router, const RouteContext& context) {
  broker::Broker& broker = context.broker;
  metrics::Metrics& metrics = context.metrics;

  router.add("GET", "/metrics", auth::kPublic, [&broker, &metrics](const Request&) {
    const metrics::Counters c = metrics.counters();
    const metrics::Gauges g = broker.gauges();
    const metrics::ProcessStats p = metrics::read_process_stats();
    nlohmann::json body = {
        {"uptime", static_cast<std::int64_t>(metrics.uptime_seconds())},
        {"requests", {{"total", c.requests}, {"rate", metrics.request_rate()}}},
        {"messages", {{"total", c.push_messages + c.pop_messages}, {"rate", metrics.message_rate()}}},
        {"database",
         {{"poolSize", g.db_pool_size}, {"idleConnections", g.db_pool_idle}, {"waitingRequests", g.db_pool_waiting}}},
        // Node-shaped keys kept for client parity; a native process has no JS heap.
        {"memory",
         {{"rss", p.resident_bytes}, {"heapTotal", 0}, {"heapUsed", 0}, {"external", 0}, {"arrayBuffers", 0}}},
        {"cpu", {{"user", p.cpu_user_us}, {"system", p.cpu_system_us}}},
    };
    return Response::json(200, body.dump());
  });

  broker::Cluster* cluster = context.cluster;
  router.add("GET", "/metrics/prometheus", auth::kPublic, [&broker, &metrics, cluster](const Request&) {
    Response r = Response::json(200, metrics::render_prometheus(metrics.counters(), broker.gauges(),
                                                                metrics::read_process_stats(),
                                                                metrics.uptime_seconds()));
    r.body += metrics::render_build_info(config::broker_version());
    if (cluster != nullptr) r.body += render_cluster_prometheus(cluster->snapshot());
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  });
}

}  // namespace queen::http
