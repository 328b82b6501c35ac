#include "db/stats_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/statements.h"

namespace queen::db {
namespace {

const char* statement_of(StatsView view) {
  using namespace statement;
  switch (view) {
    case StatsView::ResourcesOverview: return kResourcesOverview;
    case StatsView::ResourcesQueues: return kResourcesQueues;
    case StatsView::ResourcesQueue: return kResourcesQueue;
    case StatsView::ResourcesNamespaces: return kResourcesNamespaces;
    case StatsView::ResourcesTasks: return kResourcesTasks;
    case StatsView::Status: return kStatusOverview;
    case StatsView::StatusQueues: return kStatusQueues;
    case StatsView::StatusQueue: return kStatusQueue;
    case StatsView::StatusQueueMessages: return kStatusQueueMessages;
    case StatsView::StatusAnalytics: return kStatusAnalytics;
    case StatsView::SystemMetrics: return kAnalyticsSystemMetrics;
    case StatsView::WorkerMetrics: return kAnalyticsWorkerMetrics;
    case StatsView::PostgresStats: return kAnalyticsPostgresStats;
    case StatsView::QueueLag: return kAnalyticsQueueLag;
    case StatsView::QueueOps: return kAnalyticsQueueOps;
    case StatsView::QueueParkedReplicas: return kAnalyticsParkedReplicas;
    case StatsView::Retention: return kAnalyticsRetention;
  }
  return kResourcesOverview;
}

}  // namespace

std::optional<std::string> StatsDb::view(StatsView view, const std::string& tenant, const std::string& params_json) {
  const char* name = statement_of(view);
  return runner_.run(name, [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(tx.exec_prepared(name, tenant, params_json), "result_json");
  });
}

std::string StatsDb::refresh(int max_queues, int budget_ms) {
  return runner_.run("refresh_stats", [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(tx.exec_prepared(statement::kRefreshStats, max_queues, budget_ms),
                                    "result_json")
        .value_or("{}");
  });
}

void StatsDb::record_broker_minute(const std::string& server_id, const std::string& figures_json) {
  runner_.run("record_broker_minute", [&](pqxx::nontransaction& tx) {
    tx.exec_prepared(statement::kRecordBrokerMinute, server_id, figures_json);
    return true;
  });
}

}  // namespace queen::db
