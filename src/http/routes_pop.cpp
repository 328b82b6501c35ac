// The three pop forms (http-api §5): wildcard, specific partition, and
// namespace/task filter. 200 with messages or 204 with no body.
#include "http/render.h"
#include "http/request_parsing.h"
#include "http/routes.h"

namespace queen::http {

namespace {

Handler pop_handler(PopForm form, broker::Broker& broker, const config::PopConfig& pop) {
  return [form, &broker, &pop](const Request& request) {
    const broker::PopCommand command = parse_pop_request(form, request, pop);
    const broker::PopOutcome outcome = broker.pop(command, request.client_gone);
    if (outcome.messages.empty()) return Response::no_content();
    return Response::json(200, render_pop(outcome));
  };
}

}  // namespace

void register_pop_routes(Router& router, const RouteContext& context) {
  const config::PopConfig& pop = context.config.pop;
  router.add("GET", "/api/v1/pop/queue/:queue", pop_handler(PopForm::Wildcard, context.broker, pop));
  router.add("GET", "/api/v1/pop/queue/:queue/partition/:partition",
             pop_handler(PopForm::Specific, context.broker, pop));
  router.add("GET", "/api/v1/pop", pop_handler(PopForm::Filter, context.broker, pop));
}

}  // namespace queen::http
