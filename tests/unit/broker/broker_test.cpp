#include "broker/broker.h"
#include "../fakes/procedures_fake.h"
#include "broker/pop_wakes.h"

#include <gtest/gtest.h>

#include <future>

#include <atomic>
#include <set>
#include <thread>

#include "util/uuid.h"
#include "../support/eventually.h"
#include "../support/manual_clock.h"

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;
namespace cat = queen::db::catalogue;
using test_support::advance_until;
using test_support::eventually;
using test_support::ManualClock;

namespace {

// In-memory stand-in for the database: records calls, fails on demand.
class FakeProcedures : public queen::testing::ProceduresFake {
 public:
  std::atomic<bool> down{false};
  std::string permanent_sqlstate;  // non-empty: every call fails with it
  std::atomic<int> push_calls{0}, pop_calls{0}, ack_calls{0}, extend_calls{0};
  void set_next_pop(std::vector<db::PoppedMessage> messages) {
    std::lock_guard<std::mutex> lock(pop_mutex_);
    next_pop_ = std::move(messages);
  }
  std::string last_push_items, last_acks;
  std::optional<std::string> last_ack_group;
  std::map<std::string, bool> flags;
  // Queues with encryptionEnabled: their plaintext items answer encryption_required, as store_messages does,
  // and queen.encrypted_queue_names lists them (the broker's background re-read calls it from its own thread).
  void set_encrypted_queues(std::set<std::string> queues) {
    std::lock_guard<std::mutex> lock(encrypted_mutex_);
    encrypted_queues_ = std::move(queues);
  }
  using ProceduresFake::call;
  cat::Answer<cat::EncryptedQueueNames> call(cat::EncryptedQueueNames, const std::tuple<>&) override {
    std::lock_guard<std::mutex> lock(encrypted_mutex_);
    std::vector<db::TenantQueue> names;
    for (const auto& queue : encrypted_queues_) names.push_back({Tenant::default_tenant(), queue});
    return names;
  }

  cat::Answer<cat::ConfigureQueue> call(cat::ConfigureQueue, const cat::Arguments<cat::ConfigureQueue>&) override {
    fail_if_needed();
    return "{\"queueId\":\"q\"}";
  }
  cat::Answer<cat::PushMessages> call(cat::PushMessages, const cat::Arguments<cat::PushMessages>& args) override {
    ++push_calls;
    fail_if_needed();
    const std::string& items_json = *std::get<0>(args);
    last_push_items = items_json;
    // One queued row per item; the caller's order of items is idx order.
    std::vector<db::PushRow> rows;
    std::size_t pos = 0;
    int idx = 0;
    while ((pos = items_json.find("\"queue\":", pos)) != std::string::npos) {
      db::PushRow row;
      row.idx = idx++;
      row.status = "queued";
      row.message_id = util::new_uuid_v7();
      const std::size_t start = pos + 9;
      row.queue_name = items_json.substr(start, items_json.find('"', start) - start);
      if (is_encrypted(row.queue_name)) {
        row.status = "encryption_required";
        row.message_id.reset();
      }
      rows.push_back(row);
      pos = start;
    }
    return rows;
  }
  cat::Answer<cat::PopMessages> call(cat::PopMessages, const cat::Arguments<cat::PopMessages>&) override {
    ++pop_calls;
    fail_if_needed();
    std::lock_guard<std::mutex> lock(pop_mutex_);
    return next_pop_;
  }
  cat::Answer<cat::AckMessages> call(cat::AckMessages, const cat::Arguments<cat::AckMessages>& args) override {
    const auto& [acks, group, tenant] = args;
    ++ack_calls;
    fail_if_needed();
    last_acks = *acks;
    last_ack_group = group;
    db::AckRow only_second;  // answers the second item only: the first must be reported missing
    only_second.idx = 1;
    only_second.transaction_id = "t2";
    only_second.success = true;
    return {only_second};
  }
  cat::Answer<cat::ExtendLease> call(cat::ExtendLease, const cat::Arguments<cat::ExtendLease>&) override {
    ++extend_calls;
    fail_if_needed();
    return {{true, 1000000, std::nullopt}};
  }
  cat::Answer<cat::SetSystemFlag> call(cat::SetSystemFlag, const cat::Arguments<cat::SetSystemFlag>& args) override {
    const auto& [key, enabled] = args;
    fail_if_needed();
    flags[*key] = enabled;
    return enabled;
  }
  cat::Answer<cat::GetSystemFlag> call(cat::GetSystemFlag, const cat::Arguments<cat::GetSystemFlag>& args) override {
    fail_if_needed();
    return flags[*std::get<0>(args)];
  }
  std::chrono::microseconds ping() override {
    fail_if_needed();
    return 5us;
  }
  db::PoolStats pool_stats() const override { return {}; }
  bool healthy() const override { return !down; }

