#include "jobs/builtin_jobs.h"

#include <gtest/gtest.h>

using queen::jobs::stats_max_age_ms;

TEST(StatsReconcile, SkipsQueuesRefreshedWithinHalfACycle) {
  EXPECT_EQ(stats_max_age_ms(120000), 60000);
  EXPECT_EQ(stats_max_age_ms(1), 0);
  EXPECT_EQ(stats_max_age_ms(-10), 0);
}

TEST(BuiltinJobs, NamesAreTheElectionKeys) {
  // Renaming a job changes its advisory lock and job_runs rows: brokers of two
  // releases side by side would each run it. Pin the names.
  EXPECT_STREQ(queen::jobs::kRetentionJob, "retention");
  EXPECT_STREQ(queen::jobs::kEvictionJob, "eviction");
  EXPECT_STREQ(queen::jobs::kStatsReconcileJob, "stats_reconcile");
  EXPECT_STREQ(queen::jobs::kTableStatisticsJob, "table_statistics");
}
