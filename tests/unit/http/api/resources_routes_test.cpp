// DELETE /api/v1/resources/queues/:queue on a fake database.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admin_routes_support.h"

using namespace queen;
using namespace queen::http;

namespace {

struct QueueDeleteRoute : ::testing::Test, test::AdminRoutesFixture {};

}  // namespace

TEST_F(QueueDeleteRoute, DeletesAnExistingQueueAndInvalidatesPeers) {
  const Response r = call("DELETE", "/api/v1/resources/queues/invoices");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body), nlohmann::json::parse(R"({"deleted":true,"queue":"invoices","existed":true})"));
  EXPECT_EQ(db.deleted_queues, (std::vector<std::string>{"invoices"}));
  EXPECT_EQ(cluster.configured, (std::vector<std::string>{"invoices"}));
}

TEST_F(QueueDeleteRoute, AnUnknownQueueIsStillDeletedTrue) {
  db.queue_exists = false;
  const Response r = call("DELETE", "/api/v1/resources/queues/ghost");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body), nlohmann::json::parse(R"({"deleted":true,"queue":"ghost","existed":false})"));
}

TEST_F(QueueDeleteRoute, ThePathSegmentIsPercentDecoded) {
  const Response r = call("DELETE", "/api/v1/resources/queues/a%2Fb%20c");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(db.deleted_queues, (std::vector<std::string>{"a/b c"}));
  EXPECT_EQ(nlohmann::json::parse(r.body)["queue"], "a/b c");
}

TEST_F(QueueDeleteRoute, AnOutageIs503AndNothingIsBroadcast) {
  db.failure = db::DbError("connection refused", "");
  const Response r = call("DELETE", "/api/v1/resources/queues/invoices");
  EXPECT_EQ(r.status, 503);
  EXPECT_TRUE(cluster.configured.empty());
}
