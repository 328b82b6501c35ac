// Which requests a browser marks as coming from a page of another origin, and which of them the
// broker refuses (docs/auth.md, "Browsers and CORS").
#include "http/transport/cross_site.h"

#include <gtest/gtest.h>

using namespace queen::http;

namespace {

RequestSource site(std::string fetch_site, std::string origin = "") {
  return RequestSource{std::move(origin), std::move(fetch_site), "127.0.0.1:6632", ""};
}

RequestSource origin_only(std::string origin, std::string host = "127.0.0.1:6632", std::string forwarded = "") {
  return RequestSource{std::move(origin), "", std::move(host), std::move(forwarded)};
}

}  // namespace

TEST(CrossSite, SecFetchSiteDecidesWhenPresent) {
  EXPECT_FALSE(from_another_origin(site("same-origin")));
  EXPECT_FALSE(from_another_origin(site("none")));  // typed in the address bar, a bookmark
  EXPECT_TRUE(from_another_origin(site("same-site")));  // localhost:5173 calling localhost:6632
  EXPECT_TRUE(from_another_origin(site("cross-site")));
  EXPECT_TRUE(from_another_origin(site("something-new")));  // a value we do not know is not ours
  // The browser's word wins over an Origin that looks foreign (a proxy that rewrites Host).
  EXPECT_FALSE(from_another_origin(site("same-origin", "https://queen.example.com")));
  EXPECT_TRUE(from_another_origin(site("cross-site", "http://127.0.0.1:6632")));
}

TEST(CrossSite, WithoutSecFetchSiteTheOriginIsComparedWithTheHost) {
  EXPECT_FALSE(from_another_origin(origin_only("http://127.0.0.1:6632")));
  EXPECT_FALSE(from_another_origin(origin_only("https://Queen.Example.com", "queen.example.com")));
  EXPECT_FALSE(from_another_origin(origin_only("http://queen.example.com", "queen.example.com:80")));
  EXPECT_FALSE(from_another_origin(origin_only("https://queen.example.com", "queen.example.com:443")));
  EXPECT_FALSE(from_another_origin(origin_only("http://[::1]:6632", "[::1]:6632")));
  // Behind a proxy that rewrites Host and says which host it was asked for.
  EXPECT_FALSE(from_another_origin(origin_only("https://queen.example.com", "10.0.0.5:6632",
                                               "queen.example.com, proxy.internal")));
  EXPECT_TRUE(from_another_origin(origin_only("http://127.0.0.1:6633")));  // another port
  EXPECT_TRUE(from_another_origin(origin_only("http://localhost:6632")));  // another host name
  EXPECT_TRUE(from_another_origin(origin_only("http://queen.example.com:8080", "queen.example.com")));
  EXPECT_TRUE(from_another_origin(origin_only("null")));  // sandboxed frames, file: pages
  EXPECT_TRUE(from_another_origin(origin_only("http://127.0.0.1:6632/path")));  // not an origin
  EXPECT_TRUE(from_another_origin(origin_only("127.0.0.1:6632")));
  EXPECT_TRUE(from_another_origin(origin_only("http://127.0.0.1:6632", "")));  // no Host to compare with
}

TEST(CrossSite, NoBrowserHeadersIsNoCrossOriginRequest) {
  // The official clients, curl and scripts send neither Sec-Fetch-Site nor Origin.
  EXPECT_FALSE(from_another_origin(RequestSource{}));
  EXPECT_FALSE(from_another_origin(origin_only("", "queen.example.com")));
}

TEST(CrossSite, RefusedUnlessListedOrPublic) {
  const CorsPolicy none({});
  const CorsPolicy listed({"http://localhost:5173"});
  const CorsPolicy any({"*"});
  const std::optional<Response> refused = refuse_cross_origin(site("cross-site", "http://evil.test"), none, false);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 403);
  EXPECT_NE(refused->body.find("HTTP_CORS_ORIGINS"), std::string::npos);
  EXPECT_FALSE(refuse_cross_origin(site("cross-site", "http://evil.test"), none, true));  // public route
  EXPECT_FALSE(refuse_cross_origin(site("same-origin"), none, false));
  EXPECT_FALSE(refuse_cross_origin(site("same-site", "http://localhost:5173"), listed, false));
  EXPECT_TRUE(refuse_cross_origin(site("same-site", "http://localhost:5174"), listed, false));
  EXPECT_TRUE(refuse_cross_origin(site("cross-site"), listed, false));  // an <img>: no Origin to find listed
  EXPECT_FALSE(refuse_cross_origin(site("cross-site"), any, false));
  EXPECT_FALSE(refuse_cross_origin(origin_only("null"), any, false));
  EXPECT_TRUE(refuse_cross_origin(origin_only("null"), listed, false));
}
