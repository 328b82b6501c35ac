// Every route build_router registers, with the access level it demands
// (docs/auth.md, "Access levels"). A route added without updating this table,
// or with another level, fails here.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "admin_routes_support.h"

using namespace queen;

namespace {

using Row = std::tuple<std::string, std::string, std::string>;  // method, pattern, level

const std::set<Row> kExpected = {
    {"GET", "/health", "public"},
    {"GET", "/health/ready", "public"},
    {"GET", "/metrics", "public"},
    {"GET", "/metrics/prometheus", "public"},
    {"POST", "/api/v1/configure", "read-write"},
    {"POST", "/api/v1/push", "read-write"},
    {"GET", "/api/v1/pop/queue/:queue", "read-write"},
    {"GET", "/api/v1/pop/queue/:queue/partition/:partition", "read-write"},
    {"GET", "/api/v1/pop", "read-write"},
    {"POST", "/api/v1/ack", "read-write"},
    {"POST", "/api/v1/ack/batch", "read-write"},
    {"POST", "/api/v1/lease/:leaseId/extend", "read-write"},
    {"POST", "/api/v1/transaction", "read-write"},
    {"GET", "/api/v1/dlq", "read-only"},
    {"GET", "/api/v1/status/buffers", "read-only"},
    {"DELETE", "/api/v1/resources/queues/:queue", "admin"},
    // Statistics (docs/operations-stats.md).
    {"POST", "/api/v1/stats/refresh", "admin"},
    {"GET", "/api/v1/resources/overview", "read-only"},
    {"GET", "/api/v1/resources/queues", "read-only"},
    {"GET", "/api/v1/resources/queues/:queue", "read-only"},
    {"GET", "/api/v1/resources/namespaces", "read-only"},
    {"GET", "/api/v1/resources/tasks", "read-only"},
    {"GET", "/api/v1/status", "read-only"},
    {"GET", "/api/v1/status/queues", "read-only"},
    {"GET", "/api/v1/status/queues/:queue", "read-only"},
    {"GET", "/api/v1/status/queues/:queue/messages", "read-only"},
    {"GET", "/api/v1/status/analytics", "read-only"},
    {"GET", "/api/v1/analytics/system-metrics", "read-only"},
    {"GET", "/api/v1/analytics/worker-metrics", "read-only"},
    {"GET", "/api/v1/analytics/postgres-stats", "read-only"},
    {"GET", "/api/v1/analytics/queue-lag", "read-only"},
    {"GET", "/api/v1/analytics/queue-ops", "read-only"},
    {"GET", "/api/v1/analytics/queue-parked-replicas", "read-only"},
    {"GET", "/api/v1/analytics/retention", "read-only"},
    {"GET", "/api/v1/system/maintenance", "admin"},
    {"POST", "/api/v1/system/maintenance", "admin"},
    {"GET", "/api/v1/system/maintenance/pop", "admin"},
    {"POST", "/api/v1/system/maintenance/pop", "admin"},
    {"GET", "/api/v1/system/shared-state", "admin"},
    {"GET", "/api/v1/kv/:key", "read-only"},
    {"PUT", "/api/v1/kv/:key", "read-write"},
    {"DELETE", "/api/v1/kv/:key", "read-write"},
};

}  // namespace

TEST(RouteAccess, EveryRouteHasTheLevelOfTheTable) {
  test::AdminRoutesFixture fixture;
  const http::RouteContext context{fixture.broker, fixture.metrics, fixture.config};
  const http::Router router = http::build_router(context);
  std::set<Row> registered;
  for (const auto& route : router.list()) {
    const bool fresh = registered.emplace(route.method, route.pattern, auth::to_string(route.access)).second;
    EXPECT_TRUE(fresh) << route.method << " " << route.pattern << " is registered twice";
  }
  for (const Row& row : registered) {
    EXPECT_TRUE(kExpected.count(row)) << "not in the table (add it, with its level, here and in docs/auth.md): "
                                      << std::get<0>(row) << " " << std::get<1>(row) << " " << std::get<2>(row);
  }
  for (const Row& row : kExpected) {
    EXPECT_TRUE(registered.count(row)) << "in the table but not registered with this level: " << std::get<0>(row)
                                       << " " << std::get<1>(row) << " " << std::get<2>(row);
  }
}
