// POST /api/v1/push: one status per item, in request order.
#include "http/api/push_request.h"
#include "http/api/routes.h"

namespace queen::http {

void register_push_routes(Router& router, const RouteContext& context) {
  broker::Pushes& pushes = context.broker.pushes();

  const config::LimitsConfig& limits = context.config.limits;

  router.add("POST", "/api/v1/push", auth::AccessLevel::ReadWrite, [&pushes, &limits](const Request& request) {
    std::vector<broker::PushItem> items = parse_push_body(request.body, limits);
    if (items.empty()) return Response::json(201, "[]");
    // The requester's tenant and subject (docs/tenants.md); a producerSub sent
    // in an item is not read (parse_push_body knows no such field).
    const broker::PushOutcome outcome =
        pushes.push(std::move(items), broker::PushOrigin{request.principal.tenant, request.principal.subject});
    // 201 whatever the per-item statuses; 500 only when push maintenance
    // could not spool (docs/operations-spool.md), still with the per-item array.
    return Response::json(outcome.maintenance_spool_failed ? 500 : 201, render_push_results(outcome.items));
  });
}

}  // namespace queen::http
