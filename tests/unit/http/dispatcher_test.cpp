#include "http/dispatcher.h"

#include <gtest/gtest.h>

#include "broker/broker_error.h"

using namespace queen;
using namespace queen::http;

namespace {

bool has_header(const Response& r, const std::string& name, const std::string& value) {
  for (const auto& [n, v] : r.headers) {
    if (n == name && v == value) return true;
  }
  return false;
}

bool has_cors(const Response& r) {
  return has_header(r, "Access-Control-Allow-Origin", "*") &&
         has_header(r, "Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS") &&
         has_header(r, "Access-Control-Allow-Headers", "Content-Type, Authorization");
}

struct DispatcherFixture : ::testing::Test {
  metrics::Metrics metrics;
  Dispatcher dispatcher{make_router(), metrics};

  static Router make_router() {
    Router router;
    router.add("GET", "/ok/:name", [](const Request& r) { return Response::json(200, "\"" + r.param("name") + "\""); });
    router.add("POST", "/bad", [](const Request&) -> Response { throw HttpError(400, "queue is required"); });
    router.add("POST", "/down", [](const Request&) -> Response {
      throw broker::BrokerError(broker::ErrorKind::Unavailable, "database unavailable");
    });
    router.add("POST", "/boom", [](const Request&) -> Response { throw std::runtime_error("boom"); });
    return router;
  }

  Response run(const std::string& method, const std::string& path) {
    Request r;
    r.method = method;
    r.path = path;
    return dispatcher.dispatch(r);
  }
};

}  // namespace

TEST_F(DispatcherFixture, RoutesWithParamsAndCors) {
  const Response r = run("GET", "/ok/a%20b");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "\"a b\"");
  EXPECT_TRUE(has_cors(r));
  EXPECT_EQ(metrics.counters().requests, 1u);
}

TEST_F(DispatcherFixture, OptionsIsANoContentPreflight) {
  const Response r = run("OPTIONS", "/anything/at/all");
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.body.empty());
  EXPECT_TRUE(has_cors(r));
  EXPECT_TRUE(has_header(r, "Access-Control-Max-Age", "86400"));
}

TEST_F(DispatcherFixture, NotFoundAndMethodNotAllowed) {
  const Response missing = run("GET", "/api/v1/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "{\"error\":\"Not found\"}");
  EXPECT_TRUE(has_cors(missing));
  const Response wrong = run("DELETE", "/bad");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_TRUE(has_header(wrong, "Allow", "POST, OPTIONS"));
}

TEST_F(DispatcherFixture, ErrorsBecomeTheEnvelopeWithTheirStatus) {
  Response r = run("POST", "/bad");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "{\"error\":\"queue is required\"}");
  EXPECT_TRUE(has_cors(r));
  r = run("POST", "/down");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "{\"error\":\"database unavailable\"}");
  // An unexpected exception's text may carry internals: logged, not sent.
  r = run("POST", "/boom");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "{\"error\":\"Internal error\"}");
}