 private:
  std::mutex pop_mutex_;
  bool is_encrypted(const std::string& queue) {
    std::lock_guard<std::mutex> lock(encrypted_mutex_);
    return encrypted_queues_.count(queue) > 0;
  }
  std::mutex encrypted_mutex_;
  std::set<std::string> encrypted_queues_;
  std::vector<db::PoppedMessage> next_pop_;

  void fail_if_needed() {
    if (down) throw db::DbError("connection refused", "");
    if (!permanent_sqlstate.empty()) throw db::DbError("bad input", permanent_sqlstate);
  }
};

config::Config test_config() {
  config::Config c = config::Config::defaults();
  c.pop.wait_initial_interval_ms = 20;
  c.pop.wait_max_interval_ms = 20;
  return c;
}

PushItem item(const std::string& queue, const std::string& txid = "") {
  PushItem i;
  i.queue = queue;
  i.transaction_id = txid;
  return i;
}

PopCommand pop_command(bool wait, std::int64_t timeout_ms) {
  PopCommand c{db::PopRequest(Tenant::default_tenant()), false, 0};
  c.query.queue = "q";
  c.wait = wait;
  c.timeout_ms = timeout_ms;
  return c;
}

db::PoppedMessage message() {
  db::PoppedMessage m;
  m.message_id = "m1";
  m.queue_name = "q";
  return m;
}

struct BrokerFixture : ::testing::Test {
  config::Config config = test_config();
  FakeProcedures db;
  ManualClock clock;  // the long polls' and the arbiter's time
  wake::PopWaiters waiters{clock};
  metrics::Metrics metrics;
  MaintenanceFlags flags{db, waiters, nullptr, std::chrono::milliseconds(config.system.flag_refresh_ms)};
  Broker broker{config, db, waiters, metrics, flags};

  enum class Time { Moves, Stands };
  // A pop to its end; re-attempts run inline on the resuming thread. With
  // Time::Moves the clock jumps from one re-check to the next until it ends;
  // with Time::Stands only a wake-up ends a long poll.
  PopOutcome pop(const PopCommand& command, std::function<bool()> client_gone, Time time = Time::Moves) {
    std::promise<PopOutcome> done;
    auto ended = done.get_future();
    broker.pop(command, std::move(client_gone), [](std::function<void()> task) { task(); },
               [&done](PopOutcome outcome, std::exception_ptr error) {
                 if (error) return done.set_exception(error);
                 done.set_value(std::move(outcome));
               });
    const auto is_over = [&] { return ended.wait_for(0s) == std::future_status::ready; };
    EXPECT_TRUE(time == Time::Moves ? advance_until(clock, is_over) : eventually(is_over));
    return ended.get();
  }
  // A long poll is parked: registered and its re-check timer armed.
  bool a_poll_is_parked() const { return waiters.parked() == 1u && clock.timed_waiters() == 1u; }
};

}  // namespace

TEST_F(BrokerFixture, PushMintsMissingTransactionIdsAndReportsPerItem) {
  const PushOutcome out = broker.push({item("q", "given"), item("q")}, PushOrigin{Tenant::default_tenant(), std::nullopt});
  ASSERT_EQ(out.items.size(), 2u);
  EXPECT_EQ(out.items[0].status, PushStatus::Queued);
  EXPECT_EQ(out.items[0].transaction_id, "given");
  EXPECT_TRUE(util::is_uuid(out.items[1].transaction_id));
  EXPECT_EQ(out.items[1].index, 1);
  EXPECT_NE(db.last_push_items.find(out.items[1].transaction_id), std::string::npos);
  EXPECT_EQ(metrics.counters().push_messages, 2u);
}

TEST_F(BrokerFixture, ACommittedPushWakesParkedPopsOfThatQueueAndFilterPops) {
  wake::PopWaiters::Registration queue_waiter(waiters, "q");
  wake::PopWaiters::Registration filter_waiter(waiters, std::string(wake::kFilterPopKey));
  wake::PopWaiters::Registration other_waiter(waiters, "other");
  broker.push({item("q")}, PushOrigin{Tenant::default_tenant(), std::nullopt});
  EXPECT_TRUE(queue_waiter.wait_until(clock.now()));
  EXPECT_TRUE(filter_waiter.wait_until(clock.now()));
  EXPECT_FALSE(other_waiter.wait_until(clock.now()));
}

