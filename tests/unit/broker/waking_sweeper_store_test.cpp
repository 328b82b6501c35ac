// Fired timers wake the long polls of their queues on this broker.
#include <gtest/gtest.h>

#include <stdexcept>

#include "broker/waking_sweeper_store.h"

using namespace queen;

namespace {

class FakeStore : public sweeper::SweeperStore {
 public:
  std::vector<std::int64_t> claim_due_timers(const std::string&, int, int) override { return {1, 2}; }
  int fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) override {
    fired_by = server_id;
    fired_ids = ids;
    return fire_result;
  }
  std::optional<std::int64_t> ms_until_next_timer() override { return 42; }
  int prune_expired_kv(int limit) override { return limit - 1; }

  int fire_result = 0;
  std::string fired_by;
  std::vector<std::int64_t> fired_ids;
};

struct Recorder {
  std::vector<std::vector<std::int64_t>> lookups;
  std::vector<std::set<std::string>> wakes;
};

broker::WakingSweeperStore make_store(FakeStore& inner, Recorder& rec, std::vector<std::string> names,
                                      bool lookup_fails = false) {
  return broker::WakingSweeperStore(
      inner,
      [&rec, names, lookup_fails](const std::vector<std::int64_t>& ids) {
        rec.lookups.push_back(ids);
        if (lookup_fails) throw std::runtime_error("db down");
        return names;
      },
      [&rec](const std::set<std::string>& queues) { rec.wakes.push_back(queues); });
}

}  // namespace

TEST(WakingSweeperStore, WakesTheQueuesOfTheTimersItFired) {
  FakeStore inner;
  inner.fire_result = 3;
  Recorder rec;
  auto store = make_store(inner, rec, {"orders", "invoices", "orders"});
  EXPECT_EQ(store.fire_timers("queen-a", {7, 8, 9}), 3);
  EXPECT_EQ(inner.fired_by, "queen-a");
  EXPECT_EQ(inner.fired_ids, (std::vector<std::int64_t>{7, 8, 9}));
  EXPECT_EQ(rec.lookups, (std::vector<std::vector<std::int64_t>>{{7, 8, 9}}));
  EXPECT_EQ(rec.wakes, (std::vector<std::set<std::string>>{{"invoices", "orders"}}));
}

TEST(WakingSweeperStore, WakesNobodyWhenNothingFired) {
  FakeStore inner;
  inner.fire_result = 0;
  Recorder rec;
  auto store = make_store(inner, rec, {"orders"});
  EXPECT_EQ(store.fire_timers("queen-a", {7}), 0);
  EXPECT_TRUE(rec.wakes.empty());
}

TEST(WakingSweeperStore, AFailedLookupStillFires) {
  FakeStore inner;
  inner.fire_result = 1;
  Recorder rec;
  auto store = make_store(inner, rec, {}, /*lookup_fails=*/true);
  EXPECT_EQ(store.fire_timers("queen-a", {7}), 1);
  EXPECT_EQ(inner.fired_ids, (std::vector<std::int64_t>{7}));
  EXPECT_TRUE(rec.wakes.empty());
}

TEST(WakingSweeperStore, NoIdsNoLookup) {
  FakeStore inner;
  Recorder rec;
  auto store = make_store(inner, rec, {"orders"});
  EXPECT_EQ(store.fire_timers("queen-a", {}), 0);
  EXPECT_TRUE(rec.lookups.empty());
}

TEST(WakingSweeperStore, PassesTheOtherCallsThrough) {
  FakeStore inner;
  Recorder rec;
  auto store = make_store(inner, rec, {});
  EXPECT_EQ(store.claim_due_timers("queen-a", 10, 1000), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(store.ms_until_next_timer(), 42);
  EXPECT_EQ(store.prune_expired_kv(10), 9);
}
