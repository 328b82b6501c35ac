// GET /api/v1/system/shared-state: the mesh as this broker
// sees it, with frame, sweeper and job counters. Ops only.
#include "broker/cluster.h"
#include "http/api/cluster_request.h"
#include "http/api/routes.h"

namespace queen::http {

void register_cluster_routes(Router& router, const RouteContext& context) {
  broker::Cluster* cluster = context.cluster;

  router.add("GET", "/api/v1/system/shared-state", auth::AccessLevel::Operator, [cluster](const Request&) {
    if (cluster == nullptr) return Response::json(200, R"({"enabled":false,"reason":"not_initialized"})");
    return Response::json(200, render_shared_state_detail(cluster->snapshot()));
  });
}

}  // namespace queen::http
