#include "jobs/builtin_jobs.h"

#include <gtest/gtest.h>

#include "../support/table_default.h"

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

TEST(BuiltinJobOptions, DefaultsAreTheVariableTables) {
  const queen::jobs::BuiltinJobOptions options;
  EXPECT_EQ(options.retention_interval_ms, queen::test::table_default("RETENTION_INTERVAL"));
  EXPECT_EQ(options.retention_batch, queen::test::table_default("RETENTION_BATCH_SIZE"));
  EXPECT_EQ(options.dedup_window_ms, queen::test::table_default("QUEEN_DEDUP_WINDOW_MS"));
  EXPECT_EQ(options.eviction_interval_ms, queen::test::table_default("EVICTION_INTERVAL"));
  EXPECT_EQ(options.eviction_batch, queen::test::table_default("EVICTION_BATCH_SIZE"));
  EXPECT_EQ(options.stats_reconcile_interval_ms, queen::test::table_default("STATS_RECONCILE_INTERVAL_MS"));
  EXPECT_EQ(options.stats_history_retention_hours, queen::test::table_default("STATS_HISTORY_RETENTION_HOURS"));
  EXPECT_EQ(options.table_statistics_interval_ms, queen::test::table_default("TABLE_STATISTICS_INTERVAL_MS"));
}
