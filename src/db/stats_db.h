#pragma once
// Typed calls of the statistics procedures (sql/migrations/deploy/stats.sql
// and stats_views.sql, docs/operations-stats.md): the read side of every
// status, resources and analytics route, the manual refresh and the broker's
// per-minute flush. Failures throw DbError.
#include <optional>
#include <string>

namespace queen::db {

class ProcedureRunner;

// One procedure per route; each takes (tenant, params jsonb) and returns the body.
enum class StatsView {
  ResourcesOverview,
  ResourcesQueues,
  ResourcesQueue,
  ResourcesNamespaces,
  ResourcesTasks,
  Status,
  StatusQueues,
  StatusQueue,
  StatusQueueMessages,
  StatusAnalytics,
  SystemMetrics,
  WorkerMetrics,
  PostgresStats,
  QueueLag,
  QueueOps,
  QueueParkedReplicas,
  Retention,
};

class StatsDb {
 public:
  explicit StatsDb(ProcedureRunner& runner) : runner_(runner) {}

  // The view's JSON body for `tenant`; params_json is a JSON object of the
  // route's parameters (stats_views.sql). Empty when the view names a queue
  // the tenant does not have.
  std::optional<std::string> view(StatsView view, const std::string& tenant, const std::string& params_json);
  // queen.refresh_stats: the summary object.
  std::string refresh(int max_queues, int budget_ms);
  // queen.record_broker_minute: adds one flush of this broker's figures.
  void record_broker_minute(const std::string& server_id, const std::string& figures_json);

 private:
  ProcedureRunner& runner_;
};

}  // namespace queen::db
