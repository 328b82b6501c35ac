#include "http/transport/router.h"

#include <gtest/gtest.h>

using namespace queen::http;

namespace {

Handler named(const std::string& name) {
  return [name](const Request&) { return Response::json(200, name); };
}

std::string call(const Router::Match& m) {
  Request r;
  return m.handler ? (*m.handler)(r).body : std::string("<none>");
}

}  // namespace

TEST(SplitPath, DecodesSegmentsAfterSplitting) {
  EXPECT_EQ(split_path("/api/v1/consumer-groups/my%2Fgroup/queues/q%20x"),
            (std::vector<std::string>{"api", "v1", "consumer-groups", "my/group", "queues", "q x"}));
  EXPECT_EQ(split_path("//a//b/"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_path("/a+b"), (std::vector<std::string>{"a+b"}));
}

TEST(Router, MatchesParamsAndDecodesThem) {
  Router router;
  router.add("GET", "/api/v1/pop/queue/:queue", queen::auth::kPublic, named("wildcard"));
  router.add("GET", "/api/v1/pop/queue/:queue/partition/:partition", queen::auth::kPublic, named("specific"));
  const auto m = router.match("GET", "/api/v1/pop/queue/orders%2Deu/partition/acct%207");
  EXPECT_EQ(call(m), "specific");
  EXPECT_EQ(m.params.at("queue"), "orders-eu");
  EXPECT_EQ(m.params.at("partition"), "acct 7");
  EXPECT_EQ(call(router.match("GET", "/api/v1/pop/queue/orders")), "wildcard");
}

TEST(Router, LiteralSegmentsWinOverParamsWhateverTheOrder) {
  Router router;
  router.add("GET", "/api/v1/consumer-groups/:group", queen::auth::kPublic, named("group"));
  router.add("GET", "/api/v1/consumer-groups/lagging", queen::auth::kPublic, named("lagging"));
  EXPECT_EQ(call(router.match("GET", "/api/v1/consumer-groups/lagging")), "lagging");
  EXPECT_EQ(call(router.match("GET", "/api/v1/consumer-groups/mailer")), "group");

  Router reversed;
  reversed.add("GET", "/api/v1/consumer-groups/lagging", queen::auth::kPublic, named("lagging"));
  reversed.add("GET", "/api/v1/consumer-groups/:group", queen::auth::kPublic, named("group"));
  EXPECT_EQ(call(reversed.match("GET", "/api/v1/consumer-groups/lagging")), "lagging");
}

TEST(Router, UnknownPathAndWrongMethodAreDistinguished) {
  Router router;
  router.add("POST", "/api/v1/push", queen::auth::kPublic, named("push"));
  router.add("GET", "/api/v1/system/maintenance", queen::auth::kPublic, named("get"));
  router.add("POST", "/api/v1/system/maintenance", queen::auth::kPublic, named("post"));
  const auto unknown = router.match("GET", "/api/v1/nothing");
  EXPECT_EQ(unknown.handler, nullptr);
  EXPECT_TRUE(unknown.allowed_methods.empty());
  const auto wrong = router.match("DELETE", "/api/v1/system/maintenance");
  EXPECT_EQ(wrong.handler, nullptr);
  EXPECT_EQ(wrong.allowed_methods, (std::vector<std::string>{"GET", "POST"}));
  EXPECT_EQ(call(router.match("POST", "/api/v1/system/maintenance")), "post");
}

TEST(Router, SegmentCountMustMatch) {
  Router router;
  router.add("POST", "/api/v1/lease/:leaseId/extend", queen::auth::kPublic, named("extend"));
  EXPECT_EQ(router.match("POST", "/api/v1/lease/extend").handler, nullptr);
  EXPECT_EQ(router.match("POST", "/api/v1/lease/a/b/extend").handler, nullptr);
  EXPECT_EQ(router.match("POST", "/api/v1/lease/abc/extend").params.at("leaseId"), "abc");
}
