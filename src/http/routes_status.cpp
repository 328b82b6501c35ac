// Status routes (docs/operations-stats.md): GET /api/v1/status*, /api/v1/status/analytics,
// and POST /api/v1/stats/refresh. Each is one Statistics call.
#include "http/routes.h"
#include "http/stats_request.h"

namespace queen::http {

void register_status_routes(Router& router, const RouteContext& context) {
  broker::Statistics* statistics = context.statistics;
  const config::LimitsConfig& limits = context.config.limits;
  using db::StatsView;

  add_stats_view_route(router, "/api/v1/status", StatsView::Status, {{"from", "to", "queue", "namespace", "task"}},
                       statistics, limits);
  add_stats_view_route(router, "/api/v1/status/queues", StatsView::StatusQueues,
                       {{"from", "to", "namespace", "task"}, 100}, statistics, limits);
  // Go adds includePartitions=true: partitions are always included.
  add_stats_view_route(router, "/api/v1/status/queues/:queue", StatsView::StatusQueue, {{}, 100, true}, statistics,
                       limits);
  add_stats_view_route(router, "/api/v1/status/queues/:queue/messages", StatsView::StatusQueueMessages,
                       {{}, 50, true}, statistics, limits);
  add_stats_view_route(router, "/api/v1/status/analytics", StatsView::StatusAnalytics,
                       {{"from", "to", "queue", "namespace", "task", "interval"}}, statistics, limits);

  // Python sends no body at all: none is read.
  router.add("POST", "/api/v1/stats/refresh", auth::AccessLevel::Operator, [statistics](const Request&) {
    if (statistics == nullptr) return Response::error(503, "statistics unavailable");
    return Response::json(200, statistics->refresh());
  });
}

}  // namespace queen::http
