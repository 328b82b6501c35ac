#include "sweeper/sweeper.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "../support/eventually.h"
#include "../support/manual_clock.h"
#include "../support/table_default.h"

using namespace std::chrono_literals;
using queen::sweeper::Sweeper;
using queen::sweeper::SweeperOptions;
using queen::sweeper::SweeperStore;
using queen::test_support::eventually;
using queen::test_support::ManualClock;

namespace {

// An in-memory stand-in for the database: a list of due timer ids and a
// count of expired KV rows, with switches to make calls fail.
class FakeStore : public SweeperStore {
 public:
  std::vector<std::int64_t> claim_due_timers(const std::string& server_id, int limit, int lease_ms) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++claim_calls;
    last_server_id = server_id;
    last_lease_ms = lease_ms;
    if (fail_claims) throw std::runtime_error("database unreachable");
    std::vector<std::int64_t> ids;
    while (!due.empty() && static_cast<int>(ids.size()) < limit) {
      ids.push_back(due.front());
      due.pop_front();
    }
    return ids;
  }
  int fire_timers(const std::string&, const std::vector<std::int64_t>& ids) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (fail_fires) throw std::runtime_error("fire failed");
    fired.insert(fired.end(), ids.begin(), ids.end());
    return static_cast<int>(ids.size());
  }
  std::optional<std::int64_t> ms_until_next_timer() override {
    std::lock_guard<std::mutex> lock(mutex);
    ++next_due_calls;
    return next_due;
  }
  int prune_expired_kv(int limit) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++prune_calls;
    const int n = std::min(limit, expired_kv);
    expired_kv -= n;
    return n;
  }
  void add_due(std::int64_t first, std::int64_t count) {
    std::lock_guard<std::mutex> lock(mutex);
    for (std::int64_t i = 0; i < count; ++i) due.push_back(first + i);
  }
  std::size_t fired_count() {
    std::lock_guard<std::mutex> lock(mutex);
    return fired.size();
  }

  std::mutex mutex;
  std::deque<std::int64_t> due;
  std::vector<std::int64_t> fired;
  std::optional<std::int64_t> next_due;
  int expired_kv = 0;
  bool fail_claims = false;
  bool fail_fires = false;
  // Polled by the test thread while the sweeper thread runs.
  std::atomic<int> claim_calls{0};
  std::atomic<int> next_due_calls{0};
  std::atomic<int> prune_calls{0};
  std::string last_server_id;
  int last_lease_ms = 0;
};

SweeperOptions options(int batch = 10, int max_batches = 5, int max_sleep_ms = 1000) {
  SweeperOptions o;
  o.server_id = "broker-a";
  o.lease_ms = 30000;
  o.max_sleep_ms = max_sleep_ms;
  o.claim_batch = batch;
  o.max_batches_per_pass = max_batches;
  o.kv_prune_batch = 100;
  o.kv_prune_interval_ms = 60000;
  return o;
}

}  // namespace

TEST(Sweeper, RejectsAnEmptyServerIdAndNonPositiveOptions) {
  ManualClock clock;
  FakeStore store;
  SweeperOptions o = options();
  o.server_id.clear();
  EXPECT_THROW(Sweeper(o, store, clock), std::invalid_argument);
  o = options();
  o.lease_ms = 0;
  EXPECT_THROW(Sweeper(o, store, clock), std::invalid_argument);
  o = options();
  o.claim_batch = -1;
  EXPECT_THROW(Sweeper(o, store, clock), std::invalid_argument);
  o = options();
  o.min_sleep_ms = -1;
  EXPECT_THROW(Sweeper(o, store, clock), std::invalid_argument);
}

TEST(Sweeper, APassFiresEveryDueTimerInBatchesWithItsServerIdAndLease) {
  ManualClock clock;
  FakeStore store;
  store.add_due(1, 25);
  store.next_due = 400;
  Sweeper sweeper(options(10, 5), store, clock);
  const auto outcome = sweeper.run_pass();
  EXPECT_EQ(store.fired.size(), 25u);
  EXPECT_EQ(store.claim_calls, 3);  // 10 + 10 + 5: the short batch ends the pass
  EXPECT_EQ(store.last_server_id, "broker-a");
  EXPECT_EQ(store.last_lease_ms, 30000);
  EXPECT_FALSE(outcome.backlog);
  EXPECT_FALSE(outcome.failed);
  EXPECT_EQ(outcome.ms_until_next_due, std::optional<std::int64_t>(400));
  EXPECT_EQ(sweeper.counters().timers_fired, 25u);
}

