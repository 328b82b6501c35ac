#include "db/jobs_db.h"

#include <pqxx/pqxx>

#include "db/timers_db.h"  // run_pooled

namespace queen::db {
namespace {

int int_or_zero(const pqxx::result& r) { return r.empty() || r[0][0].is_null() ? 0 : r[0][0].as<int>(); }
bool bool_or_false(const pqxx::result& r) { return !r.empty() && !r[0][0].is_null() && r[0][0].as<bool>(); }

}  // namespace

bool JobsDb::try_begin_job_cycle(const std::string& job, std::int64_t cycle_ms, const std::string& server_id) {
  bool elected = false;
  run_pooled(pool_, "try_begin_job_cycle", [&](pqxx::nontransaction& tx) {
    elected = bool_or_false(
        tx.exec_params("SELECT queen.try_begin_job_cycle($1::text, $2::int8, $3::text)", job, cycle_ms, server_id));
  });
  return elected;
}

bool JobsDb::finish_job_cycle(const std::string& job, const std::string& server_id, const std::string& result_json) {
  bool finished = false;
  run_pooled(pool_, "finish_job_cycle", [&](pqxx::nontransaction& tx) {
    finished = bool_or_false(
        tx.exec_params("SELECT queen.finish_job_cycle($1::text, $2::text, $3::jsonb)", job, server_id, result_json));
  });
  return finished;
}

int JobsDb::apply_retention(int batch, std::int64_t dedup_window_ms) {
  int deleted = 0;
  run_pooled(pool_, "apply_retention", [&](pqxx::nontransaction& tx) {
    deleted = int_or_zero(tx.exec_params("SELECT queen.apply_retention($1::int, $2::int8 * interval '1 millisecond')",
                                         batch, dedup_window_ms));
  });
  return deleted;
}

int JobsDb::expire_messages(int batch) {
  int expired = 0;
  run_pooled(pool_, "expire_messages", [&](pqxx::nontransaction& tx) {
    expired = int_or_zero(tx.exec_params("SELECT queen.expire_messages($1::int)", batch));
  });
  return expired;
}

int JobsDb::reconcile_stats(int limit, std::int64_t max_age_ms) {
  int refreshed = 0;
  run_pooled(pool_, "reconcile_stats", [&](pqxx::nontransaction& tx) {
    refreshed = int_or_zero(tx.exec_params("SELECT queen.reconcile_stats($1::int, $2::int8)", limit, max_age_ms));
  });
  return refreshed;
}

}  // namespace queen::db
