#include "http/transport/dispatcher.h"

#include <gtest/gtest.h>

#include <openssl/hmac.h>

#include <cstring>

#include "auth/base64url.h"
#include "broker/broker_error.h"
#include "config/config.h"

using namespace queen;
using namespace queen::http;

namespace {

bool has_header(const Response& r, const std::string& name, const std::string& value) {
  for (const auto& [n, v] : r.headers) {
    if (n == name && v == value) return true;
  }
  return false;
}

Response dispatch(const Dispatcher& dispatcher, const std::string& method, const std::string& path,
                  const std::string& authorization = "") {
  Request r;
  r.method = method;
  r.path = path;
  r.authorization = authorization;
  return dispatcher.dispatch(r);
}

// CORS is the server's (http/cors.h, by the request's Origin): the dispatcher adds none.
bool has_no_cors(const Response& r) {
  for (const auto& [name, value] : r.headers) {
    if (name.rfind("Access-Control-", 0) == 0) return false;
  }
  return true;
}

struct DispatcherFixture : ::testing::Test {
  metrics::Metrics metrics;
  Dispatcher dispatcher{make_router(), metrics};

  static Router make_router() {
    Router router;
    router.add("GET", "/ok/:name", queen::auth::kPublic, [](const Request& r) { return Response::json(200, "\"" + r.param("name") + "\""); });
    router.add("POST", "/bad", queen::auth::kPublic, [](const Request&) -> Response { throw HttpError(400, "queue is required"); });
    router.add("POST", "/down", queen::auth::kPublic, [](const Request&) -> Response {
      throw broker::BrokerError(broker::ErrorKind::Unavailable, "database unavailable");
    });
    router.add("POST", "/boom", queen::auth::kPublic, [](const Request&) -> Response { throw std::runtime_error("boom"); });
    return router;
  }

  Response run(const std::string& method, const std::string& path) { return dispatch(dispatcher, method, path); }
};

}  // namespace

TEST_F(DispatcherFixture, RoutesWithParamsAndNoCors) {
  const Response r = run("GET", "/ok/a%20b");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "\"a b\"");
  EXPECT_TRUE(has_no_cors(r));
  EXPECT_EQ(metrics.counters().requests, 1u);
}

TEST_F(DispatcherFixture, OptionsIsANoContentPreflight) {
  const Response r = run("OPTIONS", "/anything/at/all");
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.body.empty());
  EXPECT_TRUE(has_no_cors(r));
}

TEST_F(DispatcherFixture, NotFoundAndMethodNotAllowed) {
  const Response missing = run("GET", "/api/v1/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "{\"error\":\"Not found\"}");
  EXPECT_TRUE(has_no_cors(missing));
  const Response wrong = run("DELETE", "/bad");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_TRUE(has_header(wrong, "Allow", "POST, OPTIONS"));
}

TEST_F(DispatcherFixture, ErrorsBecomeTheEnvelopeWithTheirStatus) {
  Response r = run("POST", "/bad");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "{\"error\":\"queue is required\"}");
  EXPECT_TRUE(has_no_cors(r));
  r = run("POST", "/down");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "{\"error\":\"database unavailable\"}");
  // An unexpected exception's text may carry internals: logged, not sent.
  r = run("POST", "/boom");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "{\"error\":\"Internal error\"}");
}

namespace {

// The same kind of routes behind the access gate (HS256).
struct GatedDispatcherFixture : ::testing::Test {
  static constexpr const char* kSecret = "dispatcher-test-secret-0123456789abcdef";
  metrics::Metrics metrics;
  auth::Gate gate{jwt_config()};
  Dispatcher dispatcher{make_router(), metrics, &gate};

  static config::JwtConfig jwt_config() {
    config::JwtConfig c = config::Config::defaults().jwt;
    c.enabled = true;
    c.secret = kSecret;
    return c;
  }

  static Router make_router() {
    Router router;
    router.add("GET", "/metrics", auth::kPublic, [](const Request&) { return Response::json(200, "{}"); });
    router.add("GET", "/who", auth::AccessLevel::ReadOnly, [](const Request& r) {
      return Response::json(200, "\"" + r.principal.tenant.name() + "/" + r.principal.subject.value_or("-") + "\"");
    });
    router.add("POST", "/admin", auth::AccessLevel::Admin, [](const Request&) { return Response::json(200, "{}"); });
    return router;
  }

