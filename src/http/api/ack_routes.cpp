// POST /api/v1/ack (one-element array) and POST /api/v1/ack/batch.
#include "http/api/ack_request.h"
#include "http/api/routes.h"

namespace queen::http {

void register_ack_routes(Router& router, const RouteContext& context) {
  broker::Acks& acks = context.broker.acks();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("POST", "/api/v1/ack", auth::AccessLevel::ReadWrite, [&acks, &limits](const Request& request) {
    const AckRequest ack = parse_ack_body(request.body, limits);
    return Response::json(200,
                          render_ack_results(acks.ack(ack.items, ack.consumer_group, request.principal.tenant)));
  });

  router.add("POST", "/api/v1/ack/batch", auth::AccessLevel::ReadWrite, [&acks, &limits](const Request& request) {
    const AckRequest ack = parse_ack_batch_body(request.body, limits);
    if (ack.items.empty()) return Response::json(200, "[]");
    return Response::json(200,
                          render_ack_results(acks.ack(ack.items, ack.consumer_group, request.principal.tenant)));
  });
}

}  // namespace queen::http
