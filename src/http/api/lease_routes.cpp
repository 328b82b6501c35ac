// POST /api/v1/lease/:leaseId/extend: always an object.
#include "http/api/lease_request.h"
#include "http/api/routes.h"

namespace queen::http {

void register_lease_routes(Router& router, const RouteContext& context) {
  broker::Acks& acks = context.broker.acks();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("POST", "/api/v1/lease/:leaseId/extend", auth::AccessLevel::ReadWrite, [&acks, &limits](const Request& request) {
    const int seconds = parse_lease_seconds(request.body, limits);
    const std::string& lease_id = request.param("leaseId");
    return Response::json(
        200, render_lease_extension(lease_id, acks.extend_lease(lease_id, seconds, request.principal.tenant)));
  });
}

}  // namespace queen::http
