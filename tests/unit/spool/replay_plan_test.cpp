#include "spool/replay_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>

namespace queen::spool {
namespace {

const ReplayGroupKey kA{Tenant::default_tenant(), "q", "p1"};
const ReplayGroupKey kB{Tenant::default_tenant(), "q", "p2"};
const ReplayGroupKey kTenantA{Tenant("acme"), "q", "p1"};

TEST(ReplayPlan, OneLaneCutsTheFileIntoBatchesGroupingEachPartitionAndTenantInOrder) {
  const std::vector<ReplayGroupKey> groups = {kB, kA, kB, kTenantA, kA, kB};
  const ReplayPlan plan = plan_replay(groups, 100, 1);
  // One batch: default tenant's groups (B first seen, then A), then acme's; file order inside each.
  EXPECT_EQ(plan.batches, (std::vector<ReplayBatch>{{0, 2, 5, 1, 4, 3}}));
  EXPECT_EQ(plan.lanes, (std::vector<BatchRun>{{0, 1}}));
}

TEST(ReplayPlan, BatchesHoldAtMostMaxBatchRecordsAndKeepFileOrderAcrossBatches) {
  std::vector<ReplayGroupKey> groups(7, kA);
  groups.insert(groups.begin() + 3, kB);  // A A A B A A A A
  const ReplayPlan plan = plan_replay(groups, 3, 1);
  // The middle batch holds records 3 (B), 4 and 5 (A): A was seen first in the file.
  EXPECT_EQ(plan.batches, (std::vector<ReplayBatch>{{0, 1, 2}, {4, 5, 3}, {6, 7}}));
}

TEST(ReplayPlan, LanesSplitGroupsNeverAGroupAndBalanceRecords) {
  // A has 4 records, B 1, acme 2: A -> lane 0, B -> lane 1, acme -> lane 1 (lighter).
  const std::vector<ReplayGroupKey> groups = {kA, kB, kA, kTenantA, kA, kTenantA, kA};
  const ReplayPlan plan = plan_replay(groups, 2, 2);
  EXPECT_EQ(plan.batches, (std::vector<ReplayBatch>{{0, 2}, {4, 6}, {1, 3}, {5}}));
  EXPECT_EQ(plan.lanes, (std::vector<BatchRun>{{0, 2}, {2, 4}}));
}

TEST(ReplayPlan, NeverMoreLanesThanGroups) {
  const ReplayPlan plan = plan_replay({kA, kA, kA}, 100, 8);
  EXPECT_EQ(plan.lanes, (std::vector<BatchRun>{{0, 1}}));
}

TEST(ReplayPlan, EmptyFileHasNoBatchesAndZeroMaxBatchOrLanesMeansOne) {
  const ReplayPlan empty = plan_replay({}, 100, 4);
  EXPECT_TRUE(empty.batches.empty());
  EXPECT_TRUE(empty.lanes.empty());
  EXPECT_EQ(plan_replay({kA, kA}, 0, 0).batches, (std::vector<ReplayBatch>{{0}, {1}}));
}

TEST(ReplayPlan, ABatchClosesWhenTheNextRecordWouldPassTheByteBound) {
  const std::vector<ReplayGroupKey> groups(6, kA);
  //                                     0   1   2   3   4   5
  const std::vector<std::uint64_t> bytes{40, 50, 10, 60, 30, 70};
  const ReplayPlan plan = plan_replay(groups, bytes, 100, 100, 1);
  // 40+50+10 = 100 fits exactly; 60+30 = 90, +70 would pass 100.
  EXPECT_EQ(plan.batches, (std::vector<ReplayBatch>{{0, 1, 2}, {3, 4}, {5}}));
}

TEST(ReplayPlan, ARecordLargerThanTheByteBoundReplaysAlone) {
  // The reproduction's shape: 27 records of 40 MB, bound 16 MiB: 27 batches of one.
  const std::vector<ReplayGroupKey> groups(27, kA);
  const std::vector<std::uint64_t> bytes(27, 40'000'000);
  const ReplayPlan plan = plan_replay(groups, bytes, 100, 16ULL << 20, 4);
  ASSERT_EQ(plan.batches.size(), 27u);
  for (std::size_t i = 0; i < 27; ++i) EXPECT_EQ(plan.batches[i], ReplayBatch{i});

  // Small records around a big one: the big one alone, the small ones batched on both sides.
  const std::vector<std::uint64_t> mixed{1, 2, 500, 3, 4};
  EXPECT_EQ(plan_replay(std::vector<ReplayGroupKey>(5, kA), mixed, 100, 10, 1).batches,
            (std::vector<ReplayBatch>{{0, 1}, {2}, {3, 4}}));
}

TEST(ReplayPlan, TheEventBoundAndTheByteBoundBothApplyAndZeroBytesMeansNoByteBound) {
  const std::vector<ReplayGroupKey> groups(5, kA);
  const std::vector<std::uint64_t> bytes(5, 1);
  EXPECT_EQ(plan_replay(groups, bytes, 2, 100, 1).batches, (std::vector<ReplayBatch>{{0, 1}, {2, 3}, {4}}));
  EXPECT_EQ(plan_replay(groups, std::vector<std::uint64_t>(5, 1ULL << 40), 100, 0, 1).batches,
            (std::vector<ReplayBatch>{{0, 1, 2, 3, 4}}));
  EXPECT_THROW(plan_replay(groups, std::vector<std::uint64_t>(4, 1), 100, 10, 1), std::invalid_argument);
}

TEST(ReplayPlan, TheByteBoundCutsEachLaneOnItsOwn) {
  // A -> lane 0, B -> lane 1; per lane 6+6 > 10.
  const std::vector<ReplayGroupKey> groups{kA, kB, kA, kB};
  const std::vector<std::uint64_t> bytes{6, 5, 6, 5};
  const ReplayPlan plan = plan_replay(groups, bytes, 100, 10, 2);
  EXPECT_EQ(plan.batches, (std::vector<ReplayBatch>{{0}, {2}, {1, 3}}));
  EXPECT_EQ(plan.lanes, (std::vector<BatchRun>{{0, 2}, {2, 3}}));
}

TEST(ReplayPlan, EveryRecordOnceAndEachGroupInFileOrderThroughItsLane) {
  std::vector<ReplayGroupKey> groups;
  for (int i = 0; i < 500; ++i) groups.push_back({Tenant(i % 3 == 0 ? "acme" : ""), "q", "p" + std::to_string(i % 7)});
  const ReplayPlan plan = plan_replay(groups, 10, 3);
  std::map<ReplayGroupKey, std::vector<std::size_t>> seen;
  std::map<ReplayGroupKey, std::size_t> lane_of;
  for (std::size_t lane = 0; lane < plan.lanes.size(); ++lane) {
    for (std::size_t b = plan.lanes[lane].first; b < plan.lanes[lane].second; ++b) {
      ASSERT_LE(plan.batches[b].size(), 10u);
      for (const std::size_t i : plan.batches[b]) {
        seen[groups[i]].push_back(i);
        EXPECT_EQ(lane_of.try_emplace(groups[i], lane).first->second, lane) << "a group in two lanes";
      }
    }
  }
  std::size_t total = 0;
  for (const auto& [key, records] : seen) {
    EXPECT_TRUE(std::is_sorted(records.begin(), records.end())) << key.partition;
    total += records.size();
  }
  EXPECT_EQ(total, groups.size());
  EXPECT_EQ(plan.lanes.size(), 3u);
}

}  // namespace
}  // namespace queen::spool
