#include "db/jobs_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/catalogue_calls.h"

namespace queen::db {

using namespace catalogue;

bool JobsDb::try_begin_job_cycle(const std::string& job, std::int64_t cycle_ms, const std::string& server_id) {
  return call_first<TryBeginJobCycle>(runner_, job, cycle_ms, server_id).value_or(false);
}

bool JobsDb::finish_job_cycle(const std::string& job, const std::string& server_id, const std::string& result_json) {
  return call_first<FinishJobCycle>(runner_, job, server_id, result_json).value_or(false);
}

int JobsDb::apply_retention(int batch, std::int64_t dedup_window_ms) {
  return call_first<ApplyRetention>(runner_, batch, dedup_window_ms).value_or(0);
}

int JobsDb::expire_messages(int batch) {
  return call_first<ExpireMessages>(runner_, batch).value_or(0);
}

int JobsDb::reconcile_stats(int limit, std::int64_t max_age_ms) {
  return call_first<ReconcileStats>(runner_, limit, max_age_ms).value_or(0);
}

int JobsDb::prune_stats_history(int keep_hours, int limit) {
  return call_first<PruneStatsHistory>(runner_, keep_hours, limit).value_or(0);
}

std::string JobsDb::analyze_grown_tables(std::int64_t min_rows) {
  return call_first<AnalyzeGrownTables>(runner_, min_rows).value_or("[]");
}

}  // namespace queen::db
