// Resources: DELETE /api/v1/resources/queues/:queue (docs/api-extensions.md). The
// read-only listings (docs/operations-stats.md) are catalogue views (register_view_routes).
#include "http/api/routes.h"
#include "http/transport/input_limits.h"
#include "util/json_text.h"

namespace queen::http {

void register_resource_routes(Router& router, const RouteContext& context) {
  broker::QueueAdmin& queue_admin = context.broker.queue_admin();
  const config::LimitsConfig& limits = context.config.limits;

  // Always 200 with deleted:true (clients check `deleted === true`); `existed`
  // tells whether there was anything to delete.
  router.add("DELETE", "/api/v1/resources/queues/:queue", auth::AccessLevel::Admin, [&queue_admin, &limits](const Request& request) {
    const std::string& queue = request.param("queue");
    // A NUL would cut the name short in libpq: "orders%00x" must not delete "orders".
    check_name(queue, "queue", limits);
    const bool existed = queue_admin.delete_queue(queue, request.principal.tenant);
    std::string body = "{\"deleted\":true,\"queue\":";
    util::append_json_string(body, queue);
    body += ",\"existed\":";
    util::append_json_bool(body, existed);
    body += '}';
    return Response::json(200, std::move(body));
  });

}

}  // namespace queen::http