TEST(Sweeper, APassIsBoundedAndReportsTheBacklog) {
  ManualClock clock;
  FakeStore store;
  store.add_due(1, 100);
  Sweeper sweeper(options(10, 3), store, clock);
  const auto outcome = sweeper.run_pass();
  EXPECT_EQ(store.fired.size(), 30u);
  EXPECT_TRUE(outcome.backlog);
  EXPECT_EQ(store.next_due_calls, 0);  // no need to ask: more is due now
}

TEST(Sweeper, AFailedClaimIsReportedNotThrown) {
  ManualClock clock;
  FakeStore store;
  store.fail_claims = true;
  Sweeper sweeper(options(), store, clock);
  const auto outcome = sweeper.run_pass();
  EXPECT_TRUE(outcome.failed);
  EXPECT_EQ(sweeper.counters().failures, 1u);
}

TEST(Sweeper, AFailedFireKeepsTheClaimedTimersUnfiredAndFailsThePass) {
  ManualClock clock;
  FakeStore store;
  store.add_due(1, 5);
  store.fail_fires = true;
  Sweeper sweeper(options(), store, clock);
  EXPECT_TRUE(sweeper.run_pass().failed);
  EXPECT_TRUE(store.fired.empty());
  EXPECT_EQ(sweeper.counters().timers_claimed, 5u);
  EXPECT_EQ(sweeper.counters().timers_fired, 0u);
}

TEST(Sweeper, PrunesKvOncePerInterval) {
  ManualClock clock;
  FakeStore store;
  store.expired_kv = 250;
  Sweeper sweeper(options(), store, clock);
  sweeper.run_pass();
  sweeper.run_pass();
  EXPECT_EQ(store.prune_calls, 1);  // interval is a minute
  EXPECT_EQ(store.expired_kv, 150);  // bounded by kv_prune_batch
  EXPECT_EQ(sweeper.counters().kv_pruned, 100u);
  clock.advance(59s);
  sweeper.run_pass();
  EXPECT_EQ(store.prune_calls, 1);
  clock.advance(1s);
  sweeper.run_pass();
  EXPECT_EQ(store.prune_calls, 2) << "due again a minute after the last prune";
  EXPECT_EQ(store.expired_kv, 50);
}

TEST(Sweeper, WakeCutsTheSleepShort) {
  ManualClock clock;
  FakeStore store;
  Sweeper sweeper(options(10, 5, /*max_sleep_ms=*/60000), store, clock);  // it would sleep a minute
  sweeper.start();
  ASSERT_TRUE(eventually([&] { return store.next_due_calls >= 1; }));
  store.add_due(7, 1);
  sweeper.wake();
  EXPECT_TRUE(eventually([&] { return store.fired_count() == 1; }));
  sweeper.stop();
}

TEST(Sweeper, TheThreadSleepsUntilTheNextDueTimer) {
  ManualClock clock;
  FakeStore store;
  store.next_due = 50;  // a timer is due in 50 ms, the ceiling is a minute
  Sweeper sweeper(options(10, 5, 60000), store, clock);
  sweeper.start();
  ASSERT_TRUE(eventually([&] { return clock.timed_waiters() == 1u; }));
  store.add_due(1, 1);
  clock.advance(49ms);
  ASSERT_TRUE(eventually([&] { return clock.timed_waiters() == 1u; }));
  EXPECT_EQ(store.fired_count(), 0u);
  clock.advance(1ms);
  EXPECT_TRUE(eventually([&] { return store.fired_count() == 1; })) << "the sleep ends at the due timer, not the ceiling";
  sweeper.stop();
}

TEST(Sweeper, StopReturnsPromptlyFromALongSleep) {
  ManualClock clock;
  FakeStore store;
  Sweeper sweeper(options(10, 5, 60000), store, clock);
  sweeper.start();
  ASSERT_TRUE(eventually([&] { return store.next_due_calls >= 1; }));
  const auto begin = std::chrono::steady_clock::now();
  sweeper.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 1s);
}

TEST(SweeperOptions, DefaultsAreTheVariableTables) {
  const SweeperOptions options;
  EXPECT_EQ(options.lease_ms, queen::test::table_default("QUEEN_SWEEPER_LEASE_MS"));
  EXPECT_EQ(options.max_sleep_ms, queen::test::table_default("QUEEN_SWEEPER_MAX_SLEEP_MS"));
}
