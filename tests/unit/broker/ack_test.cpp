// Acks (broker/ack.h): acks in request order and lease extensions.
#include "broker_fixture.h"

using namespace queen;
using namespace queen::test;

struct AcksTest : BrokerFixture {
  Acks& acks = broker.acks();
};

TEST_F(AcksTest, AckKeepsRequestOrderAndReportsMissingRows) {
  const std::vector<AckItem> items{{"t1", "p", std::nullopt, std::nullopt, std::nullopt},
                                   {"t2", "p", std::nullopt, std::nullopt, std::nullopt}};
  const auto results = acks.ack(items, std::string("g"), Tenant::default_tenant());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].success);
  EXPECT_EQ(results[0].transaction_id, "t1");
  EXPECT_TRUE(results[0].error.has_value());
  EXPECT_TRUE(results[1].success);
  EXPECT_EQ(db.last_ack_group, std::optional<std::string>("g"));
  EXPECT_EQ(metrics.counters().ack_success, 1u);
  EXPECT_EQ(metrics.counters().ack_failed, 1u);
}

TEST_F(AcksTest, AckDuringAnOutageIsUnavailable) {
  db.down = true;
  try {
    acks.ack({{"t1", "p", std::nullopt, std::nullopt, std::nullopt}}, std::nullopt, Tenant::default_tenant());
    FAIL();
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
  }
}

TEST_F(AcksTest, MalformedLeaseIdIsNotFoundWithoutTheDatabase) {
  const LeaseExtension out = acks.extend_lease("not-a-uuid", 60, Tenant::default_tenant());
  EXPECT_FALSE(out.success);
  EXPECT_EQ(out.error, std::optional<std::string>("Lease not found"));
  EXPECT_EQ(db.extend_calls, 0);
  EXPECT_TRUE(acks.extend_lease(util::new_uuid_v7(), 60, Tenant::default_tenant()).success);
}
