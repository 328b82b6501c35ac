#pragma once
// Use cases of the statistics (docs/operations-stats.md): the status,
// resources and analytics views (one procedure call each), the manual
// refresh, and the per-broker minute flush that feeds the broker figures of
// those views. Kept apart from the Broker: nothing here touches the hot path.
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "broker/admission.h"
#include "config/config.h"
#include "db/stats_db.h"
#include "metrics/metrics.h"
#include "metrics/minute_figures.h"
#include "metrics/queue_depths.h"
#include "tenant/tenant.h"
#include "util/background_worker.h"

namespace queen::broker {

class Statistics {
 public:
  // `db`, `metrics` and `reads` must outlive the Statistics.
  Statistics(db::StatsProcedures& db, metrics::Metrics& metrics, const ReadGate& reads)
      : db_(db), metrics_(metrics), reads_(reads) {}

  // The view's JSON body; empty when it names a queue the tenant does not
  // have. A read (Read lane, read statement timeout). Throws BrokerError
  // (BadRequest for parameters the database refuses).
  std::optional<std::string> view(const db::View& view, const Tenant& tenant, const std::string& params_json);
  // POST /api/v1/stats/refresh: every queue's statistics now (the summary
  // object, or {"skipped": true, ...} while the reconciler is at work).
  std::string refresh();

 private:
  db::StatsProcedures& db_;
  metrics::Metrics& metrics_;
  const ReadGate& reads_;
};

struct BrokerMinuteOptions {
  std::string server_id;  // QUEEN_SERVER_ID: the broker's identity in the figures
  std::string hostname;
  int port = 0;
  // BROKER_STATS_FLUSH_INTERVAL_MS
  std::chrono::milliseconds interval{config::Config::defaults().jobs.broker_stats_flush_interval_ms};
};

// Flushes this broker's figures (metrics::minute_figures_json) once per
// interval, one statement each; a failed flush is logged and its deltas are
// carried into the next one.
class BrokerMinuteFlusher {
 public:
  BrokerMinuteFlusher(db::StatsProcedures& db, metrics::Metrics& metrics,
                      std::function<metrics::Gauges()> gauges, BrokerMinuteOptions options);
  ~BrokerMinuteFlusher();  // stop()s
  BrokerMinuteFlusher(const BrokerMinuteFlusher&) = delete;
  BrokerMinuteFlusher& operator=(const BrokerMinuteFlusher&) = delete;

  void start();
  // Stops the loop after a last flush, so a stopping broker's final minute is kept.
  void stop();

 private:
  // One flush; throws on failure (the worker logs and retries).
  void flush();
  metrics::MinuteSample sample() const;

  db::StatsProcedures& db_;
  metrics::Metrics& metrics_;
  const std::function<metrics::Gauges()> gauges_;
  const BrokerMinuteOptions options_;
  metrics::MinuteSample flushed_;  // what the previous successful flush covered (worker thread only)
  util::BackgroundWorker worker_;
  bool started_ = false;
};

// Re-reads the queue depths and consumer lags of /metrics (queen.metrics_snapshot, one bounded
// statement under the Read lane) once per METRICS_REFRESH_INTERVAL_MS, so a scrape renders a copy in
// memory and never reaches the database. A failed read is logged at debug and keeps the previous copy
// (its timestamp says how old it is).
class QueueDepthRefresher {
 public:
  QueueDepthRefresher(db::StatsProcedures& db, const ReadGate& reads, int max_queues,
                      std::chrono::milliseconds interval);
  ~QueueDepthRefresher();  // stop()s
  QueueDepthRefresher(const QueueDepthRefresher&) = delete;
  QueueDepthRefresher& operator=(const QueueDepthRefresher&) = delete;

  void start();  // the first read now
  void stop();

  // The series of the last read (only its timestamp, 0, before the first).
  std::string render() const;

 private:
  void refresh();

  db::StatsProcedures& db_;
  const ReadGate& reads_;
  const int max_queues_;
  mutable std::mutex mutex_;
  metrics::QueueDepths depths_;      // guarded by mutex_
  double refreshed_at_seconds_ = 0;  // guarded by mutex_
  util::BackgroundWorker worker_;
};

}  // namespace queen::broker