  static std::string token(const std::string& claims_json) {
    const std::string input = auth::base64url_encode(R"({"alg":"HS256","typ":"JWT"})") + "." +
                              auth::base64url_encode(claims_json);
    unsigned char mac[32];
    unsigned int size = 0;
    HMAC(EVP_sha256(), kSecret, static_cast<int>(std::strlen(kSecret)),
         reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &size);
    return "Bearer " + input + "." + auth::base64url_encode(std::string(reinterpret_cast<char*>(mac), size));
  }

  Response run(const std::string& method, const std::string& path, const std::string& authorization = "") {
    return dispatch(dispatcher, method, path, authorization);
  }
};

}  // namespace

TEST_F(GatedDispatcherFixture, NoTokenIs401WithTheChallenge) {
  const Response r = run("GET", "/who");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, "{\"error\":\"Authentication required\"}");
  EXPECT_TRUE(has_header(r, "WWW-Authenticate", "Bearer realm=\"queen\""));
  EXPECT_TRUE(has_no_cors(r));
  const Response bad = run("GET", "/who", "Bearer x.y.z");
  EXPECT_EQ(bad.status, 401);
  EXPECT_TRUE(has_header(bad, "WWW-Authenticate", "Bearer realm=\"queen\", error=\"invalid_token\""));
  EXPECT_EQ(run("GET", "/metrics").status, 200);
  EXPECT_EQ(run("OPTIONS", "/who").status, 204);  // preflights carry no credentials
}

TEST_F(GatedDispatcherFixture, PrincipalReachesTheHandlerAndLevelsAreEnforced) {
  const std::string reader = token(R"({"sub":"svc","tenant":"acme","role":"read-only"})");
  const Response who = run("GET", "/who", reader);
  EXPECT_EQ(who.status, 200);
  EXPECT_EQ(who.body, "\"acme/svc\"");
  const Response denied = run("POST", "/admin", reader);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body, "{\"error\":\"Insufficient permissions\"}");
  EXPECT_EQ(run("POST", "/admin", token(R"({"role":"admin"})")).status, 200);
}

TEST_F(GatedDispatcherFixture, UnknownPathsAre401WithoutAToken404WithOne) {
  EXPECT_EQ(run("GET", "/api/v1/nope").status, 401);
  EXPECT_EQ(run("GET", "/api/v1/nope", token(R"({"role":"nothing-known"})")).status, 404);
  EXPECT_EQ(run("DELETE", "/who").status, 401);
  EXPECT_EQ(run("DELETE", "/who", token(R"({"role":"read-only"})")).status, 405);
  EXPECT_EQ(run("GET", "/").status, 404);  // "/" is public by default
}

TEST_F(GatedDispatcherFixture, TheHeadIsJudgedOnceAndItsPrincipalIsWhatTheHandlerSees) {
  Request head;
  head.method = "GET";
  head.path = "/who";
  head.authorization = token(R"({"sub":"svc","tenant":"acme","role":"read-only"})");
  EXPECT_FALSE(dispatcher.authorize_head(head).has_value());
  EXPECT_TRUE(head.head_authorized);
  EXPECT_EQ(head.principal.tenant.name(), "acme");
  // dispatch() takes the head's principal as it is: no second verification of the token.
  head.authorization = "Bearer not-a-token-any-more";
  EXPECT_EQ(dispatcher.dispatch(head).body, "\"acme/svc\"");

  Request anonymous;
  anonymous.method = "POST";
  anonymous.path = "/admin";
  const std::optional<Response> refused = dispatcher.authorize_head(anonymous);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 401);
  EXPECT_TRUE(has_header(*refused, "WWW-Authenticate", "Bearer realm=\"queen\""));
  EXPECT_FALSE(anonymous.head_authorized);
  EXPECT_EQ(metrics.counters().requests, 2u);  // the refusal is counted where it is answered

  Request reader;
  reader.method = "POST";
  reader.path = "/admin";
  reader.authorization = token(R"({"role":"read-only"})");
  ASSERT_TRUE(dispatcher.authorize_head(reader).has_value());
  EXPECT_EQ(dispatcher.authorize_head(reader)->status, 403);

  Request preflight;
  preflight.method = "OPTIONS";
  preflight.path = "/admin";
  EXPECT_FALSE(dispatcher.authorize_head(preflight).has_value());
}

