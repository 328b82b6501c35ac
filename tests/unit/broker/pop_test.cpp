// Pops (broker/pop.h): the outage, maintenance and shutdown answers of the
// three pop forms, and long polls woken by a commit.
#include "broker_fixture.h"
#include "broker/pop_wakes.h"

#include <thread>

using namespace queen;
using namespace queen::test;

struct PopsTest : BrokerFixture {};

TEST_F(PopsTest, NonWaitingPopDuringAnOutageIsUnavailable) {
  db.down = true;
  try {
    pop(pop_command(false, 0), nullptr);
    FAIL();
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_STREQ(e.what(), "database unavailable");
  }
}

TEST_F(PopsTest, WaitingPopRechecksThroughAnOutageAndEndsEmpty) {
  db.down = true;
  const auto started = clock.now();
  const PopOutcome out = pop(pop_command(true, 200), nullptr);
  EXPECT_TRUE(out.messages.empty());
  EXPECT_EQ(clock.now() - started, 200ms);
  EXPECT_GE(db.pop_calls, 3);
}

TEST_F(PopsTest, WaitingPopReturnsOnceTheDatabaseHasMessages) {
  std::thread later([&] {
    EXPECT_TRUE(eventually([&] { return a_poll_is_parked(); }));
    db.set_next_pop({message()});  // published before the notify below
    std::set<std::string> queues{"q"};
    wake_local_pops(waiters, queues);
  });
  const PopOutcome out = pop(pop_command(true, 5000), nullptr, Time::Stands);
  later.join();
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.consumer_group, kQueueModeGroup);
}

TEST_F(PopsTest, PopMaintenanceAnswersEmptyWithoutTheDatabaseAndHoldsLongPolls) {
  broker.system_admin().set_pop_maintenance(true);
  db.set_next_pop({message()});
  EXPECT_TRUE(pop(pop_command(false, 0), nullptr).messages.empty());
  const auto started = clock.now();
  EXPECT_TRUE(pop(pop_command(true, 150), nullptr).messages.empty());
  EXPECT_EQ(clock.now() - started, 150ms);
  EXPECT_EQ(db.pop_calls, 0);
}

TEST_F(PopsTest, AGoneClientNeverClaims) {
  db.set_next_pop({message()});
  EXPECT_TRUE(pop(pop_command(true, 1000), [] { return true; }).messages.empty());
  EXPECT_TRUE(pop(pop_command(false, 0), [] { return true; }).messages.empty());
  EXPECT_EQ(db.pop_calls, 0);
}

TEST_F(PopsTest, ShutdownReleasesParkedPops) {
  std::thread stopper([&] {
    EXPECT_TRUE(eventually([&] { return a_poll_is_parked(); }));
    broker.begin_shutdown();
  });
  const auto started = clock.now();
  EXPECT_TRUE(pop(pop_command(true, 10000), nullptr, Time::Stands).messages.empty());
  EXPECT_EQ(clock.now(), started) << "released by the shutdown, not by its deadline";
  stopper.join();
}
