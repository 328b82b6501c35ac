// Pushes (broker/push.h): minted ids, per-item answers, the wake-ups of a commit,
// the unstored path, push maintenance, and a keyless broker's refusals.
#include "broker_fixture.h"
#include "broker/pop_wakes.h"

using namespace queen;
using namespace queen::test;

struct PushesTest : BrokerFixture {
  Pushes& pushes = broker.pushes();
  const PushOrigin default_origin{Tenant::default_tenant(), std::nullopt};
};

TEST_F(PushesTest, PushMintsMissingTransactionIdsAndReportsPerItem) {
  const PushOutcome out = pushes.push({item("q", "given"), item("q")}, default_origin);
  ASSERT_EQ(out.items.size(), 2u);
  EXPECT_EQ(out.items[0].status, PushStatus::Queued);
  EXPECT_EQ(out.items[0].transaction_id, "given");
  EXPECT_TRUE(util::is_uuid(out.items[1].transaction_id));
  EXPECT_EQ(out.items[1].index, 1);
  EXPECT_NE(db.last_push_items.find(out.items[1].transaction_id), std::string::npos);
  EXPECT_EQ(metrics.counters().push_messages, 2u);
}

TEST_F(PushesTest, ACommittedPushWakesParkedPopsOfThatQueueAndFilterPops) {
  wake::PopWaiters::Registration queue_waiter(waiters, "q");
  wake::PopWaiters::Registration filter_waiter(waiters, std::string(wake::kFilterPopKey));
  wake::PopWaiters::Registration other_waiter(waiters, "other");
  pushes.push({item("q")}, default_origin);
  EXPECT_TRUE(queue_waiter.wait_until(clock.now()));
  EXPECT_TRUE(filter_waiter.wait_until(clock.now()));
  EXPECT_FALSE(other_waiter.wait_until(clock.now()));
}

TEST_F(PushesTest, TransientPushFailureGoesToTheUnstoredHook) {
  db.down = true;
  const PushOutcome out = pushes.push({item("q", "a"), item("q", "b")}, default_origin);
  ASSERT_EQ(out.items.size(), 2u);
  for (const auto& r : out.items) {
    EXPECT_EQ(r.status, PushStatus::Failed);
    EXPECT_EQ(r.error, std::optional<std::string>("database unavailable"));
  }
  EXPECT_EQ(out.items[1].transaction_id, "b");
  EXPECT_FALSE(out.maintenance_spool_failed);
  EXPECT_EQ(metrics.counters().db_errors, 1u);
}

TEST_F(PushesTest, ADataExceptionOnPushIsABadRequest) {
  db.permanent_sqlstate = "22023";
  try {
    pushes.push({item("q")}, default_origin);
    FAIL();
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadRequest);
  }
}

TEST_F(PushesTest, PushMaintenanceNeverTouchesTheDatabase) {
  broker.system_admin().set_push_maintenance(true);
  const PushOutcome out = pushes.push({item("q")}, default_origin);
  EXPECT_EQ(db.push_calls, 0);
  ASSERT_EQ(out.items.size(), 1u);
  EXPECT_EQ(out.items[0].status, PushStatus::Failed);  // no spool yet
  EXPECT_TRUE(out.maintenance_spool_failed);
  EXPECT_TRUE(db.flags["maintenance"]);
}

TEST_F(PushesTest, WithoutAKeyARefusedPlaintextItemFailsAndItsQueueIsRefusedFromThenOn) {
  db.set_encrypted_queues({"enc"});
  const PushOutcome out = pushes.push({item("open", "a"), item("enc", "b")}, default_origin);
  ASSERT_EQ(out.items.size(), 2u);
  EXPECT_EQ(out.items[0].status, PushStatus::Queued);
  EXPECT_EQ(out.items[1].status, PushStatus::Failed);
  EXPECT_EQ(out.items[1].error,
            std::optional<std::string>("queue 'enc' requires encryption and this broker has no QUEEN_ENCRYPTION_KEY"));
  EXPECT_EQ(db.push_calls, 1);
  EXPECT_EQ(metrics.counters().push_messages, 1u);

  // Learned: refused before the database, and before the spool under push maintenance.
  const PushOutcome again = pushes.push({item("enc", "c"), item("open", "d"), item("enc", "e")}, default_origin);
  ASSERT_EQ(again.items.size(), 3u);
  EXPECT_EQ(again.items[0].status, PushStatus::Failed);
  EXPECT_EQ(again.items[0].transaction_id, "c");
  EXPECT_EQ(again.items[1].status, PushStatus::Queued);
  EXPECT_EQ(again.items[1].index, 1);
  EXPECT_EQ(again.items[2].status, PushStatus::Failed);
  EXPECT_EQ(again.items[2].index, 2);
  EXPECT_EQ(db.last_push_items.find("\"enc\""), std::string::npos);
  broker.system_admin().set_push_maintenance(true);
  const int calls = db.push_calls;
  const PushOutcome in_maintenance = pushes.push({item("enc", "f")}, default_origin);
  ASSERT_EQ(in_maintenance.items.size(), 1u);
  EXPECT_EQ(in_maintenance.items[0].status, PushStatus::Failed);
  EXPECT_NE(in_maintenance.items[0].error->find("requires encryption"), std::string::npos);
  EXPECT_FALSE(in_maintenance.maintenance_spool_failed);
  EXPECT_EQ(db.push_calls, calls);
}
