// POST /api/v1/stats/refresh (docs/operations-stats.md), one Statistics call. The GET
// /api/v1/status* views are catalogue views (register_view_routes).
#include "broker/statistics.h"
#include "http/routes.h"

namespace queen::http {

void register_status_routes(Router& router, const RouteContext& context) {
  broker::Statistics* statistics = context.statistics;

  // Python sends no body at all: none is read.
  router.add("POST", "/api/v1/stats/refresh", auth::AccessLevel::Operator, [statistics](const Request&) {
    if (statistics == nullptr) return Response::error(503, "statistics unavailable");
    return Response::json(200, statistics->refresh());
  });
}

}  // namespace queen::http
