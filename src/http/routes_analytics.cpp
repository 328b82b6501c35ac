// Analytics routes (docs/operations-stats.md): GET /api/v1/analytics/*, each one Statistics call.
#include "http/routes.h"
#include "http/stats_request.h"

namespace queen::http {

void register_analytics_routes(Router& router, const RouteContext& context) {
  broker::Statistics* statistics = context.statistics;
  const config::LimitsConfig& limits = context.config.limits;
  using db::StatsView;

  // Every broker's figures and the database's: the cell's, not one tenant's (operator).
  constexpr auth::AccessLevel kCell = auth::AccessLevel::Operator;
  add_stats_view_route(router, "/api/v1/analytics/system-metrics", StatsView::SystemMetrics,
                       {{"from", "to", "hostname", "workerId"}, 0, false, kCell}, statistics, limits);
  add_stats_view_route(router, "/api/v1/analytics/worker-metrics", StatsView::WorkerMetrics,
                       {{"from", "to", "hostname", "workerId"}, 0, false, kCell}, statistics, limits);
  add_stats_view_route(router, "/api/v1/analytics/postgres-stats", StatsView::PostgresStats, {{}, 0, false, kCell},
                       statistics, limits);
  add_stats_view_route(router, "/api/v1/analytics/queue-lag", StatsView::QueueLag, {{"from", "to", "queue"}},
                       statistics, limits);
  add_stats_view_route(router, "/api/v1/analytics/queue-ops", StatsView::QueueOps, {{"from", "to", "queue"}},
                       statistics, limits);
  add_stats_view_route(router, "/api/v1/analytics/queue-parked-replicas", StatsView::QueueParkedReplicas,
                       {{"from", "to", "queue"}, 0, false, kCell}, statistics, limits);
  add_stats_view_route(router, "/api/v1/analytics/retention", StatsView::Retention, {{"from", "to", "queue"}},
                       statistics, limits);
}

}  // namespace queen::http
