// GET /api/v1/dlq (docs/api-extensions.md): dead letters, newest failure first, paged.
#include "http/dlq_request.h"
#include "http/routes.h"

namespace queen::http {

void register_dlq_routes(Router& router, const RouteContext& context) {
  broker::Broker& broker = context.broker;
  const config::LimitsConfig& limits = context.config.limits;

  router.add("GET", "/api/v1/dlq", auth::AccessLevel::ReadOnly, [&broker, &limits](const Request& request) {
    broker::DlqQuery query = parse_dlq_query(request.query, limits);
    query.tenant = request.principal.tenant;
    return Response::json(200, render_dlq_page(broker.list_dlq(query), query));
  });
}

}  // namespace queen::http
