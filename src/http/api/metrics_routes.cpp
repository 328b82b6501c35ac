// GET /metrics: the Prometheus text exposition to a scraper (an Accept header naming text/plain or
// application/openmetrics-text, as every Prometheus-compatible scraper sends), the JSON of the clients'
// Admin.metrics() otherwise; GET /metrics/prometheus: always the text; GET /metrics/json: always the JSON.
// All are served from process memory: they answer while the database is down.
#include <nlohmann/json.hpp>

#include "broker/statistics.h"
#include "config/version.h"
#include "http/api/cluster_request.h"
#include "http/api/routes.h"

namespace queen::http {

bool wants_exposition_text(const std::string& accept) {
  std::string lower(accept);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return lower.find("text/plain") != std::string::npos ||
         lower.find("application/openmetrics-text") != std::string::npos;
}

void register_metrics_routes(Router& router, const RouteContext& context) {
  broker::Broker& broker = context.broker;
  metrics::Metrics& metrics = context.metrics;
  broker::Cluster* cluster = context.cluster;
  const broker::QueueDepthRefresher* queue_depths = context.queue_depths;

  const auto json = [&broker, &metrics] {
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
  };
  const auto text = [&broker, &metrics, cluster, queue_depths] {
    Response r = Response::json(200, metrics::render_prometheus(metrics, broker.gauges(), metrics::read_process_stats()));
    r.body += metrics::render_build_info(config::broker_version());
    if (queue_depths != nullptr) r.body += queue_depths->render();
    if (cluster != nullptr) r.body += render_cluster_prometheus(cluster->snapshot());
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  };

  router.add("GET", "/metrics", auth::kPublic, [json, text](const Request& request) {
    Response r = wants_exposition_text(request.accept) ? text() : json();
    r.headers.emplace_back("Vary", "Accept");  // one path, two formats: caches keep them apart
    return r;
  });
  router.add("GET", "/metrics/json", auth::kPublic, [json](const Request&) { return json(); });
  router.add("GET", "/metrics/prometheus", auth::kPublic, [text](const Request&) { return text(); });
}

}  // namespace queen::http
