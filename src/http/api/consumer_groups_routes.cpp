// /api/v1/consumer-groups/* (docs/http-api.md, consumer groups): listings,
// deletion (everywhere or on one queue), the subscription start, and seeks.
// Every route acts on the requester's tenant (docs/tenants.md). The router
// prefers the literal `lagging` over `:group`.
#include "broker/consumer_groups.h"
#include "http/api/consumer_groups_request.h"
#include "http/api/routes.h"
#include "http/transport/input_limits.h"

namespace queen::http {
namespace {

broker::ConsumerGroups& groups_of(broker::ConsumerGroups* groups) {
  if (groups == nullptr) throw HttpError(503, "consumer-group administration is not available on this broker");
  return *groups;
}

// A path segment that must be a valid name (a NUL would cut it short in libpq).
const std::string& name_param(const Request& request, const char* param, const char* label,
                              const config::LimitsConfig& limits) {
  const std::string& value = request.param(param);
  check_name(value, label, limits);
  return value;
}

}  // namespace

void register_consumer_group_routes(Router& router, const RouteContext& context) {
  broker::ConsumerGroups* groups = context.consumer_groups;
  const config::LimitsConfig& limits = context.config.limits;

  router.add("GET", "/api/v1/consumer-groups", auth::AccessLevel::ReadOnly, [groups](const Request& request) {
    return Response::json(200, groups_of(groups).list(request.principal.tenant));
  });

  router.add("GET", "/api/v1/consumer-groups/lagging", auth::AccessLevel::ReadOnly, [groups](const Request& request) {
    return Response::json(200, groups_of(groups).lagging(parse_min_lag_seconds(request.query), request.principal.tenant));
  });

  router.add("GET", "/api/v1/consumer-groups/:group", auth::AccessLevel::ReadOnly,
             [groups, &limits](const Request& request) {
               const std::string& group = name_param(request, "group", "consumerGroup", limits);
               return Response::json(200, groups_of(groups).detail(group, request.principal.tenant));
             });

  router.add("DELETE", "/api/v1/consumer-groups/:group", auth::AccessLevel::Admin,
             [groups, &limits](const Request& request) {
               const std::string& group = name_param(request, "group", "consumerGroup", limits);
               const bool delete_metadata = parse_delete_metadata(request.query);
               const int deleted =
                   groups_of(groups).remove(group, std::nullopt, delete_metadata, request.principal.tenant);
               return Response::json(200, render_group_deleted(group, std::nullopt, deleted, delete_metadata));
             });

  router.add("POST", "/api/v1/consumer-groups/:group/subscription", auth::AccessLevel::ReadWrite,
             [groups, &limits](const Request& request) {
               const std::string& group = name_param(request, "group", "consumerGroup", limits);
               const std::string timestamp = parse_subscription_timestamp(request.body, limits);
               const int updated = groups_of(groups).set_subscription_start(group, timestamp, request.principal.tenant);
               return Response::json(200, render_subscription_updated(group, timestamp, updated));
             });

  router.add("DELETE", "/api/v1/consumer-groups/:group/queues/:queue", auth::AccessLevel::Admin,
             [groups, &limits](const Request& request) {
               const std::string& group = name_param(request, "group", "consumerGroup", limits);
               const std::string& queue = name_param(request, "queue", "queue", limits);
               const bool delete_metadata = parse_delete_metadata(request.query);
               const int deleted = groups_of(groups).remove(group, queue, delete_metadata, request.principal.tenant);
               return Response::json(200, render_group_deleted(group, queue, deleted, delete_metadata));
             });

  router.add("POST", "/api/v1/consumer-groups/:group/queues/:queue/seek", auth::AccessLevel::ReadWrite,
             [groups, &limits](const Request& request) {
               const std::string& group = name_param(request, "group", "consumerGroup", limits);
               const std::string& queue = name_param(request, "queue", "queue", limits);
               const SeekRequest seek = parse_seek_body(request.body, limits);
               const int moved =
                   groups_of(groups).seek(group, queue, seek.to_end, seek.timestamp, request.principal.tenant);
               return Response::json(200, render_seek(group, queue, seek, moved));
             });

  router.add("POST", "/api/v1/consumer-groups/:group/queues/:queue/partitions/:partition/seek",
             auth::AccessLevel::ReadWrite, [groups, &limits](const Request& request) {
               const std::string& group = name_param(request, "group", "consumerGroup", limits);
               const std::string& queue = name_param(request, "queue", "queue", limits);
               const std::string& partition = name_param(request, "partition", "partition", limits);
               const broker::PartitionSeekResult seek =
                   groups_of(groups).seek_partition_to_end(group, queue, partition, request.principal.tenant);
               if (!seek.partition_found) return Response::error(404, "Partition not found");
               return Response::json(200, render_partition_seek(group, queue, partition, seek.cursor_moved_to_us));
             });
}

}  // namespace queen::http
