#include "db/procedure_runner.h"

#include <pqxx/except>

#include "db/connect_probe.h"
#include "db/sqlstate.h"

#include <spdlog/spdlog.h>

namespace queen::db {

FailureVerdict interpret_failure(const char* what, const std::exception& failure, const AttemptFacts& facts) {
  FailureVerdict v;
  if (const auto* broken = dynamic_cast<const pqxx::broken_connection*>(&failure)) {
    v.discard_connection = true;
    v.retry = facts.connection_reused && facts.first_attempt;
    v.error.emplace(what, broken->what(), "");
  } else if (const auto* server = dynamic_cast<const pqxx::sql_error*>(&failure)) {
    v.error.emplace(what, server->what(), server->sqlstate());
    if (reached_read_only_server(server->sqlstate())) {
      // Nothing was written (the statement failed), so a retry is safe.
      v.discard_connection = true;
      v.discard_idle_connections = true;
      v.retry = facts.first_attempt;
    } else {
      v.discard_connection = !facts.connection_open;
    }
  } else if (const auto* other = dynamic_cast<const pqxx::failure*>(&failure)) {
    v.discard_connection = true;
    v.error.emplace(what, other->what(), "");
  } else if (const auto* decoding = dynamic_cast<const DbError*>(&failure)) {
    v.error.emplace(what, decoding->what(), decoding->sqlstate());
  }
  // Only a lost connection tells readiness (and the spool) that the database
  // is failing; one request's timeout says nothing about the others.
  v.marks_unhealthy = v.error && !v.retry && enters_spool_mode(v.error->failure_class());
  return v;
}

namespace {
thread_local std::chrono::milliseconds current_statement_timeout{0};
}  // namespace

StatementTimeoutScope::StatementTimeoutScope(std::chrono::milliseconds timeout) noexcept
    : outer_(current_statement_timeout) {
  current_statement_timeout = timeout;
}

StatementTimeoutScope::~StatementTimeoutScope() { current_statement_timeout = outer_; }

std::chrono::milliseconds StatementTimeoutScope::current() noexcept { return current_statement_timeout; }

void ProcedureRunner::begin_bounded_call(pqxx::nontransaction& tx, std::chrono::milliseconds bound) {
  tx.exec("BEGIN; SET LOCAL statement_timeout = " + std::to_string(bound.count()));
}

void ProcedureRunner::commit_bounded_call(pqxx::nontransaction& tx) { tx.exec("COMMIT"); }

void ProcedureRunner::roll_back_bounded_call(ConnectionPool::Lease& lease) noexcept {
  try {
    if (!lease.connection().is_open()) {
      lease.discard();
      return;
    }
    pqxx::nontransaction tx(lease.connection());
    tx.exec("ROLLBACK");
  } catch (const std::exception& e) {
    spdlog::debug("db: a bounded call's transaction could not be rolled back ({}); its connection is closed",
                  e.what());
    lease.discard();
  }
}

ProcedureRunner::ProcedureRunner(const config::DbConfig& config, ConnectionPool::ConnectionSetup setup)
    : pool_(config, std::move(setup)),
      conninfo_(build_conninfo(config)),
      probe_timeout_(probe_timeout(config.connection_timeout_ms)) {}

ProcedureRunner::CallTimer::~CallTimer() {
  metrics::HistogramFamily* family = runner_.call_durations_.load(std::memory_order_relaxed);
  if (family == nullptr) return;
  try {
    family->observe(metrics::label_pair("procedure", what_),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
  } catch (...) {  // NOLINT(bugprone-empty-catch): a lost observation must not turn into a failed call
  }
}

ConnectionPool::Lease ProcedureRunner::acquire(const char* what) {
  try {
    return pool_.acquire();
  } catch (const DbError& e) {
    // No connection could be had (none free in time, or the database refused
    // one): the database is out of reach for every caller, whatever the cause.
    healthy_.store(false, std::memory_order_relaxed);
    std::string sqlstate = e.sqlstate();
    // libpq gives a server's refusal as text only; a probe learns its SQLSTATE
    // so readiness can tell a wrong password from an outage.
    if (sqlstate.empty() && server_refused_connection(e.what())) sqlstate = probe_connection(conninfo_, probe_timeout_).sqlstate;
    const std::optional<ConfigurationFault> fault = configuration_fault(sqlstate);
    if (fault && !fault_reported_.exchange(true)) {
      spdlog::error("db: the database refuses this broker: {} (SQLSTATE {}): fix {}; /health/ready answers 503 "
                    "until it accepts connections again",
                    fault->cause, sqlstate, fault->variable);
    }
    throw DbError::connection_failure(what, e.what(), std::move(sqlstate));
  }
}

void ProcedureRunner::settle_failure(const char* what, ConnectionPool::Lease& lease, const std::exception& failure,
                                     int attempt) {
  AttemptFacts facts;
  facts.connection_reused = lease.reused();
  facts.first_attempt = attempt == 1;
  facts.connection_open = lease.connection().is_open();
  FailureVerdict verdict = interpret_failure(what, failure, facts);
  if (!verdict.error) throw;  // not a database failure: the caller's bug or resource exhaustion
  if (verdict.discard_connection) lease.discard();
  if (verdict.discard_idle_connections) {
    const int closed = pool_.discard_idle();
    spdlog::warn("db: {}: the server cannot take writes (not the primary); closed {} idle connection(s), "
                 "new ones go to the primary",
                 what, closed + 1);
  }
  if (verdict.marks_unhealthy) healthy_.store(false, std::memory_order_relaxed);
  if (verdict.retry) {
    spdlog::debug("db: {}: stale pooled connection ({}), retrying on a new one", what, failure.what());
    return;
  }
  throw std::move(*verdict.error);
}

}  // namespace queen::db
