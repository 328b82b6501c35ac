// POST /api/v1/configure: a full replace of the queue's options, all echoed back.
#include <nlohmann/json.hpp>

#include "http/api/queue_request.h"
#include "http/api/routes.h"

namespace queen::http {

void register_queue_routes(Router& router, const RouteContext& context) {
  broker::QueueAdmin& queue_admin = context.broker.queue_admin();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("POST", "/api/v1/configure", auth::AccessLevel::ReadWrite, [&queue_admin, &limits](const Request& request) {
    const ConfigureRequest req = parse_configure_body(request.body, limits);
    const std::string result_json =
        queue_admin.configure(req.queue, req.namespace_name, req.task, req.options_json, request.principal.tenant);
    const nlohmann::json result = nlohmann::json::parse(result_json.empty() ? "{}" : result_json);
    nlohmann::json body = {
        {"configured", true},
        {"queue", req.queue},
        {"namespace", result.value("namespace", req.namespace_name)},
        {"task", result.value("task", req.task)},
        {"queueId", result.value("queueId", nlohmann::json())},
        {"partitionId", result.value("partitionId", nlohmann::json())},
        {"options", result.value("options", nlohmann::json::object())},
    };
    // The broker's note when the queue asks for what it cannot give (docs/encryption.md).
    if (const auto warning = result.find("warning"); warning != result.end()) body["warning"] = *warning;
    return Response::json(200, body.dump());
  });
}

}  // namespace queen::http
