// ConsumerGroups: one procedure call per request for the requester's tenant;
// a seek or removal that moved cursors wakes the long polls of the queue
// here and on the peers; failures go through the one mapping.
#include "broker/consumer_groups.h"

#include <gtest/gtest.h>

#include "broker/broker_error.h"
#include "../support/manual_clock.h"
#include "use_case_fakes.h"

namespace queen::broker {
namespace {

class ConsumerGroupsTest : public ::testing::Test {
 protected:
  testing::ConsumerGroupsFake db;
  testing::OpenReadGate gate;
  testing::RecordingClusterHooks cluster;
  test_support::ManualClock clock;  // the long polls' time: a wake is seen without waiting
  wake::PopWaiters waiters{clock};
  ConsumerGroups groups{db, waiters, &cluster, gate.reads};
};

TEST_F(ConsumerGroupsTest, ListingsAnswerTheProceduresJsonForTheTenant) {
  db.listing = "[{\"name\":\"g\"}]";
  EXPECT_EQ(groups.list(Tenant("acme")), "[{\"name\":\"g\"}]");
  EXPECT_EQ(groups.lagging(30, Tenant("acme")), "[{\"name\":\"g\"}]");
  EXPECT_EQ(groups.detail("g", Tenant::default_tenant()), "[{\"name\":\"g\"}]");
  EXPECT_EQ(db.calls, (std::vector<std::string>{"list acme", "lagging 30 acme", "detail g "}));
}

TEST_F(ConsumerGroupsTest, ASeekThatMovedCursorsWakesTheQueuesLongPollsHereAndOnPeers) {
  wake::PopWaiters::Registration parked(waiters, "orders");
  db.rows = 2;
  EXPECT_EQ(groups.seek("g", "orders", true, std::nullopt, Tenant("acme")), 2);
  EXPECT_TRUE(parked.wait_until(clock.now()));
  ASSERT_EQ(cluster.committed.size(), 1u);
  EXPECT_EQ(cluster.committed[0], (std::set<std::string>{"orders"}));
}

TEST_F(ConsumerGroupsTest, ASeekThatMovedNothingWakesNobody) {
  db.rows = 0;
  EXPECT_EQ(groups.seek("g", "orders", false, std::string("2026-01-01T00:00:00Z"), Tenant("acme")), 0);
  EXPECT_TRUE(cluster.committed.empty());
}

TEST_F(ConsumerGroupsTest, RemovingAGroupFromOneQueueWakesThatQueue) {
  db.rows = 1;
  EXPECT_EQ(groups.remove("g", std::string("orders"), true, Tenant("acme")), 1);
  ASSERT_EQ(cluster.committed.size(), 1u);
  EXPECT_EQ(groups.remove("g", std::nullopt, false, Tenant("acme")), 1);  // every queue: none to name
  EXPECT_EQ(cluster.committed.size(), 1u);
  EXPECT_EQ(db.calls.back(), "remove g * acme");
}

TEST_F(ConsumerGroupsTest, SubscriptionStartAndPartitionSeekPassThrough) {
  db.rows = 3;
  EXPECT_EQ(groups.set_subscription_start("g", "2026-01-01T00:00:00Z", Tenant("acme")), 3);
  db.partition_seek = db::PartitionSeek{true, 1700000000000000};
  const PartitionSeekResult seek = groups.seek_partition_to_end("g", "orders", "p1", Tenant("acme"));
  EXPECT_TRUE(seek.partition_found);
  EXPECT_EQ(seek.cursor_moved_to_us, 1700000000000000);
  EXPECT_EQ(db.calls.back(), "seek_partition_to_end g orders p1 acme");
}

TEST_F(ConsumerGroupsTest, ABadArgumentIsABadRequestWithThePrimaryMessage) {
  db.failure = db::DbError("ERROR:  invalid timestamp\nCONTEXT:  PL/pgSQL function", "22007");
  try {
    groups.set_subscription_start("g", "yesterday", Tenant("acme"));
    FAIL() << "no BrokerError";
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadRequest);
    EXPECT_STREQ(e.what(), "invalid timestamp");
  }
}

TEST_F(ConsumerGroupsTest, AnOutageIsUnavailable) {
  db.failure = db::DbError("server closed the connection unexpectedly", "");
  try {
    groups.list(Tenant("acme"));
    FAIL() << "no BrokerError";
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_STREQ(e.what(), kDatabaseUnavailable);
  }
}

}  // namespace
}  // namespace queen::broker
