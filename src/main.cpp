// queen-broker: wires config -> db -> broker -> http and runs until SIGTERM
// or SIGINT, then fails readiness for SHUTDOWN_GRACE_MS while still serving,
// stops accepting, drains in-flight requests and exits 0. The flags of
// --help (config/command_line.h) start nothing.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <csignal>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "auth/gate.h"
#include "broker/broker.h"
#include "broker/cluster.h"
#include "broker/cluster_options.h"
#include "broker/consumer_groups.h"
#include "broker/maintenance_flags.h"
#include "broker/pop_wakes.h"
#include "broker/spool_bridge.h"
#include "broker/statistics.h"
#include "config/command_line.h"
#include "config/config.h"
#include "config/variables.h"
#include "config/version.h"
#include "crypto/payload_cipher.h"
#include "db/boot_check.h"
#include "db/catalogue.h"
#include "db/consumer_groups_db.h"
#include "db/database.h"
#include "http/api/routes.h"
#include "http/transport/dispatcher.h"
#include "http/transport/health_probe.h"
#include "http/transport/server.h"
#include "metrics/metrics.h"
#include "spool/spool_lock.h"
#include "spool/spool_log.h"
#include "util/clock.h"
#include "util/log_format.h"
#include "wake/pop_waiters.h"

namespace {

using namespace queen;

constexpr int kExitStopped = 0;
constexpr int kExitStartFailed = 1;
constexpr int kExitBadConfig = 2;
constexpr int kExitNotReady = 1;
// Under the container's HEALTHCHECK --timeout (docker/Dockerfile).
constexpr std::chrono::milliseconds kHealthcheckTimeout{2000};

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

// Everything a boot checks before it opens a database connection or a socket: every variable
// (config::read_config), then the encryption keys (through src/crypto's one key parser), the mesh options
// and the JWT key material. The boot and --check-config run exactly this; any error stops the boot (exit 2).
struct CheckedConfig {
  config::LoadedConfig loaded;
  std::vector<std::string> errors;   // one line each, no secret quoted
  mesh::MeshOptions mesh_options;    // when no error
  std::unique_ptr<auth::Gate> gate;  // when JWT_ENABLED=true and no error
};

bool refused_with_prefix(const config::LoadedConfig& loaded, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(loaded.refused.begin(), loaded.refused.end(), [&](const std::string& name) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&name](std::string_view prefix) { return name.rfind(prefix, 0) == 0; });
  });
}

CheckedConfig check_configuration(config::LoadedConfig loaded_config) {
  CheckedConfig checked{std::move(loaded_config), {}, {}, nullptr};
  const config::LoadedConfig& loaded = checked.loaded;
  const config::Config& config = loaded.config;
  checked.errors = loaded.errors;
  for (const auto& error : crypto::cipher_from_config(config.encryption_key, config.encryption_key_previous).errors) {
    checked.errors.push_back(error);
  }
  // What derives from refused variables is not checked: their defaults would be.
  if (!refused_with_prefix(loaded, {"QUEEN_MESH_", "QUEEN_SYNC_", "QUEEN_SERVER_ID", "HOST"})) {
    broker::MeshOptionsResult mesh_options = broker::mesh_options_from(config);
    for (const auto& error : mesh_options.errors) checked.errors.push_back("mesh: " + error);
    checked.mesh_options = std::move(mesh_options.options);
  }
  if (config.jwt.enabled && !refused_with_prefix(loaded, {"JWT_"})) {
    try {
      checked.gate = std::make_unique<auth::Gate>(config.jwt);
    } catch (const std::exception& e) {
      checked.errors.push_back(std::string("auth: ") + e.what());
    }
  }
  return checked;
}

void report_errors(const CheckedConfig& checked) {
  for (const auto& error : checked.errors) std::cerr << "queen-broker: " << error << "\n";
  std::cerr << std::flush;
}

