// GET / and GET /dashboard/:build/:asset: the compiled-in dashboard files
// (web/, cmake/dashboard_assets.cmake), their types and caching headers.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "admin_routes_support.h"
#include "http/api/dashboard_assets.h"

using namespace queen;
using namespace queen::http;

namespace {

struct DashboardRoutes : ::testing::Test, test::AdminRoutesFixture {
  Router router;

  DashboardRoutes() { register_dashboard_routes(router, RouteContext{broker, metrics, config}); }

  Response get(const std::string& path) {
    const Router::Match match = router.match("GET", path);
    if (match.handler == nullptr) return Response::error(404, "no route");
    Request request;
    request.method = "GET";
    request.path = path;
    request.params = match.params;
    return (*match.handler)(request);
  }

  static std::string header(const Response& response, const std::string& name) {
    for (const auto& [key, value] : response.headers) {
      if (key == name) return value;
    }
    return "";
  }
};

std::set<std::string> asset_names() {
  std::size_t count = 0;
  const DashboardAsset* assets = dashboard_assets(&count);
  std::set<std::string> names;
  for (std::size_t i = 0; i < count; ++i) names.emplace(assets[i].name);
  return names;
}

}  // namespace

TEST_F(DashboardRoutes, ThePageIsHtmlRevalidatedAndNamesItsAssetsByBuild) {
  const Response page = get("/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(header(page, "Cache-Control"), "no-cache");
  EXPECT_NE(header(page, "Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(page.body.find("%QUEEN_WEB_BUILD%"), std::string::npos);
  const std::string build(dashboard_build_id());
  EXPECT_EQ(build.size(), 12U);
  EXPECT_NE(page.body.find("dashboard/" + build + "/main.js"), std::string::npos);
}

TEST_F(DashboardRoutes, EveryAssetThePageNamesIsServedWithItsTypeAndCachedForGood) {
  const std::string page = get("/").body;
  const std::regex reference("dashboard/([0-9a-f]+)/([A-Za-z0-9_.-]+)");
  int references = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), reference); it != std::sregex_iterator(); ++it) {
    ++references;
    const Response asset = get("/" + (*it)[0].str());
    EXPECT_EQ(asset.status, 200) << (*it)[0];
    EXPECT_EQ(header(asset, "Cache-Control"), "public, max-age=31536000, immutable") << (*it)[0];
    EXPECT_EQ(header(asset, "X-Content-Type-Options"), "nosniff");
    const std::string name = (*it)[2];
    const std::string extension = name.substr(name.rfind('.'));
    const std::string expected = extension == ".js"    ? "text/javascript; charset=utf-8"
                                 : extension == ".css" ? "text/css; charset=utf-8"
                                                       : "image/svg+xml";
    EXPECT_EQ(asset.content_type, expected) << name;
  }
  EXPECT_GE(references, 5);
}

TEST_F(DashboardRoutes, EveryModuleImportNamesAnAsset) {
  const std::set<std::string> names = asset_names();
  const std::regex import_from("from '\\./([A-Za-z0-9_.-]+)'");
  std::size_t count = 0;
  const DashboardAsset* assets = dashboard_assets(&count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string body(assets[i].body);
    for (auto it = std::sregex_iterator(body.begin(), body.end(), import_from); it != std::sregex_iterator(); ++it) {
      EXPECT_TRUE(names.count((*it)[1])) << assets[i].name << " imports " << (*it)[1];
    }
  }
}

TEST_F(DashboardRoutes, AnotherBuildIsServedButRevalidated) {
  const Response asset = get("/dashboard/0123456789ab/main.js");
  EXPECT_EQ(asset.status, 200);
  EXPECT_EQ(header(asset, "Cache-Control"), "no-cache");
}

TEST_F(DashboardRoutes, UnknownFilesAndThePageUnderTheAssetPathAre404) {
  const std::string prefix = "/dashboard/" + std::string(dashboard_build_id()) + "/";
  for (const char* name : {"nothing.js", "index.html", "..%2Fmain.js"}) {
    const Response response = get(prefix + std::string(name));
    EXPECT_EQ(response.status, 404) << name;
    EXPECT_EQ(response.body, R"({"error":"No such dashboard file"})") << name;
  }
}

TEST(DashboardAssets, TheFilesAreSmallAndNamedUniquely) {
  std::size_t count = 0;
  const DashboardAsset* assets = dashboard_assets(&count);
  std::size_t total_bytes = 0;
  for (std::size_t i = 0; i < count; ++i) total_bytes += assets[i].body.size();
  EXPECT_EQ(asset_names().size(), count);
  EXPECT_TRUE(asset_names().count("index.html"));
  EXPECT_LE(total_bytes, 1048576U);  // QUEEN_WEB_MAX_BYTES of cmake/dashboard_assets.cmake
}
