#include "jobs/builtin_jobs.h"

#include <algorithm>
#include <string>
#include <utility>

namespace queen::jobs {

std::int64_t stats_max_age_ms(std::int64_t stats_reconcile_interval_ms) noexcept {
  return std::max<std::int64_t>(stats_reconcile_interval_ms / 2, 0);
}

void add_builtin_jobs(JobRunner& runner, db::JobsDb& db, const BuiltinJobOptions& o) {
  runner.add(JobSpec{kRetentionJob, o.retention_interval_ms,
                     batched_job([&db, window = o.dedup_window_ms](int batch) { return db.apply_retention(batch, window); },
                                 o.retention_batch, o.max_batches_per_cycle)});
  runner.add(JobSpec{kEvictionJob, o.eviction_interval_ms,
                     batched_job([&db](int batch) { return db.expire_messages(batch); }, o.eviction_batch,
                                 o.max_batches_per_cycle)});
  // Refresh first (the dashboards' freshness), then prune what aged out of the history.
  JobFunction reconcile =
      batched_job([&db, max_age = stats_max_age_ms(o.stats_reconcile_interval_ms)](
                      int batch) { return db.reconcile_stats(batch, max_age); },
                  o.stats_batch, o.max_batches_per_cycle);
  JobFunction prune = batched_job(
      [&db, keep_hours = o.stats_history_retention_hours](int batch) { return db.prune_stats_history(keep_hours, batch); },
      o.stats_prune_batch, o.max_batches_per_cycle);
  runner.add(JobSpec{kStatsReconcileJob, o.stats_reconcile_interval_ms,
                     [reconcile = std::move(reconcile), prune = std::move(prune)](const JobContext& context) {
                       std::string summary = reconcile(context);
                       summary.pop_back();  // the closing brace: the prune summary joins the object
                       return summary + ", \"prune\": " + prune(context) + "}";
                     }});
  // One statement per cycle: the tables it analyzed (docs/timers-kv-jobs.md, "table_statistics").
  runner.add(JobSpec{kTableStatisticsJob, o.table_statistics_interval_ms,
                     [&db, min_rows = o.table_statistics_min_rows](const JobContext&) {
                       return "{\"analyzed\": " + db.analyze_grown_tables(min_rows) + "}";
                     }});
}

}  // namespace queen::jobs