void set_up_logging(const config::LoadedConfig& loaded) {
  const config::Config& config = loaded.config;
  // The access log writes where every other line goes; its level is its own (ACCESS_LOG).
  const auto main_logger = spdlog::default_logger();
  spdlog::register_logger(
      std::make_shared<spdlog::logger>("access", main_logger->sinks().begin(), main_logger->sinks().end()));
  spdlog::set_formatter(std::make_unique<util::LineFormatter>(
      config.process.log_format == "json" ? util::LogFormat::Json : util::LogFormat::Text, config.process.server_id));
  util::set_log_level(config.process.log_level);
  util::set_access_log(config.process.access_log);
  spdlog::info("queen-broker {} starting", config::broker_version());
  for (const auto& warning : loaded.warnings) spdlog::warn("config: {}", warning);
  for (const auto& line : config::describe_config(config)) spdlog::info("{}", line);
  for (const auto& name : loaded.ignored) spdlog::debug("config: {} is a reference-server setting, ignored", name);
}

// The spool tells the local pops and (through the cluster) the peers what its
// replay committed. Null when no spool directory is usable, or when another
// broker holds the one this broker would use.
std::unique_ptr<broker::SpoolBridge> make_spool(const config::Config& config, db::Database& database,
                                                wake::PopWaiters& waiters, broker::Cluster& cluster) {
  try {
    auto spool = std::make_unique<broker::SpoolBridge>(
        database, broker::spool_options_from(config.spool), broker::spool_bridge_options_from(config.spool),
        [&waiters, &cluster](const std::set<std::string>& queues) {
          broker::announce_committed(waiters, &cluster, queues);
        });
    return spool;
  } catch (const spool::SpoolDirectoryLocked& e) {
    // Like a port in use, a start failure (exit 1), not a bad value: it clears when the other broker stops.
    spdlog::critical("spool: {}", e.what());
    return nullptr;
  } catch (const std::exception& e) {
    spdlog::critical("spool: no usable spool directory: {}", e.what());
    return nullptr;
  }
}

// Replays what a previous process left in the spool. Runs before the listener
// binds, so /health/ready cannot answer 200 (nor anything else) until it ends.
void recover_spool(broker::SpoolBridge& spool, bool push_maintenance) {
  const spool::RecoverySummary recovery = spool.recover_at_startup(push_maintenance);
  spool::spool_log()->info(
      "spool recovery: {} (leftover files finalized {}, files replayed {}, events replayed {}, files left {})",
      spool::to_string(recovery.stop), recovery.leftover_files_finalized, recovery.files_replayed,
      recovery.events_replayed, recovery.files_left);
}

void log_authentication(const config::Config& config) {
  if (config.jwt.enabled) {
    spdlog::info("auth: JWT authentication is on (JWT_ALGORITHM={})", config.jwt.algorithm);
  } else {
    spdlog::info("auth: JWT authentication is off (JWT_ENABLED=false): every route is open");
  }
}

// A database that refuses this broker's configuration stops the boot (exit
// 2, one line naming the variable to fix); one that is down does not: the
// broker boots into spool mode and drains once it is back.
bool database_usable_or_reported(const config::DbConfig& config) {
  const db::BootCheck check = db::check_database_at_boot(config);
  switch (check.outcome) {
    case db::BootCheck::Outcome::Usable: return true;
    case db::BootCheck::Outcome::Unreachable:
      spdlog::warn("db: {}; booting anyway, pushes go to the spool until it answers", check.detail);
      return true;
    case db::BootCheck::Outcome::Misconfigured:
      spdlog::critical("db: {}", check.detail);
      return false;
  }
  return false;
}

const char* signal_name(int signal_number) { return signal_number == SIGTERM ? "SIGTERM" : "SIGINT"; }

// Waits for SIGTERM/SIGINT, then fails readiness (`stopping`) and keeps serving
// for the grace, so a load balancer takes this endpoint out before connections
// are refused. A second signal ends the grace early.
void wait_for_termination(const sigset_t& termination, std::atomic<bool>& stopping, std::chrono::milliseconds grace) {
  int signal_number = 0;
  sigwait(&termination, &signal_number);
  stopping.store(true);
  if (grace.count() > 0) {
    spdlog::info("received {}, readiness now answers 503; serving {} ms more (SHUTDOWN_GRACE_MS) before the drain",
                 signal_name(signal_number), grace.count());
    timespec wait{static_cast<std::time_t>(grace.count() / 1000), static_cast<long>(grace.count() % 1000) * 1000000};
    const int second = sigtimedwait(&termination, nullptr, &wait);
    if (second > 0) spdlog::info("received {} during the grace, stopping now", signal_name(second));
  }
  spdlog::info("received {}, stopping: no new connections, draining in-flight requests", signal_name(signal_number));
}