TEST_F(BrokerFixture, TransientPushFailureGoesToTheUnstoredHook) {
  db.down = true;
  const PushOutcome out = broker.push({item("q", "a"), item("q", "b")}, PushOrigin{Tenant::default_tenant(), std::nullopt});
  ASSERT_EQ(out.items.size(), 2u);
  for (const auto& r : out.items) {
    EXPECT_EQ(r.status, PushStatus::Failed);
    EXPECT_EQ(r.error, std::optional<std::string>("database unavailable"));
  }
  EXPECT_EQ(out.items[1].transaction_id, "b");
  EXPECT_FALSE(out.maintenance_spool_failed);
  EXPECT_EQ(metrics.counters().db_errors, 1u);
}

TEST_F(BrokerFixture, ADataExceptionOnPushIsABadRequest) {
  db.permanent_sqlstate = "22023";
  try {
    broker.push({item("q")}, PushOrigin{Tenant::default_tenant(), std::nullopt});
    FAIL();
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadRequest);
  }
}

TEST_F(BrokerFixture, PushMaintenanceNeverTouchesTheDatabase) {
  broker.set_push_maintenance(true);
  const PushOutcome out = broker.push({item("q")}, PushOrigin{Tenant::default_tenant(), std::nullopt});
  EXPECT_EQ(db.push_calls, 0);
  ASSERT_EQ(out.items.size(), 1u);
  EXPECT_EQ(out.items[0].status, PushStatus::Failed);  // no spool yet
  EXPECT_TRUE(out.maintenance_spool_failed);
  EXPECT_TRUE(db.flags["maintenance"]);
}

TEST_F(BrokerFixture, WithoutAKeyARefusedPlaintextItemFailsAndItsQueueIsRefusedFromThenOn) {
  db.set_encrypted_queues({"enc"});
  const PushOrigin origin{Tenant::default_tenant(), std::nullopt};
  const PushOutcome out = broker.push({item("open", "a"), item("enc", "b")}, origin);
  ASSERT_EQ(out.items.size(), 2u);
  EXPECT_EQ(out.items[0].status, PushStatus::Queued);
  EXPECT_EQ(out.items[1].status, PushStatus::Failed);
  EXPECT_EQ(out.items[1].error,
            std::optional<std::string>("queue 'enc' requires encryption and this broker has no QUEEN_ENCRYPTION_KEY"));
  EXPECT_EQ(db.push_calls, 1);
  EXPECT_EQ(metrics.counters().push_messages, 1u);

  // Learned: refused before the database, and before the spool under push maintenance.
  const PushOutcome again = broker.push({item("enc", "c"), item("open", "d"), item("enc", "e")}, origin);
  ASSERT_EQ(again.items.size(), 3u);
  EXPECT_EQ(again.items[0].status, PushStatus::Failed);
  EXPECT_EQ(again.items[0].transaction_id, "c");
  EXPECT_EQ(again.items[1].status, PushStatus::Queued);
  EXPECT_EQ(again.items[1].index, 1);
  EXPECT_EQ(again.items[2].status, PushStatus::Failed);
  EXPECT_EQ(again.items[2].index, 2);
  EXPECT_EQ(db.last_push_items.find("\"enc\""), std::string::npos);
  broker.set_push_maintenance(true);
  const int calls = db.push_calls;
  const PushOutcome in_maintenance = broker.push({item("enc", "f")}, origin);
  ASSERT_EQ(in_maintenance.items.size(), 1u);
  EXPECT_EQ(in_maintenance.items[0].status, PushStatus::Failed);
  EXPECT_NE(in_maintenance.items[0].error->find("requires encryption"), std::string::npos);
  EXPECT_FALSE(in_maintenance.maintenance_spool_failed);
  EXPECT_EQ(db.push_calls, calls);
}

TEST_F(BrokerFixture, NonWaitingPopDuringAnOutageIsUnavailable) {
  db.down = true;
  try {
    pop(pop_command(false, 0), nullptr);
    FAIL();
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_STREQ(e.what(), "database unavailable");
  }
}

