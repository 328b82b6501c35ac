#include "broker/maintenance_flags.h"
#include "../fakes/procedures_fake.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include "util/clock.h"
#include "../support/eventually.h"

using namespace queen;
using namespace queen::broker;
using namespace std::chrono_literals;
namespace cat = queen::db::catalogue;
using test_support::eventually;

namespace {

constexpr const char* kPush = "maintenance";
constexpr const char* kPop = "pop_maintenance";

// The flag calls only; a read can be held at its first call to model a read
// that predates a concurrent write.
class FlagsDb : public queen::testing::ProceduresFake {
 public:
  std::atomic<bool> down{false};
  std::atomic<int> reads{0};

  void set(const std::string& key, bool value) {
    std::lock_guard<std::mutex> lock(mutex_);
    flags_[key] = value;
  }
  // The next read returns what it saw, after `release` is set.
  void hold_next_read(std::promise<void>* entered, std::shared_future<void> release) {
    std::lock_guard<std::mutex> lock(mutex_);
    held_entered_ = entered;
    held_release_ = std::move(release);
  }

  using ProceduresFake::call;
  cat::Answer<cat::GetSystemFlag> call(cat::GetSystemFlag, const cat::Arguments<cat::GetSystemFlag>& args) override {
    const std::string& key = *std::get<0>(args);
    ++reads;
    if (down) throw db::DbError("connection refused", "");
    bool value;
    std::promise<void>* entered = nullptr;
    std::shared_future<void> release;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      value = flags_[key];
      std::swap(entered, held_entered_);
      std::swap(release, held_release_);
    }
    if (entered != nullptr) {
      entered->set_value();
      release.wait();
    }
    return value;
  }
  cat::Answer<cat::SetSystemFlag> call(cat::SetSystemFlag, const cat::Arguments<cat::SetSystemFlag>& args) override {
    const auto& [key, enabled] = args;
    if (down) throw db::DbError("connection refused", "");
    set(*key, enabled);
    return enabled;
  }

  cat::Answer<cat::ConfigureQueue> call(cat::ConfigureQueue, const cat::Arguments<cat::ConfigureQueue>&) override {
    throw std::logic_error("not used");
  }
  cat::Answer<cat::PushWithDedup> call(cat::PushWithDedup, const cat::Arguments<cat::PushWithDedup>&) override {
    throw std::logic_error("not used");
  }
  cat::Answer<cat::PopMessages> call(cat::PopMessages, const cat::Arguments<cat::PopMessages>&) override {
    throw std::logic_error("not used");
  }
  cat::Answer<cat::AckMessages> call(cat::AckMessages, const cat::Arguments<cat::AckMessages>&) override {
    throw std::logic_error("not used");
  }
  cat::Answer<cat::ExtendLease> call(cat::ExtendLease, const cat::Arguments<cat::ExtendLease>&) override {
    throw std::logic_error("not used");
  }
  std::chrono::microseconds ping() override { return 1us; }
  db::PoolStats pool_stats() const override { return {}; }
  bool healthy() const override { return !down; }

 private:
  std::mutex mutex_;
  std::map<std::string, bool> flags_;
  std::promise<void>* held_entered_ = nullptr;
  std::shared_future<void> held_release_;
};

struct MaintenanceFlagsTest : ::testing::Test {
  FlagsDb db;
  wake::PopWaiters waiters{util::real_clock()};
};

TEST_F(MaintenanceFlagsTest, StartReadsThePersistedFlags) {
  db.set(kPush, true);
  db.set(kPop, true);
  MaintenanceFlags flags(db, waiters, nullptr, 1h);
  EXPECT_FALSE(flags.push());
  flags.start();
  EXPECT_TRUE(flags.push());
  EXPECT_TRUE(flags.pop());
  flags.stop();
}

TEST_F(MaintenanceFlagsTest, AnUnreadableDatabaseKeepsTheLastKnownValues) {
  MaintenanceFlags flags(db, waiters, nullptr, 1h);
  db.set(kPush, true);
  flags.refresh();
  ASSERT_TRUE(flags.push());
  db.down = true;
  db.set(kPush, false);
  flags.refresh();
  EXPECT_TRUE(flags.push());
}

TEST_F(MaintenanceFlagsTest, PersistWritesTheDatabaseAndAppliesAtOnce) {
  MaintenanceFlags flags(db, waiters, nullptr, 1h);
  flags.persist_push(true);
  flags.persist_pop(true);
  EXPECT_TRUE(flags.push());
  EXPECT_TRUE(flags.pop());
  db.set(kPush, false);  // as another broker would
  flags.refresh();
  EXPECT_FALSE(flags.push());
  EXPECT_TRUE(flags.pop());
}

TEST_F(MaintenanceFlagsTest, AFailedWriteChangesNothingAndThrows) {
  MaintenanceFlags flags(db, waiters, nullptr, 1h);
  db.down = true;
  EXPECT_THROW(flags.persist_push(true), db::DbError);
  EXPECT_FALSE(flags.push());
}

TEST_F(MaintenanceFlagsTest, AReadOlderThanAWriteNeverUndoesIt) {
  MaintenanceFlags flags(db, waiters, nullptr, 1h);
  std::promise<void> entered;
  std::promise<void> release;
  db.hold_next_read(&entered, release.get_future().share());
  std::thread refresher([&] { flags.refresh(); });  // reads push=false, then is held
  entered.get_future().wait();
  flags.persist_push(true);
  release.set_value();
  refresher.join();
  EXPECT_TRUE(flags.push());
  flags.refresh();  // a read that starts after the write sees it
  EXPECT_TRUE(flags.push());
}

TEST_F(MaintenanceFlagsTest, PopMaintenanceOffWakesParkedPops) {
  MaintenanceFlags flags(db, waiters, nullptr, 1h);
  flags.persist_pop(true);
  wake::PopWaiters::Registration parked(waiters, "q");
  parked.arm();
  flags.persist_pop(false);
  EXPECT_TRUE(parked.wait_until(waiters.clock().now()));

  flags.persist_pop(true);
  parked.arm();
  db.set(kPop, false);  // turned off elsewhere: the refresh wakes them too
  flags.refresh();
  EXPECT_TRUE(parked.wait_until(waiters.clock().now()));
}

TEST_F(MaintenanceFlagsTest, ARefreshRequestReadsWithoutWaitingForThePeriod) {
  MaintenanceFlags flags(db, waiters, nullptr, 1h);
  flags.start();
  const int reads_at_start = db.reads;
  db.set(kPush, true);
  flags.request_refresh();
  EXPECT_TRUE(eventually([&] { return flags.push(); }));
  EXPECT_GT(db.reads.load(), reads_at_start);
  flags.stop();
}

TEST_F(MaintenanceFlagsTest, TheRefreshRunsEveryPeriod) {
  MaintenanceFlags flags(db, waiters, nullptr, 10ms);
  flags.start();
  db.set(kPop, true);
  EXPECT_TRUE(eventually([&] { return flags.pop(); }));
  flags.stop();
}

}  // namespace