// Everything the broker runs, built in dependency order (each part gets what
// it uses at construction) and destroyed in reverse; every part is stopped
// explicitly, in the order below, before any of it is destroyed.
int run(const config::Config& config, mesh::MeshOptions mesh_options, auth::Gate* gate,
        const sigset_t& termination) {
  std::atomic<bool> stopping{false};
  metrics::Metrics metrics;  // before the database: its procedure runner times every call into it
  db::Database database(config.db);
  database.runner().time_calls_into(&metrics.db_call_durations());
  wake::PopWaiters waiters(util::real_clock());
  // Mesh, sweeper, jobs and KV: told what committed by the spool and the broker.
  broker::Cluster cluster(config, std::move(mesh_options), database.runner(), waiters);
  const std::unique_ptr<broker::SpoolBridge> spool = make_spool(config, database, waiters, cluster);
  if (!spool) return kExitStartFailed;
  // Followed by the spool from the first read on, so the spool matches the
  // persisted push-maintenance flag before recovery.
  broker::MaintenanceFlags flags(database, waiters, spool.get(),
                                 std::chrono::milliseconds(config.system.flag_refresh_ms));
  broker::Broker broker(config, database, waiters, metrics, flags, spool.get(), &cluster);

  // Parked long polls answer (empty) now instead of at their timeout; new
  // pops arriving before the listener closes answer empty at once.
  const auto begin_shutdown = [&] {
    broker.begin_shutdown();
    flags.stop();
  };

  cluster.on_queue_reconfigured(
      [&broker](const std::string& queue) { broker.queue_admin().queue_reconfigured_elsewhere(queue); });
  flags.start();
  recover_spool(*spool, flags.push());
  spool->start();
  if (const std::string error = cluster.start(flags, broker.reads()); !error.empty()) {
    spdlog::critical("mesh: {}", error);
    begin_shutdown();
    spool->stop();
    return kExitStartFailed;
  }

  db::ConsumerGroupsDb consumer_groups_db(database.runner());
  broker::ConsumerGroups consumer_groups(consumer_groups_db, waiters, &cluster, broker.reads());
  // Statistics views and this broker's per-minute figures (docs/operations-stats.md).
  db::StatsDb stats_db(database.runner());
  broker::Statistics statistics(stats_db, metrics, broker.reads());
  broker::BrokerMinuteFlusher minute_flusher(
      stats_db, metrics, [&broker] { return broker.gauges(); },
      broker::BrokerMinuteOptions{config.process.server_id, config::read_hostname(), config.http.port,
                                  std::chrono::milliseconds(config.jobs.broker_stats_flush_interval_ms)});
  minute_flusher.start();
  broker::QueueDepthRefresher queue_depths(stats_db, broker.reads(), config.metrics.max_queues,
                                           std::chrono::milliseconds(config.metrics.refresh_interval_ms));
  queue_depths.start();

  http::RouteContext routes{broker, metrics, config, &cluster};
  routes.consumer_groups = &consumer_groups;
  routes.statistics = &statistics;
  routes.queue_depths = &queue_depths;
  routes.stopping = &stopping;
  if (gate) gate->start();  // the first JWKS fetch, before the first request
  const http::Dispatcher dispatcher(http::build_router(routes), metrics, gate, http::CorsPolicy(config.http.cors_origins));
  http::HttpServer server(config.http, dispatcher);
  try {
    server.start();
  } catch (const std::exception& e) {
    spdlog::critical("http: cannot listen on {}:{}: {}", config.http.host, config.http.port, e.what());
    begin_shutdown();
    spool->stop();
    cluster.stop();
    return kExitStartFailed;
  }
  spdlog::info("queen-broker {} listening on {}:{}", config::broker_version(), config.http.host, server.port());

  wait_for_termination(termination, stopping, std::chrono::milliseconds(config.http.shutdown_grace_ms));
  begin_shutdown();
  server.stop_accepting();  // Poco's stopAll(false) waits for running requests
  server.drain(std::chrono::milliseconds(config.http.drain_timeout_ms));
  // The drain stops between cycles; what is left stays on disk for the next boot.
  spool->stop();
  minute_flusher.stop();
  queue_depths.stop();
  // Sweeper claims are not handed back: they fire elsewhere once their lease
  // (QUEEN_SWEEPER_LEASE_MS) expires. Cheaper than a second shutdown path.
  cluster.stop();
  spdlog::info("queen-broker stopped");
  return kExitStopped;
}