TEST_F(BrokerFixture, WaitingPopRechecksThroughAnOutageAndEndsEmpty) {
  db.down = true;
  const auto started = clock.now();
  const PopOutcome out = pop(pop_command(true, 200), nullptr);
  EXPECT_TRUE(out.messages.empty());
  EXPECT_EQ(clock.now() - started, 200ms);
  EXPECT_GE(db.pop_calls, 3);
}

TEST_F(BrokerFixture, WaitingPopReturnsOnceTheDatabaseHasMessages) {
  std::thread later([&] {
    EXPECT_TRUE(eventually([&] { return a_poll_is_parked(); }));
    db.set_next_pop({message()});  // published before the notify below
    std::set<std::string> queues{"q"};
    wake_local_pops(waiters, queues);
  });
  const PopOutcome out = pop(pop_command(true, 5000), nullptr, Time::Stands);
  later.join();
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.consumer_group, "__QUEUE_MODE__");
}

TEST_F(BrokerFixture, PopMaintenanceAnswersEmptyWithoutTheDatabaseAndHoldsLongPolls) {
  broker.set_pop_maintenance(true);
  db.set_next_pop({message()});
  EXPECT_TRUE(pop(pop_command(false, 0), nullptr).messages.empty());
  const auto started = clock.now();
  EXPECT_TRUE(pop(pop_command(true, 150), nullptr).messages.empty());
  EXPECT_EQ(clock.now() - started, 150ms);
  EXPECT_EQ(db.pop_calls, 0);
}

TEST_F(BrokerFixture, AGoneClientNeverClaims) {
  db.set_next_pop({message()});
  EXPECT_TRUE(pop(pop_command(true, 1000), [] { return true; }).messages.empty());
  EXPECT_TRUE(pop(pop_command(false, 0), [] { return true; }).messages.empty());
  EXPECT_EQ(db.pop_calls, 0);
}

TEST_F(BrokerFixture, ShutdownReleasesParkedPops) {
  std::thread stopper([&] {
    EXPECT_TRUE(eventually([&] { return a_poll_is_parked(); }));
    broker.begin_shutdown();
  });
  const auto started = clock.now();
  EXPECT_TRUE(pop(pop_command(true, 10000), nullptr, Time::Stands).messages.empty());
  EXPECT_EQ(clock.now(), started) << "released by the shutdown, not by its deadline";
  stopper.join();
}

TEST_F(BrokerFixture, AckKeepsRequestOrderAndReportsMissingRows) {
  const std::vector<AckItem> items{{"t1", "p", std::nullopt, std::nullopt, std::nullopt},
                                   {"t2", "p", std::nullopt, std::nullopt, std::nullopt}};
  const auto results = broker.ack(items, std::string("g"), Tenant::default_tenant());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].success);
  EXPECT_EQ(results[0].transaction_id, "t1");
  EXPECT_TRUE(results[0].error.has_value());
  EXPECT_TRUE(results[1].success);
  EXPECT_EQ(db.last_ack_group, std::optional<std::string>("g"));
  EXPECT_EQ(metrics.counters().ack_success, 1u);
  EXPECT_EQ(metrics.counters().ack_failed, 1u);
}

TEST_F(BrokerFixture, AckDuringAnOutageIsUnavailable) {
  db.down = true;
  try {
    broker.ack({{"t1", "p", std::nullopt, std::nullopt, std::nullopt}}, std::nullopt, Tenant::default_tenant());
    FAIL();
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
  }
}

TEST_F(BrokerFixture, MalformedLeaseIdIsNotFoundWithoutTheDatabase) {
  const LeaseExtension out = broker.extend_lease("not-a-uuid", 60, Tenant::default_tenant());
  EXPECT_FALSE(out.success);
  EXPECT_EQ(out.error, std::optional<std::string>("Lease not found"));
  EXPECT_EQ(db.extend_calls, 0);
  EXPECT_TRUE(broker.extend_lease(util::new_uuid_v7(), 60, Tenant::default_tenant()).success);
}

TEST_F(BrokerFixture, MaintenanceStatusFallsBackToTheLastKnownFlags) {
  broker.set_pop_maintenance(true);
  db.down = true;
  EXPECT_TRUE(broker.maintenance_status().pop_maintenance);
  EXPECT_THROW(broker.set_push_maintenance(true), BrokerError);
  EXPECT_FALSE(broker.push_maintenance());
}

TEST_F(BrokerFixture, FlagsPersistedByAnotherBrokerAreRead) {
  db.flags["maintenance"] = true;
  EXPECT_TRUE(broker.maintenance_status().push_maintenance);
  EXPECT_TRUE(broker.push_maintenance());
}
