#include "spool/replay_plan.h"

#include <gtest/gtest.h>

namespace queen::spool {
namespace {

const ReplayGroupKey kA{"", "q", "p1"};
const ReplayGroupKey kB{"", "q", "p2"};
const ReplayGroupKey kTenantA{"acme", "q", "p1"};

TEST(ReplayPlan, GroupsInOrderOfFirstAppearanceKeepingFileOrderInside) {
  const std::vector<ReplayGroupKey> groups = {kB, kA, kB, kTenantA, kA, kB};
  const auto batches = plan_replay_batches(groups, 100);
  EXPECT_EQ(batches, (std::vector<ReplayBatch>{{0, 2, 5}, {1, 4}, {3}}));
}

TEST(ReplayPlan, CutsEachGroupIntoBatchesOfAtMostMaxBatch) {
  std::vector<ReplayGroupKey> groups(7, kA);
  groups.insert(groups.begin() + 3, kB);  // A A A B A A A A
  const auto batches = plan_replay_batches(groups, 3);
  EXPECT_EQ(batches, (std::vector<ReplayBatch>{{0, 1, 2}, {4, 5, 6}, {7}, {3}}));
}

TEST(ReplayPlan, EmptyFileHasNoBatchesAndZeroMaxBatchMeansOne) {
  EXPECT_TRUE(plan_replay_batches({}, 100).empty());
  EXPECT_EQ(plan_replay_batches({kA, kA}, 0), (std::vector<ReplayBatch>{{0}, {1}}));
}

TEST(ReplayPlan, GroupBatchRunsCoverEachGroupsBatchesBackToBack) {
  std::vector<ReplayGroupKey> groups(7, kA);
  groups.insert(groups.begin() + 3, kB);  // A A A B A A A A
  groups.push_back(kTenantA);
  const auto batches = plan_replay_batches(groups, 3);  // {0,1,2} {4,5,6} {7} | {3} | {8}
  EXPECT_EQ(group_batch_runs(batches, groups), (std::vector<BatchRun>{{0, 3}, {3, 4}, {4, 5}}));
  EXPECT_TRUE(group_batch_runs({}, {}).empty());
}

}  // namespace
}  // namespace queen::spool
