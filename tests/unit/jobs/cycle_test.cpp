#include "jobs/cycle.h"

#include <gtest/gtest.h>

using namespace queen::jobs;

TEST(JobCycle, IsFloorOfEpochMsOverCycle) {
  EXPECT_EQ(cycle_of(5'999, 1'000), 5);
  EXPECT_EQ(cycle_of(6'000, 1'000), 6);
  EXPECT_EQ(cycle_of(0, 1'000), 0);
  // 2025-01-01T00:01:30Z in minute cycles, the value queen_internal.job_cycle gives.
  EXPECT_EQ(cycle_of(1'735'689'690'000, 60'000), 28'928'161);
}

TEST(JobCycle, FloorsBeforeTheEpochToo) {
  EXPECT_EQ(cycle_of(-1, 1'000), -1);
  EXPECT_EQ(cycle_of(-1'000, 1'000), -1);
  EXPECT_EQ(cycle_of(-1'001, 1'000), -2);
}

TEST(JobCycle, MsUntilNextCycle) {
  EXPECT_EQ(ms_until_next_cycle(5'999, 1'000), 1);
  EXPECT_EQ(ms_until_next_cycle(6'000, 1'000), 1'000);  // at a boundary: a whole cycle
  EXPECT_EQ(ms_until_next_cycle(6'250, 1'000), 750);
}

TEST(JobCycle, NextAttemptIsJustPastTheBoundary) {
  EXPECT_EQ(next_attempt_delay_ms(6'250, 1'000, 5'000, 100), 850);
}

TEST(JobCycle, NextAttemptNeverWaitsLongerThanThePollCeiling) {
  // A five-minute job still re-checks every 5 s, so a broker whose clock runs
  // ahead of the database's cannot sleep through a whole cycle.
  EXPECT_EQ(next_attempt_delay_ms(1'000, 300'000, 5'000, 100), 5'000);
}

TEST(JobCycle, NextAttemptIsAtLeastOneMs) {
  EXPECT_EQ(next_attempt_delay_ms(0, 1'000, 0, 0), 1);
  EXPECT_EQ(next_attempt_delay_ms(0, 1'000, 5'000, -50), 1'000);  // a negative grace counts as none
}

TEST(JobCycle, RunBudgetEndsWithTheCycle) {
  EXPECT_EQ(run_budget_ms(60'000 + 15'000, 60'000, 1'000), 45'000);
}

TEST(JobCycle, RunBudgetHasAFloor) {
  EXPECT_EQ(run_budget_ms(60'000 + 59'900, 60'000, 1'000), 1'000);
}
