#pragma once
// Typed calls of the single-runner job procedures: the election
// (sql/queen/try_begin_job_cycle.sql) and the work the jobs do (retention,
// eviction, statistics). Failures throw DbError.
#include <cstdint>
#include <string>

namespace queen::db {

class ProcedureRunner;

class JobsDb {
 public:
  explicit JobsDb(ProcedureRunner& runner) : runner_(runner) {}

  // queen.try_begin_job_cycle: true when this broker runs the current cycle.
  bool try_begin_job_cycle(const std::string& job, std::int64_t cycle_ms, const std::string& server_id);
  // queen.finish_job_cycle: records the end and result (JSON object text) of
  // this broker's newest run of `job`; false when there is no such open run.
  bool finish_job_cycle(const std::string& job, const std::string& server_id, const std::string& result_json);

  // queen.apply_retention: deletes at most `batch` messages past their queue's
  // retention, keeping the transaction ids of what it removes for dedup_window_ms. Rows deleted.
  int apply_retention(int batch, std::int64_t dedup_window_ms);
  // queen.expire_messages: dead-letters at most `batch` messages past ttl /
  // maxWaitTimeSeconds. DLQ entries written.
  int expire_messages(int batch);
  // queen.reconcile_stats: refreshes at most `limit` queues' statistics not
  // refreshed within max_age_ms. Queues refreshed.
  int reconcile_stats(int limit, std::int64_t max_age_ms);
  // queen.prune_stats_history: deletes at most `limit` rows of each statistics
  // history table older than keep_hours. Rows deleted.
  int prune_stats_history(int keep_hours, int limit);
  // queen.analyze_grown_tables: ANALYZE of the tables holding at least twice the
  // rows their statistics counted, plus min_rows. The JSON array of their names.
  std::string analyze_grown_tables(std::int64_t min_rows);

 private:
  ProcedureRunner& runner_;
};

}  // namespace queen::db
