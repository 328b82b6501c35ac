// PUT/GET/DELETE /api/v1/kv/:key: a JSON value per key with an optional TTL,
// stored in PostgreSQL (docs/operations-ha.md). An expired key is absent.
// Keys are the requester's tenant's (docs/tenants.md).
#include "broker/cluster.h"
#include "http/api/kv_request.h"
#include "http/api/routes.h"

namespace queen::http {
namespace {

broker::KvStore& kv_of(broker::Cluster* cluster) {
  if (cluster == nullptr) throw HttpError(503, "the KV store is not available on this broker");
  return cluster->kv();
}

}  // namespace

void register_kv_routes(Router& router, const RouteContext& context) {
  broker::Cluster* cluster = context.cluster;
  const config::LimitsConfig& limits = context.config.limits;

  router.add("PUT", "/api/v1/kv/:key", auth::AccessLevel::ReadWrite, [cluster, &limits](const Request& request) {
    const std::string& key = request.param("key");
    validate_kv_key(key, limits);
    const KvPutRequest put = parse_kv_put_body(request.body, limits);
    return Response::json(200, render_kv_value(kv_of(cluster).put(key, put.value_json, put.ttl_ms, request.principal.tenant)));
  });

  router.add("GET", "/api/v1/kv/:key", auth::AccessLevel::ReadOnly, [cluster, &limits](const Request& request) {
    const std::string& key = request.param("key");
    validate_kv_key(key, limits);
    const std::optional<broker::KvValue> value = kv_of(cluster).get(key, request.principal.tenant);
    if (!value) return Response::error(404, "Key not found");
    return Response::json(200, render_kv_value(*value));
  });

  router.add("DELETE", "/api/v1/kv/:key", auth::AccessLevel::ReadWrite, [cluster, &limits](const Request& request) {
    const std::string& key = request.param("key");
    validate_kv_key(key, limits);
    return Response::json(200, render_kv_deleted(key, kv_of(cluster).remove(key, request.principal.tenant)));
  });
}

}  // namespace queen::http
