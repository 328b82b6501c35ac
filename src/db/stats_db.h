#pragma once
// Typed calls of the statistics procedures (sql/queen/refresh_stats.sql,
// status_*.sql, resources_*.sql, analytics_*.sql, docs/operations-stats.md): the read side of every
// status, resources and analytics route, the manual refresh and the broker's
// per-minute flush. Failures throw DbError.
#include <optional>
#include <string>

#include "db/catalogue.h"
#include "tenant/tenant.h"

namespace queen::db {

class ProcedureRunner;

class StatsProcedures {
 public:
  virtual ~StatsProcedures() = default;
  // The view's JSON body for `tenant`; params_json is a JSON object of the
  // route's parameters (stats_views.sql). Empty when the view names a queue
  // the tenant does not have.
  virtual std::optional<std::string> view(const View& view, const Tenant& tenant,
                                          const std::string& params_json) = 0;
  // queen.refresh_stats: the summary object.
  virtual std::string refresh(int max_queues, int budget_ms) = 0;
  // queen.record_broker_minute: adds one flush of this broker's figures.
  virtual void record_broker_minute(const std::string& server_id, const std::string& figures_json) = 0;
  // queen.metrics_snapshot: the queue depths and consumer lags of /metrics (its JSON object).
  virtual std::string metrics_snapshot(int max_queues) = 0;
};

class StatsDb final : public StatsProcedures {
 public:
  explicit StatsDb(ProcedureRunner& runner) : runner_(runner) {}

  std::optional<std::string> view(const View& view, const Tenant& tenant, const std::string& params_json) override;
  std::string refresh(int max_queues, int budget_ms) override;
  void record_broker_minute(const std::string& server_id, const std::string& figures_json) override;
  std::string metrics_snapshot(int max_queues) override;

 private:
  ProcedureRunner& runner_;
};

}  // namespace queen::db
