// GET /api/v1/dlq (docs/api-extensions.md): dead letters, newest failure first, paged.
// And our DLQ administration (ADMIN): requeue dead letters onto their
// partition, or delete them, by the listing's filters or one message id.
#include <nlohmann/json.hpp>

#include "http/api/dlq_request.h"
#include "http/api/routes.h"
#include "http/transport/query.h"

namespace queen::http {

void register_dlq_routes(Router& router, const RouteContext& context) {
  broker::DeadLetters& dead_letters = context.broker.dead_letters();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("GET", "/api/v1/dlq", auth::AccessLevel::ReadOnly, [&dead_letters, &limits](const Request& request) {
    const broker::DlqQuery query = parse_dlq_query(request.principal.tenant, request.query, limits);
    return Response::json(200, render_dlq_page(dead_letters.list_dlq(query), query));
  });

  // At most queen_internal.dlq_admin_max_per_call() (1000) entries per call: call again while it answers 1000.
  router.add("POST", "/api/v1/dlq/requeue", auth::AccessLevel::Admin, [&dead_letters, &limits](const Request& request) {
    const broker::DlqSelection selection = parse_dlq_selection_body(request.principal.tenant, request.body, limits);
    return Response::json(200, nlohmann::json{{"requeued", dead_letters.requeue_dead_letters(selection)}}.dump());
  });

  router.add("DELETE", "/api/v1/dlq", auth::AccessLevel::Admin, [&dead_letters, &limits](const Request& request) {
    const broker::DlqSelection selection = parse_dlq_selection_query(request.principal.tenant, request.query, limits);
    return Response::json(200, nlohmann::json{{"deleted", dead_letters.delete_dead_letters(selection)}}.dump());
  });

  router.add("POST", "/api/v1/dlq/:messageId/requeue", auth::AccessLevel::Admin,
             [&dead_letters, &limits](const Request& request) {
               const std::optional<std::string> group = parse_dlq_group_body(request.body, limits);
               const std::optional<broker::DlqSelection> selection =
                   parse_dlq_message_selection(request.principal.tenant, request.param("messageId"), group);
               if (!selection) return Response::error(404, "Dead letter not found");
               const int requeued = dead_letters.requeue_dead_letters(*selection);
               if (requeued == 0) return Response::error(404, "Dead letter not found");
               return Response::json(200, nlohmann::json{{"requeued", requeued}}.dump());
             });

  router.add("DELETE", "/api/v1/dlq/:messageId", auth::AccessLevel::Admin, [&dead_letters, &limits](const Request& request) {
    const std::optional<broker::DlqSelection> selection = parse_dlq_message_selection(
        request.principal.tenant, request.param("messageId"), query_name(request.query, "consumerGroup", limits));
    if (!selection) return Response::error(404, "Dead letter not found");
    const int deleted = dead_letters.delete_dead_letters(*selection);
    if (deleted == 0) return Response::error(404, "Dead letter not found");
    return Response::json(200, nlohmann::json{{"deleted", deleted}}.dump());
  });
}

}  // namespace queen::http
