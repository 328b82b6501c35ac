// GET / and GET /dashboard/:build/:asset: the dashboard (docs/dashboard.md),
// public like /health: the page holds no data, and every API call it makes
// carries the user's token. The files are compiled in (dashboard_assets.h).
#include <string>
#include <string_view>

#include "http/api/dashboard_assets.h"
#include "http/api/routes.h"

namespace queen::http {
namespace {

// The page loads only what this broker serves, and runs no inline script.
constexpr const char* kPageSecurityPolicy =
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'";
// Assets are named by the build id, so a browser may keep them for good.
constexpr const char* kImmutable = "public, max-age=31536000, immutable";
// The page itself, and an asset asked for under another build id (a page of an older or newer broker
// behind the same address): revalidated every time.
constexpr const char* kRevalidate = "no-cache";

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string content_type_of(std::string_view name) {
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".js")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

const DashboardAsset* find_asset(std::string_view name) {
  std::size_t count = 0;
  const DashboardAsset* assets = dashboard_assets(&count);
  for (std::size_t i = 0; i < count; ++i) {
    if (assets[i].name == name) return &assets[i];
  }
  return nullptr;
}

Response asset_response(const DashboardAsset& asset, const char* cache_control) {
  Response response;
  response.content_type = content_type_of(asset.name);
  response.body = std::string(asset.body);
  response.headers = {{"Cache-Control", cache_control}, {"X-Content-Type-Options", "nosniff"}};
  return response;
}

}  // namespace

void register_dashboard_routes(Router& router, const RouteContext&) {
  router.add("GET", "/", auth::kPublic, [](const Request&) {
    Response response = asset_response(*find_asset("index.html"), kRevalidate);
    response.headers.emplace_back("Content-Security-Policy", kPageSecurityPolicy);
    response.headers.emplace_back("Referrer-Policy", "no-referrer");
    return response;
  });

  router.add("GET", "/dashboard/:build/:asset", auth::kPublic, [](const Request& request) {
    const DashboardAsset* asset = find_asset(request.param("asset"));
    if (asset == nullptr || asset->name == "index.html") return Response::error(404, "No such dashboard file");
    return asset_response(*asset, request.param("build") == dashboard_build_id() ? kImmutable : kRevalidate);
  });
}

}  // namespace queen::http
