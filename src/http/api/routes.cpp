#include "http/api/routes.h"

namespace queen::http {

Router build_router(const RouteContext& context) {
  Router router;
  register_health_routes(router, context);
  register_metrics_routes(router, context);
  register_queue_routes(router, context);
  register_push_routes(router, context);
  register_pop_routes(router, context);
  register_ack_routes(router, context);
  register_lease_routes(router, context);
  register_maintenance_routes(router, context);
  register_logging_routes(router, context);
  register_buffer_routes(router, context);
  register_kv_routes(router, context);
  register_cluster_routes(router, context);
  register_transaction_routes(router, context);
  register_stream_routes(router, context);
  register_dlq_routes(router, context);
  register_view_routes(router, context);
  register_resource_routes(router, context);
  register_consumer_group_routes(router, context);
  register_status_routes(router, context);
  register_openapi_routes(router, context);
  register_trace_routes(router, context);
  register_message_routes(router, context);
  register_partition_routes(router, context);
  register_dashboard_routes(router, context);
  return router;
}

}  // namespace queen::http
