// GET /api/v1/resources/partitions[?queue=] (docs/api-extensions.md,
// "Messages"): the caller's partitions with message counters taken from the
// sequence allocator and the cursors, never from counting messages.
#include "http/api/routes.h"
#include "http/transport/query.h"

namespace queen::http {

void register_partition_routes(Router& router, const RouteContext& context) {
  broker::MessageAdmin& message_admin = context.broker.message_admin();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("GET", "/api/v1/resources/partitions", auth::AccessLevel::ReadOnly,
             [&message_admin, &limits](const Request& request) {
               const std::optional<std::string> queue = query_name(request.query, "queue", limits);
               const Page page = parse_page(request.query, kMaxAdminPageSize, limits);
               return Response::json(
                   200, message_admin.list_partitions(queue, page.limit, page.offset, request.principal.tenant));
             });
}

}  // namespace queen::http
