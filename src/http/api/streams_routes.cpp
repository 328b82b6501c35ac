// POST /streams/v1/queries, /streams/v1/state/get, /streams/v1/cycle: the
// routes of the official stream SDKs (docs/streams.md), tenant-scoped like
// every route. A config_hash mismatch answers 409; a cycle that fails its
// checks answers 200 with success:false (the SDKs read `success`); a database
// outage 503, never spooled.
#include "http/api/routes.h"
#include "http/api/streams_request.h"

namespace queen::http {

void register_stream_routes(Router& router, const RouteContext& context) {
  broker::Streams& streams = context.broker.streams();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("POST", "/streams/v1/queries", auth::AccessLevel::ReadWrite, [&streams, &limits](const Request& request) {
    const broker::StreamQueryRegistration registration = parse_stream_query_body(request.body, limits);
    broker::ProcedureOutcome outcome = streams.register_stream_query(registration, request.principal.tenant);
    return Response::json(outcome.success ? 200 : 409, std::move(outcome.result_json));
  });

  router.add("POST", "/streams/v1/state/get", auth::AccessLevel::ReadOnly, [&streams, &limits](const Request& request) {
    const broker::StreamStateRead read = parse_stream_state_body(request.body, limits);
    return Response::json(200, streams.read_stream_state(read, request.principal.tenant).result_json);
  });

  router.add("POST", "/streams/v1/cycle", auth::AccessLevel::ReadWrite, [&streams, &limits](const Request& request) {
    broker::StreamCycleCommand command = parse_stream_cycle_body(request.body, limits);
    // The requester's tenant and subject, as on /push (docs/tenants.md).
    return Response::json(200, streams.run_stream_cycle(std::move(command),
                                                        broker::PushOrigin{request.principal.tenant,
                                                                           request.principal.subject})
                                   .result_json);
  });
}

}  // namespace queen::http
