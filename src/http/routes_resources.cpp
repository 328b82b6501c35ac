// Resources: DELETE /api/v1/resources/queues/:queue (docs/api-extensions.md) and the
// read-only listings (docs/operations-stats.md), each one procedure call.
#include "http/input_limits.h"
#include "http/routes.h"
#include "http/stats_request.h"
#include "util/json_text.h"

namespace queen::http {

void register_resource_routes(Router& router, const RouteContext& context) {
  broker::Broker& broker = context.broker;
  const config::LimitsConfig& limits = context.config.limits;

  // Always 200 with deleted:true (clients check `deleted === true`); `existed`
  // tells whether there was anything to delete.
  router.add("DELETE", "/api/v1/resources/queues/:queue", auth::AccessLevel::Admin, [&broker, &limits](const Request& request) {
    const std::string& queue = request.param("queue");
    // A NUL would cut the name short in libpq: "orders%00x" must not delete "orders".
    check_name(queue, "queue", limits);
    const bool existed = broker.delete_queue(queue, request.principal.tenant);
    std::string body = "{\"deleted\":true,\"queue\":";
    util::append_json_string(body, queue);
    body += ",\"existed\":";
    body += existed ? "true" : "false";
    body += '}';
    return Response::json(200, std::move(body));
  });

  broker::Statistics* statistics = context.statistics;
  using db::StatsView;
  add_stats_view_route(router, "/api/v1/resources/overview", StatsView::ResourcesOverview, {{}}, statistics, limits);
  add_stats_view_route(router, "/api/v1/resources/queues", StatsView::ResourcesQueues,
                       {{"namespace", "task", "search"}, 100}, statistics, limits);
  add_stats_view_route(router, "/api/v1/resources/queues/:queue", StatsView::ResourcesQueue, {{}, 100, true},
                       statistics, limits);
  add_stats_view_route(router, "/api/v1/resources/namespaces", StatsView::ResourcesNamespaces, {{}}, statistics,
                       limits);
  add_stats_view_route(router, "/api/v1/resources/tasks", StatsView::ResourcesTasks, {{}}, statistics, limits);
}

}  // namespace queen::http