// --check-config, the deploy gate: what the boot checks without a database or a socket
// (check_configuration), each variable's value and whether it was set, the errors and the warnings.
int check_config() {
  const CheckedConfig checked =
      check_configuration(config::read_config(config::read_process_environment(), config::read_hostname()));
  for (const auto& line : config::describe_settings(checked.loaded.settings)) std::cout << line << "\n";
  for (const auto& warning : checked.loaded.warnings) std::cerr << "queen-broker: warning: " << warning << "\n";
  report_errors(checked);
  // The spool directory the boot would use (a fallback is a warning; none usable refuses the boot).
  const bool spool_usable = broker::report_spool_directory(checked.loaded.config.spool, std::cout, std::cerr);
  const bool valid = checked.errors.empty() && spool_usable;
  std::cout << (valid ? "configuration is valid" : "configuration is invalid") << std::endl;
  return valid ? kExitStopped : kExitBadConfig;
}

// --healthcheck: the container's probe (docker/Dockerfile): readiness of the broker on PORT.
int healthcheck() {
  config::LoadedConfig loaded;
  try {
    loaded = config::load_config(config::read_process_environment(), config::read_hostname());
  } catch (const config::ConfigError& e) {
    std::cerr << "queen-broker: " << e.what() << std::endl;
    return kExitNotReady;
  }
  const http::HealthProbe probe = http::probe_readiness(loaded.config.http, kHealthcheckTimeout);
  (probe.ready ? std::cout : std::cerr) << "queen-broker: " << probe.detail << std::endl;
  return probe.ready ? kExitStopped : kExitNotReady;
}

}  // namespace

int main(int argc, char** argv) {
  const config::CommandLine command = config::parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
  switch (command.mode) {
    case config::CommandLine::Mode::Help: std::cout << config::render_help(); return kExitStopped;
    case config::CommandLine::Mode::Version: std::cout << "queen-broker " << config::broker_version() << "\n"; return kExitStopped;
    case config::CommandLine::Mode::CheckConfig: return check_config();
    case config::CommandLine::Mode::Healthcheck: return healthcheck();
    // for the conformance test (tests/integration/test_catalogue.py)
    case config::CommandLine::Mode::Catalogue: std::cout << db::catalogue::to_json() << '\n'; return kExitStopped;
    case config::CommandLine::Mode::Invalid: std::cerr << "queen-broker: " << command.error << std::endl; return kExitBadConfig;
    case config::CommandLine::Mode::Run: break;
  }
  const sigset_t termination = block_termination_signals();
  std::signal(SIGPIPE, SIG_IGN);

  config::LoadedConfig loaded = config::read_config(config::read_process_environment(), config::read_hostname());
  // Logging as configured before the key material is loaded (it may warn), when the variables are valid.
  if (loaded.errors.empty()) set_up_logging(loaded);
  CheckedConfig checked = check_configuration(std::move(loaded));
  if (!checked.errors.empty()) {
    report_errors(checked);
    return kExitBadConfig;
  }
  const config::Config& config = checked.loaded.config;
  log_authentication(config);
  if (!database_usable_or_reported(config.db)) return kExitBadConfig;
  const int status = run(config, std::move(checked.mesh_options), checked.gate.get(), termination);
  if (checked.gate) checked.gate->stop();
  return status;
}
