// The three pop forms: wildcard, specific partition, and
// namespace/task filter. 200 with messages or 204 with no body.
#include "http/api/pop_request.h"
#include "http/api/routes.h"
#include "http/transport/dispatcher.h"

namespace queen::http {

namespace {

Handler pop_handler(PopForm form, broker::Pops& pops, const config::Config& config) {
  return [form, &pops, &config](const Request& request) {
    broker::PopCommand command = parse_pop_request(form, request, config.pop, config.limits);
    pops.pop(command, request.client_gone, request.post,
               [reply = request.reply, method = request.method, path = request.path](
                   broker::PopOutcome outcome, std::exception_ptr error) {
                 if (error) return reply(error_response(error, method, path));
                 if (outcome.messages.empty()) return reply(Response::no_content());
                 reply(Response::json(200, render_pop(outcome)));
               });
    return Response::later();
  };
}

}  // namespace

void register_pop_routes(Router& router, const RouteContext& context) {
  const config::Config& config = context.config;
  const auth::AccessLevel level = auth::AccessLevel::ReadWrite;
  broker::Pops& pops = context.broker.pops();
  router.add("GET", "/api/v1/pop/queue/:queue", level, pop_handler(PopForm::Wildcard, pops, config));
  router.add("GET", "/api/v1/pop/queue/:queue/partition/:partition", level,
             pop_handler(PopForm::Specific, pops, config));
  router.add("GET", "/api/v1/pop", level, pop_handler(PopForm::Filter, pops, config));
}

}  // namespace queen::http
