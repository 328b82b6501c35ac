#include "db/stats_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/catalogue_calls.h"

namespace queen::db {
using namespace catalogue;

std::optional<std::string> StatsDb::view(const View& view, const Tenant& tenant, const std::string& params_json) {
  // Every view has the signature of StatusOverview: (tenant text, params jsonb) -> jsonb.
  return runner_.run(view.function, [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(tx.exec_prepared(view.statement, tenant.name(), params_json), "result");
  });
}

std::string StatsDb::refresh(int max_queues, int budget_ms) {
  return call_first<RefreshStats>(runner_, max_queues, budget_ms).value_or("{}");
}

void StatsDb::record_broker_minute(const std::string& server_id, const std::string& figures_json) {
  runner_.run(RecordBrokerMinute::function, [&](pqxx::nontransaction& tx) {
    return exec<RecordBrokerMinute>(tx, server_id, figures_json).size();
  });
}

std::string StatsDb::metrics_snapshot(int max_queues) {
  return call_first<MetricsSnapshot>(runner_, max_queues).value_or("{}");
}

}  // namespace queen::db
