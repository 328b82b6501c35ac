#pragma once
// The broker's single-runner jobs and their wiring to the database:
//   retention        queen.apply_retention   every RETENTION_INTERVAL
//   eviction         queen.expire_messages   every EVICTION_INTERVAL
//   stats_reconcile  queen.reconcile_stats   every STATS_RECONCILE_INTERVAL_MS, then
//                    queen.prune_stats_history (STATS_HISTORY_RETENTION_HOURS)
//   table_statistics queen.analyze_grown_tables every TABLE_STATISTICS_INTERVAL_MS
// Each runs on one broker per cycle (JobRunner), in bounded batches.
#include <cstdint>

#include "config/config.h"
#include "db/jobs_db.h"
#include "jobs/job_runner.h"

namespace queen::jobs {

// The settings default to the configuration's (config::JobsConfig, whose variables declare them); the broker
// copies its configuration in (broker/cluster_options.cpp).
struct BuiltinJobOptions {
  std::int64_t retention_interval_ms = config::Config::defaults().jobs.retention_interval_ms;
  int retention_batch = config::Config::defaults().jobs.retention_batch_size;
  // Tombstones of deleted rows are kept as long as a duplicate push is recognized (config::PushConfig).
  std::int64_t dedup_window_ms = config::Config::defaults().push.dedup_window_ms;
  std::int64_t eviction_interval_ms = config::Config::defaults().jobs.eviction_interval_ms;
  int eviction_batch = config::Config::defaults().jobs.eviction_batch_size;
  std::int64_t stats_reconcile_interval_ms = config::Config::defaults().jobs.stats_reconcile_interval_ms;
  int stats_batch = 100;                            // queues refreshed per statement
  int stats_history_retention_hours = config::Config::defaults().jobs.stats_history_retention_hours;
  int stats_prune_batch = 10000;                    // history rows deleted per statement
  std::int64_t table_statistics_interval_ms = config::Config::defaults().jobs.table_statistics_interval_ms;
  // A table is analyzed once it holds twice the rows its statistics counted plus this many:
  // small enough to catch a refill early, large enough that tiny tables are left to autovacuum.
  std::int64_t table_statistics_min_rows = 1000;
  int max_batches_per_cycle = 1000;                 // bounds a run besides its deadline
};

// Job names, identical on every broker (they are the election keys).
inline constexpr const char* kRetentionJob = "retention";
inline constexpr const char* kEvictionJob = "eviction";
inline constexpr const char* kStatsReconcileJob = "stats_reconcile";
inline constexpr const char* kTableStatisticsJob = "table_statistics";

// The stats job skips queues refreshed within half a cycle, so the batches of
// one run move through the queues instead of refreshing the first ones again.
std::int64_t stats_max_age_ms(std::int64_t stats_reconcile_interval_ms) noexcept;

// Adds the four jobs to `runner` (before runner.start()). `db` must outlive it.
void add_builtin_jobs(JobRunner& runner, db::JobsDb& db, const BuiltinJobOptions& options);

// JobElection backed by queen.try_begin_job_cycle / finish_job_cycle.
class DbJobElection final : public JobElection {
 public:
  explicit DbJobElection(db::JobsDb& db) : db_(db) {}
  bool try_begin_cycle(const std::string& job, std::int64_t cycle_ms, const std::string& server_id) override {
    return db_.try_begin_job_cycle(job, cycle_ms, server_id);
  }
  void finish_cycle(const std::string& job, const std::string& server_id, const std::string& result_json) override {
    db_.finish_job_cycle(job, server_id, result_json);
  }

 private:
  db::JobsDb& db_;
};

}  // namespace queen::jobs
