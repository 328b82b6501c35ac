// Traces (docs/api-extensions.md, "Traces"): POST /api/v1/traces records one
// against a message; the three GETs read them back (snake_case keys, as the
// official clients expect). Scoped to the caller's tenant.
#include <nlohmann/json.hpp>

#include "http/api/messages_request.h"
#include "http/api/routes.h"
#include "http/api/traces_request.h"
#include "http/transport/input_limits.h"
#include "http/transport/query.h"

namespace queen::http {
namespace {

Response message_not_found() {
  return Response::json(404, R"({"success":false,"error":"Message not found"})");
}

}  // namespace

void register_trace_routes(Router& router, const RouteContext& context) {
  broker::MessageAdmin& message_admin = context.broker.message_admin();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("POST", "/api/v1/traces", auth::AccessLevel::ReadWrite, [&message_admin, &limits](const Request& request) {
    const std::optional<broker::TraceRecord> trace = parse_trace_body(request.principal.tenant, request.body, limits);
    if (!trace) return message_not_found();
    const std::optional<std::string> trace_id = message_admin.record_trace(*trace);
    if (!trace_id) return message_not_found();
    return Response::json(201, nlohmann::json{{"success", true}, {"traceId", *trace_id}}.dump());
  });

  // The two literal routes before the message's: the router prefers literals anyway.
  router.add("GET", "/api/v1/traces/names", auth::AccessLevel::ReadOnly, [&message_admin, &limits](const Request& request) {
    const Page page = parse_page(request.query, 50, limits);
    return Response::json(200, message_admin.trace_names(page.limit, page.offset, request.principal.tenant));
  });

  router.add("GET", "/api/v1/traces/by-name/:traceName", auth::AccessLevel::ReadOnly,
             [&message_admin, &limits](const Request& request) {
               const std::string& name = request.param("traceName");
               check_name(name, "traceName", limits);
               const Page page = parse_page(request.query, 100, limits);
               return Response::json(200, render_traces_by_name(message_admin.traces_by_name(
                                                     name, page.limit, page.offset, request.principal.tenant,
                                                     limits.list_max_payload_bytes)));
             });

  router.add("GET", "/api/v1/traces/:partitionId/:transactionId", auth::AccessLevel::ReadOnly,
             [&message_admin, &limits](const Request& request) {
               const std::optional<MessageKey> key = parse_message_key(request, limits);
               if (!key) return Response::json(200, R"({"traces":[]})");
               return Response::json(
                   200, message_admin.message_traces(key->partition_id, key->transaction_id, request.principal.tenant));
             });
}

}  // namespace queen::http
