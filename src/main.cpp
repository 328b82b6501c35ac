// queen-broker: wires config -> db -> broker -> http and runs until SIGTERM
// or SIGINT, then stops accepting, drains in-flight requests and exits 0.
#include <csignal>
#include <iostream>

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "config/config.h"
#include "db/database.h"
#include "http/dispatcher.h"
#include "http/routes.h"
#include "http/server.h"
#include "metrics/metrics.h"
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

  queen::db::Database database(config.db);
  queen::wake::PopWaiters waiters;
  queen::metrics::Metrics metrics;
  queen::broker::Broker broker(config, database, waiters, metrics);
  broker.start();

  const queen::http::RouteContext routes{broker, metrics, config};
  const queen::http::Dispatcher dispatcher(queen::http::build_router(routes), metrics);
  queen::http::HttpServer server(config.http, dispatcher);
  try {
    server.start();
  } catch (const std::exception& e) {
    spdlog::critical("http: cannot listen on {}:{}: {}", config.http.host, config.http.port, e.what());
    broker.begin_shutdown();
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
  spdlog::info("queen-broker stopped");
  return 0;
}
