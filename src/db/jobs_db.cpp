#include "db/jobs_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/statements.h"

namespace queen::db {

using namespace statement;

bool JobsDb::try_begin_job_cycle(const std::string& job, std::int64_t cycle_ms, const std::string& server_id) {
  return runner_.run("try_begin_job_cycle", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(tx.exec_prepared(kTryBeginJobCycle, job, cycle_ms, server_id), "elected")
        .value_or(false);
  });
}

bool JobsDb::finish_job_cycle(const std::string& job, const std::string& server_id, const std::string& result_json) {
  return runner_.run("finish_job_cycle", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(tx.exec_prepared(kFinishJobCycle, job, server_id, result_json), "finished")
        .value_or(false);
  });
}

int JobsDb::apply_retention(int batch, std::int64_t dedup_window_ms) {
  return runner_.run("apply_retention", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kApplyRetention, batch, dedup_window_ms), "deleted").value_or(0);
  });
}

int JobsDb::expire_messages(int batch) {
  return runner_.run("expire_messages", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kExpireMessages, batch), "expired").value_or(0);
  });
}

int JobsDb::reconcile_stats(int limit, std::int64_t max_age_ms) {
  return runner_.run("reconcile_stats", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kReconcileStats, limit, max_age_ms), "refreshed").value_or(0);
  });
}

int JobsDb::prune_stats_history(int keep_hours, int limit) {
  return runner_.run("prune_stats_history", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kPruneStatsHistory, keep_hours, limit), "pruned").value_or(0);
  });
}

}  // namespace queen::db
