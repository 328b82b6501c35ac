// The router and the OpenAPI document (docs/openapi.json, compiled in) list the
// same routes with the same access levels (x-access-level, docs/auth.md "Access
// levels"). A route added, removed or re-levelled on one side only fails here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <tuple>

#include "admin_routes_support.h"
#include "http/api/openapi_document.h"

using namespace queen;

namespace {

using Row = std::tuple<std::string, std::string, std::string>;  // method, pattern, level

// "/api/v1/kv/{key}" -> "/api/v1/kv/:key" (the router's spelling).
std::string router_pattern(const std::string& openapi_path) {
  std::string out;
  for (std::size_t i = 0; i < openapi_path.size(); ++i) {
    const char c = openapi_path[i];
    if (c == '{') {
      out += ':';
    } else if (c != '}') {
      out += c;
    }
  }
  return out;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::set<Row> documented_routes() {
  const nlohmann::json doc = nlohmann::json::parse(http::openapi_document());
  std::set<Row> rows;
  for (const auto& [path, operations] : doc.at("paths").items()) {
    for (const auto& [method, operation] : operations.items()) {
      rows.emplace(upper(method), router_pattern(path), operation.at("x-access-level").get<std::string>());
    }
  }
  return rows;
}

}  // namespace

TEST(RouteAccess, RouterPatternSpelling) {
  EXPECT_EQ(router_pattern("/api/v1/traces/{partitionId}/{transactionId}"), "/api/v1/traces/:partitionId/:transactionId");
  EXPECT_EQ(router_pattern("/health"), "/health");
}

TEST(RouteAccess, TheDocumentIsOpenApi31WithALevelOnEveryOperation) {
  const nlohmann::json doc = nlohmann::json::parse(http::openapi_document());
  EXPECT_EQ(doc.at("openapi"), "3.1.0");
  const std::set<std::string> levels = {"public", "read-only", "read-write", "admin", "operator"};
  for (const auto& [path, operations] : doc.at("paths").items()) {
    for (const auto& [method, operation] : operations.items()) {
      ASSERT_TRUE(operation.contains("x-access-level")) << method << " " << path;
      EXPECT_TRUE(levels.count(operation.at("x-access-level").get<std::string>())) << method << " " << path;
      EXPECT_FALSE(operation.at("responses").empty()) << method << " " << path;
    }
  }
}

TEST(RouteAccess, EveryRouteIsDocumentedWithItsLevelAndEveryDocumentedRouteExists) {
  test::AdminRoutesFixture fixture;
  const http::RouteContext context{fixture.broker, fixture.metrics, fixture.config};
  const http::Router router = http::build_router(context);
  std::set<Row> registered;
  for (const auto& route : router.list()) {
    const bool fresh = registered.emplace(route.method, route.pattern, auth::to_string(route.access)).second;
    EXPECT_TRUE(fresh) << route.method << " " << route.pattern << " is registered twice";
  }
  const std::set<Row> documented = documented_routes();
  for (const Row& row : registered) {
    EXPECT_TRUE(documented.count(row)) << "registered but not in docs/openapi.json with this level: " << std::get<0>(row)
                                       << " " << std::get<1>(row) << " " << std::get<2>(row);
  }
  for (const Row& row : documented) {
    EXPECT_TRUE(registered.count(row)) << "in docs/openapi.json but not registered with this level: "
                                       << std::get<0>(row) << " " << std::get<1>(row) << " " << std::get<2>(row);
  }
}
