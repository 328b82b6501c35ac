// The pure pieces of the transport's bounds: the target decided at the head
// (UTF-8), the CORS policy, and the request-body budget.
#include <gtest/gtest.h>

#include "http/transport/body_budget.h"
#include "http/transport/cors.h"
#include "http/transport/wire_request.h"

using namespace queen;
using namespace queen::http;

namespace {

std::string header(const Response& r, const std::string& name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return "(absent)";
}

bool has_access_control(const Response& r) {
  for (const auto& [n, v] : r.headers) {
    if (n.rfind("Access-Control-", 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST(RequestHead, InvalidUtf8AnywhereInThePathOrQueryIs400) {
  const config::HttpConfig limits = config::Config::defaults().http;
  for (const char* target : {"/api/v1/messages/%C0%AF/x", "/api/v1/queues/%FF", "/api/v1/messages/q/%ED%A0%80",
                             "/a/%E2%82", "/api/v1/\xff/x"}) {
    try {
      make_request_head("DELETE", target, limits);
      ADD_FAILURE() << target << " was accepted";
    } catch (const HttpError& e) {
      EXPECT_EQ(e.status(), 400) << target;
      EXPECT_STREQ(e.what(), "Request path must be valid UTF-8 once percent-decoded");
    }
  }
  try {
    make_request_head("GET", "/api/v1/messages?queue=%C0%AF", limits);
    ADD_FAILURE() << "query accepted";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_STREQ(e.what(), "Query string must be valid UTF-8 once percent-decoded");
  }
  // Well-formed multibyte text and an encoded '/' stay as they were.
  const Request ok = make_request_head("GET", "/api/v1/queues/caf%C3%A9%2Fx?name=%E2%82%AC", limits);
  EXPECT_EQ(ok.path, "/api/v1/queues/caf%C3%A9%2Fx");
  EXPECT_EQ(ok.query.at("name"), "\xe2\x82\xac");
}

TEST(RequestHead, TheWireParseDecidesTheTargetBeforeTheBody) {
  const config::HttpConfig limits = config::Config::defaults().http;
  // The body is not even complete: the answer is known from the head.
  const WireParse refused = parse_wire_request("POST /x/%C0%AF HTTP/1.1\r\nContent-Length: 100\r\n\r\nab", limits);
  ASSERT_TRUE(refused.error.has_value());
  EXPECT_EQ(refused.error->status, 400);
  const WireParse ok = parse_wire_request("POST /x/y?a=1 HTTP/1.1\r\nContent-Length: 2\r\n\r\nab", limits);
  ASSERT_TRUE(ok.request.has_value());
  EXPECT_EQ(ok.request->path, "/x/y");
  EXPECT_EQ(ok.request->body, "ab");
}

TEST(Cors, OffByDefaultNothingOnAnyAnswer) {
  const CorsPolicy off({});
  Response r = Response::no_content();
  off.apply("https://evil.test", true, r);
  EXPECT_FALSE(has_access_control(r));
  EXPECT_EQ(header(r, "Vary"), "(absent)");
}

TEST(Cors, ListedOriginsAreEchoedOthersGetNothing) {
  const CorsPolicy listed({"http://127.0.0.1:8080", "https://app.example.com"});
  Response ok = Response::json(200, "{}");
  listed.apply("https://app.example.com", false, ok);
  EXPECT_EQ(header(ok, "Access-Control-Allow-Origin"), "https://app.example.com");
  EXPECT_EQ(header(ok, "Vary"), "Origin");
  EXPECT_EQ(header(ok, "Access-Control-Allow-Methods"), "(absent)");  // only preflights

  Response preflight = Response::no_content();
  listed.apply("http://127.0.0.1:8080", true, preflight);
  EXPECT_EQ(header(preflight, "Access-Control-Allow-Origin"), "http://127.0.0.1:8080");
  EXPECT_EQ(header(preflight, "Access-Control-Allow-Methods"), "GET, POST, PUT, DELETE, OPTIONS");
  EXPECT_EQ(header(preflight, "Access-Control-Allow-Headers"), "Content-Type, Authorization");
  EXPECT_EQ(header(preflight, "Access-Control-Max-Age"), "86400");

  for (const char* other : {"https://evil.test", "http://127.0.0.1:8081", "https://app.example.com.evil.test", ""}) {
    Response r = Response::no_content();
    listed.apply(other, true, r);
    EXPECT_FALSE(has_access_control(r)) << other;
    EXPECT_EQ(header(r, "Vary"), "Origin") << other;
  }
}

TEST(Cors, StarAllowsEveryOrigin) {
  const CorsPolicy any({"*"});
  Response r = Response::no_content();
  any.apply("https://anything.test", true, r);
  EXPECT_EQ(header(r, "Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(header(r, "Access-Control-Allow-Methods"), "GET, POST, PUT, DELETE, OPTIONS");
}

TEST(BodyBudget, ReservationsFitTheCapacityAndComeBackOnEveryPath) {
  metrics::Metrics metrics;
  BodyBudget budget(100, &metrics);
  {
    BodyBudget::Reservation a = budget.open();
    EXPECT_TRUE(a.grow_to(60));
    BodyBudget::Reservation b = budget.open();
    EXPECT_FALSE(b.grow_to(41));  // 60 + 41 > 100: refused, nothing taken
    EXPECT_EQ(budget.in_flight(), 60);
    EXPECT_TRUE(b.grow_to(40));
    EXPECT_EQ(metrics.counters().request_body_bytes_in_flight, 100u);
    EXPECT_TRUE(b.grow_to(10));  // not larger: nothing to take
    EXPECT_EQ(b.bytes(), 40);
    // Moved into shared ownership (as into a Request): returned when the last holder lets go.
    auto shared = std::make_shared<BodyBudget::Reservation>(std::move(a));
    EXPECT_EQ(a.bytes(), 0);  // NOLINT(bugprone-use-after-move): a moved-from reservation holds nothing
    auto copy = shared;
    shared.reset();
    EXPECT_EQ(budget.in_flight(), 100);
    copy.reset();
    EXPECT_EQ(budget.in_flight(), 40);
    BodyBudget::Reservation c = budget.open();
    EXPECT_TRUE(c.grow_to(30));
    c = budget.open();  // reassigning returns the old bytes
    EXPECT_EQ(budget.in_flight(), 40);
  }
  EXPECT_EQ(budget.in_flight(), 0);
  EXPECT_EQ(metrics.counters().request_body_bytes_in_flight, 0u);
  BodyBudget::Reservation none;
  EXPECT_FALSE(none.grow_to(1));  // belongs to no budget
}
