#include "broker/statistics.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"

namespace queen::broker {
namespace {

// Bounds of one manual refresh (one transaction, stalest queues first): far below the
// statement timeout, so a large installation gets complete:false and calls again.
constexpr int kRefreshMaxQueues = 100000;
constexpr int kRefreshBudgetMs = 10000;

}  // namespace

std::optional<std::string> Statistics::view(const db::View& view, const Tenant& tenant,
                                            const std::string& params_json) {
  return translating_db_failures(metrics_,
                                 [&] { return reads_.run([&] { return db_.view(view, tenant, params_json); }); });
}

std::string Statistics::refresh() {
  return translating_db_failures(metrics_, [&] { return db_.refresh(kRefreshMaxQueues, kRefreshBudgetMs); });
}

BrokerMinuteFlusher::BrokerMinuteFlusher(db::StatsProcedures& db, metrics::Metrics& metrics,
                                         std::function<metrics::Gauges()> gauges, BrokerMinuteOptions options)
    : db_(db),
      metrics_(metrics),
      gauges_(std::move(gauges)),
      options_(std::move(options)),
      flushed_(sample()),
      worker_("stats-flush", util::real_clock(), options_.interval, [this] { flush(); }) {}

BrokerMinuteFlusher::~BrokerMinuteFlusher() { stop(); }

void BrokerMinuteFlusher::start() {
  started_ = true;
  worker_.start(worker_.clock().now() + options_.interval);
}

void BrokerMinuteFlusher::stop() {
  if (!started_) return;
  started_ = false;
  worker_.stop();
  try {
    flush();
  } catch (const std::exception& e) {
    spdlog::debug("stats: last broker figures not flushed: {}", e.what());
  }
}

metrics::MinuteSample BrokerMinuteFlusher::sample() const {
  return metrics::MinuteSample{metrics_.counters(), metrics::read_process_stats()};
}

void BrokerMinuteFlusher::flush() {
  const metrics::MinuteSample now = sample();
  db_.record_broker_minute(options_.server_id, metrics::minute_figures_json(flushed_, now, gauges_(),
                                                                            options_.hostname, options_.port));
  flushed_ = now;
}

QueueDepthRefresher::QueueDepthRefresher(db::StatsProcedures& db, const ReadGate& reads, int max_queues,
                                         std::chrono::milliseconds interval)
    : db_(db),
      reads_(reads),
      max_queues_(max_queues),
      worker_("metrics-depths", util::real_clock(), interval, [this] { refresh(); }) {}

QueueDepthRefresher::~QueueDepthRefresher() { stop(); }

void QueueDepthRefresher::start() { worker_.start(); }
void QueueDepthRefresher::stop() { worker_.stop(); }

void QueueDepthRefresher::refresh() {
  metrics::QueueDepths depths;
  try {
    depths = metrics::parse_queue_depths(reads_.run([&] { return db_.metrics_snapshot(max_queues_); }));
  } catch (const std::exception& e) {
    // The database is down or busy: its own series say so; the previous copy stays, with its age.
    spdlog::debug("metrics: queue depths not refreshed: {}", e.what());
    return;
  }
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::lock_guard<std::mutex> lock(mutex_);
  depths_ = std::move(depths);
  refreshed_at_seconds_ = now;
}

std::string QueueDepthRefresher::render() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return metrics::render_queue_depths(depths_, refreshed_at_seconds_);
}

}  // namespace queen::broker
