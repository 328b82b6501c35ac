#include "db/boot_check.h"

#include <chrono>

#include <pqxx/connection>
#include <pqxx/except>
#include <pqxx/nontransaction>

#include "config/db_hosts.h"
#include "config/version.h"
#include "db/connect_probe.h"
#include "db/connection_pool.h"
#include "db/sqlstate.h"
#include "db/catalogue.h"
#include "db/catalogue_calls.h"

namespace queen::db {
namespace {

// The statements without which no push, pop or ack can be served.
constexpr const char* kRequestPath[] = {
    catalogue::PushWithDedup::statement,  catalogue::PopMessages::statement,   catalogue::AckMessages::statement,
    catalogue::PopMany::statement,       catalogue::AckMany::statement,       catalogue::GetSystemFlag::statement,
    catalogue::SetSystemFlag::statement, catalogue::ConfigureQueue::statement, catalogue::ExtendLease::statement,
    catalogue::RunTransaction::statement,
};


std::string target(const config::DbConfig& c) {
  return "PG_DB=" + c.name + " as PG_USER=" + c.user + " on " + config::join_list(c.hosts) + ":" +
         config::join_list(c.ports);
}

// The first line of libpq's or the server's text, without its trailing newline.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

BootCheck misconfigured(const config::DbConfig& c, const ConfigurationFault& fault, const std::string& sqlstate,
                        const std::string& server_text) {
  BootCheck check;
  check.outcome = BootCheck::Outcome::Misconfigured;
  check.detail = std::string(fault.cause) + " (SQLSTATE " + sqlstate + ") for " + target(c) + ": fix " +
                 fault.variable + " [" + first_line(server_text) + "]";
  return check;
}

BootCheck schema_too_old(const config::DbConfig& c, const std::string& deployed) {
  BootCheck check;
  check.outcome = BootCheck::Outcome::Misconfigured;
  check.detail = "the queen schema in " + target(c) + " is release " + deployed + ", older than the " +
                 std::string(config::kMinimumSchemaVersion) + " this broker (" +
                 std::string(config::broker_version()) +
                 ") needs: deploy the migrations first (sqitch deploy), then start the brokers";
  return check;
}

// The deployed release, or "before 1.0.0" when queen.schema_version() does not exist yet.
std::string deployed_schema_version(pqxx::connection& connection) {
  try {
    pqxx::nontransaction tx(connection);
    return catalogue::first<catalogue::SchemaVersion>(tx).value_or("");
  } catch (const pqxx::sql_error& e) {
    if (e.sqlstate() == "42883") return "before 1.0.0 (no queen.schema_version())";
    throw;
  }
}

}  // namespace

BootCheck check_database_at_boot(const config::DbConfig& c) {
  const std::string conninfo = build_conninfo(c);
  const ConnectProbe probe = probe_connection(conninfo, probe_timeout(c.connection_timeout_ms));
  if (!probe.connected) {
    if (const std::optional<ConfigurationFault> fault = configuration_fault(probe.sqlstate)) {
      return misconfigured(c, *fault, probe.sqlstate, probe.message);
    }
    BootCheck check;
    check.outcome = BootCheck::Outcome::Unreachable;
    check.detail = "cannot reach " + target(c) + ": " + first_line(probe.message);
    return check;
  }
  try {
    pqxx::connection connection(conninfo);
    register_statements(connection);
    // The version first: against an older schema, preparing the request path would fail on a missing
    // function and hide the one line that says what to do.
    const std::string deployed = deployed_schema_version(connection);
    if (!config::version_at_least(deployed, config::kMinimumSchemaVersion)) return schema_too_old(c, deployed);
    for (const char* name : kRequestPath) connection.prepare_now(name);
  } catch (const pqxx::sql_error& e) {
    if (const std::optional<ConfigurationFault> fault = configuration_fault(e.sqlstate())) {
      return misconfigured(c, *fault, e.sqlstate(), e.what());
    }
    BootCheck check;
    check.outcome = BootCheck::Outcome::Unreachable;  // e.g. a shutdown between probe and check
    check.detail = "checking the schema of " + target(c) + " failed: " + first_line(e.what());
    return check;
  } catch (const std::exception& e) {
    BootCheck check;
    check.outcome = BootCheck::Outcome::Unreachable;
    check.detail = "cannot reach " + target(c) + ": " + first_line(e.what());
    return check;
  }
  return {};
}

}  // namespace queen::db
