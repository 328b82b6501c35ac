// queen-broker: wires config -> db -> broker -> http and runs until SIGTERM
// or SIGINT, then stops accepting, drains in-flight requests and exits 0.
#include <csignal>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/cluster.h"
#include "broker/cluster_options.h"
#include "broker/spool_bridge.h"
#include "config/config.h"
#include "db/database.h"
#include "http/dispatcher.h"
#include "http/routes.h"
#include "http/server.h"
#include "metrics/metrics.h"
#include "spool/spool_log.h"
#include "wake/pop_waiters.h"

namespace {

spdlog::level::level_enum to_spdlog_level(const std::string& level) {
  if (level == "trace") return spdlog::level::trace;
  if (level == "debug") return spdlog::level::debug;
  if (level == "warn") return spdlog::level::warn;
  if (level == "error") return spdlog::level::err;
  return spdlog::level::info;
}

// Blocks SIGTERM/SIGINT in every thread (set before any thread starts) so
// the main thread can sigwait for them.
sigset_t block_termination_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

}  // namespace

int main() {
  const sigset_t termination = block_termination_signals();
  std::signal(SIGPIPE, SIG_IGN);

  queen::config::LoadedConfig loaded;
  try {
    loaded = queen::config::load_config(queen::config::read_process_environment(), queen::config::read_hostname());
  } catch (const queen::config::ConfigError& e) {
    std::cerr << "queen-broker: " << e.what() << std::endl;
    return 2;
  }
  const queen::config::Config& config = loaded.config;

  spdlog::set_level(to_spdlog_level(config.process.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [" + config.process.server_id + "] %v");
  for (const auto& warning : loaded.warnings) spdlog::warn("config: {}", warning);
  for (const auto& line : queen::config::describe_config(config)) spdlog::info("{}", line);
  for (const auto& name : loaded.ignored) spdlog::debug("config: {} is a reference-server setting, ignored", name);

  queen::broker::MeshOptionsResult mesh_options = queen::broker::mesh_options_from(config);
  if (!mesh_options.ok()) {
    for (const auto& error : mesh_options.errors) spdlog::critical("mesh: {}", error);
    return 2;
  }

  queen::db::Database database(config.db);
  queen::wake::PopWaiters waiters;
  queen::metrics::Metrics metrics;
  queen::broker::Broker broker(config, database, waiters, metrics);

  // The spool: built before the flags are read so it follows the persisted
  // push-maintenance flag from the start; stopped (with its drain) before
  // the database pool goes away (it is declared after it).
  std::unique_ptr<queen::broker::SpoolBridge> spool;
  try {
    spool = std::make_unique<queen::broker::SpoolBridge>(
        database, queen::broker::spool_options_from(config.spool),
        queen::broker::spool_bridge_options_from(config.spool),
        [&broker](const std::set<std::string>& queues) { broker.after_push_committed(queues); });
  } catch (const std::exception& e) {
    spdlog::critical("spool: no usable spool directory: {}", e.what());
    return 1;
  }
  spdlog::info("config: file_buffer {}", spool->spool().describe());
  broker.attach_spool(spool.get());
  broker.start();

  // Startup recovery runs before the listener binds, so /health/ready cannot
  // answer 200 (nor anything else) until it ends.
  const queen::spool::RecoverySummary recovery = spool->recover_at_startup(broker.push_maintenance());
  queen::spool::spool_log()->info(
      "spool recovery: {} (leftover files finalized {}, files replayed {}, events replayed {}, files left {})",
      queen::spool::to_string(recovery.stop), recovery.leftover_files_finalized, recovery.files_replayed,
      recovery.events_replayed, recovery.files_left);
  spool->start();

  // Mesh, sweeper, jobs and KV; stopped before the database pool goes away
  // (declared after it).
  auto cluster = std::make_unique<queen::broker::Cluster>(config, std::move(mesh_options.options), database.runner(),
                                                          broker);
  if (const std::string error = cluster->start(); !error.empty()) {
    spdlog::critical("mesh: {}", error);
    broker.begin_shutdown();
    spool->stop();
    return 1;
  }

  const queen::http::RouteContext routes{broker, metrics, config, cluster.get()};
  const queen::http::Dispatcher dispatcher(queen::http::build_router(routes), metrics);
  queen::http::HttpServer server(config.http, dispatcher);
  try {
    server.start();
  } catch (const std::exception& e) {
    spdlog::critical("http: cannot listen on {}:{}: {}", config.http.host, config.http.port, e.what());
    broker.begin_shutdown();
    spool->stop();
    cluster->stop();
    return 1;
  }
  spdlog::info("queen-broker listening on {}:{}", config.http.host, server.port());

  int signal_number = 0;
  sigwait(&termination, &signal_number);
  spdlog::info("received {}, stopping: no new connections, draining in-flight requests",
               signal_number == SIGTERM ? "SIGTERM" : "SIGINT");

  // Parked long polls answer (empty) now instead of at their timeout; new
  // pops arriving before the listener closes answer empty at once.
  broker.begin_shutdown();
  server.stop_accepting();  // Poco's stopAll(false) waits for running requests
  server.drain(std::chrono::milliseconds(config.http.drain_timeout_ms));
  // The drain stops between cycles; what is left stays on disk for the next boot.
  spool->stop();
  // Sweeper claims are not handed back: they fire elsewhere once their lease
  // (QUEEN_SWEEPER_LEASE_MS) expires. Cheaper than a second shutdown path.
  cluster->stop();
  spdlog::info("queen-broker stopped");
  return 0;
}