TEST_F(GatedDispatcherFixture, ATokenWithARepeatedRoleIsRefused) {
  const Response r = run("GET", "/who", token(R"({"role":"read-only","role":"admin"})"));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, "{\"error\":\"Invalid token: the payload repeats the member \\\"role\\\"\"}");
}

namespace {

Request from_page(const std::string& method, const std::string& path, RequestSource source) {
  Request r;
  r.method = method;
  r.path = path;
  r.source = std::move(source);
  return r;
}

// The fixture's public routes and two that change state (not public).
Router with_writes() {
  Router router = DispatcherFixture::make_router();
  router.add("GET", "/pop", auth::AccessLevel::ReadWrite, [](const Request&) { return Response::json(200, "{}"); });
  router.add("POST", "/store", auth::AccessLevel::ReadWrite, [](const Request&) { return Response::json(200, "{}"); });
  return router;
}

}  // namespace

TEST_F(DispatcherFixture, ABrowsersRequestFromAnotherOriginIsRefusedUnlessItsRouteIsPublic) {
  const Dispatcher strict{with_writes(), metrics};
  const RequestSource cross_site{"http://evil.test", "cross-site", "127.0.0.1:6632", ""};
  // A GET that changes state (a pop) from an <img> of another site: refused on its head.
  Request pop = from_page("GET", "/pop", {"", "cross-site", "127.0.0.1:6632", ""});
  const std::optional<Response> refused = strict.authorize_head(pop);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 403);
  EXPECT_EQ(refused->body, "{\"error\":\"Cross-origin request refused: the calling page's origin is not listed in "
                           "HTTP_CORS_ORIGINS\"}");
  EXPECT_FALSE(pop.head_authorized);
  // dispatch() alone refuses it too (a request that never went through authorize_head).
  Request again = from_page("POST", "/store", cross_site);
  EXPECT_EQ(strict.dispatch(again).status, 403);
  // Public routes (a link to the dashboard from elsewhere) and requests without a browser's marks go on.
  Request page = from_page("GET", "/ok/x", cross_site);
  EXPECT_FALSE(strict.authorize_head(page).has_value());
  EXPECT_EQ(strict.dispatch(page).status, 200);
  Request client = from_page("GET", "/pop", {});
  EXPECT_FALSE(strict.authorize_head(client).has_value());
  EXPECT_TRUE(client.head_authorized);
  EXPECT_EQ(strict.dispatch(client).status, 200);
  // Preflights are the CORS policy's.
  Request preflight = from_page("OPTIONS", "/pop", cross_site);
  EXPECT_FALSE(strict.authorize_head(preflight).has_value());
}

TEST_F(DispatcherFixture, AListedOriginMayCallEveryRoute) {
  const Dispatcher listed{with_writes(), metrics, nullptr, CorsPolicy({"http://app.test"})};
  Request request = from_page("POST", "/store", {"http://app.test", "cross-site", "127.0.0.1:6632", ""});
  EXPECT_FALSE(listed.authorize_head(request).has_value());
  EXPECT_EQ(listed.dispatch(request).status, 200);
  Request other = from_page("POST", "/store", {"http://app.test.evil", "cross-site", "127.0.0.1:6632", ""});
  ASSERT_TRUE(listed.authorize_head(other).has_value());
  EXPECT_EQ(listed.authorize_head(other)->status, 403);
  const Dispatcher any{with_writes(), metrics, nullptr, CorsPolicy({"*"})};
  Request image = from_page("GET", "/pop", {"", "cross-site", "127.0.0.1:6632", ""});
  EXPECT_FALSE(any.authorize_head(image).has_value());
}

TEST_F(GatedDispatcherFixture, AnotherOriginIsRefusedBeforeTheToken) {
  Request request;
  request.method = "POST";
  request.path = "/admin";
  request.authorization = token(R"({"role":"admin"})");
  request.source = {"http://evil.test", "cross-site", "127.0.0.1:6632", ""};
  const std::optional<Response> refused = dispatcher.authorize_head(request);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 403);
  EXPECT_NE(refused->body.find("HTTP_CORS_ORIGINS"), std::string::npos);
}
