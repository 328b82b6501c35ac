// The statistics routes (docs/operations-stats.md): every view of the procedure catalogue (db::views():
// /api/v1/status*, /resources/*, /analytics/*), one Statistics call each, and POST /api/v1/stats/refresh.
#include "broker/statistics.h"
#include "http/api/routes.h"
#include "http/api/stats_request.h"

namespace queen::http {
namespace {

// GET view.path (view.access) answering the view through one Statistics
// call; 503 when the broker runs without statistics (tests).
void add_stats_view_route(Router& router, const db::View& view, broker::Statistics* statistics,
                          const config::LimitsConfig& limits) {
  const StatsParams params = stats_params_of(view);
  router.add("GET", view.path, params.level, [&view, params, statistics, &limits](const Request& request) {
    if (statistics == nullptr) return Response::error(503, "statistics unavailable");
    const std::string params_json = stats_params_json(request, params, limits);
    std::optional<std::string> body = statistics->view(view, request.principal.tenant, params_json);
    if (!body) return Response::error(404, "Queue not found");
    return Response::json(200, std::move(*body));
  });
}

}  // namespace

void register_status_routes(Router& router, const RouteContext& context) {
  broker::Statistics* statistics = context.statistics;

  // Python sends no body at all: none is read.
  router.add("POST", "/api/v1/stats/refresh", auth::AccessLevel::Operator, [statistics](const Request&) {
    if (statistics == nullptr) return Response::error(503, "statistics unavailable");
    return Response::json(200, statistics->refresh());
  });
}

void register_view_routes(Router& router, const RouteContext& context) {
  for (const db::View& view : db::views()) {
    add_stats_view_route(router, view, context.statistics, context.config.limits);
  }
}

}  // namespace queen::http
