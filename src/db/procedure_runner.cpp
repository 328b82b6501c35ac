#include "db/procedure_runner.h"

#include <pqxx/except>

#include "db/sqlstate.h"

#include <spdlog/spdlog.h>

namespace queen::db {

FailureVerdict interpret_failure(const char* what, const std::exception& failure, const AttemptFacts& facts) {
  FailureVerdict v;
  if (const auto* broken = dynamic_cast<const pqxx::broken_connection*>(&failure)) {
    v.discard_connection = true;
    v.retry = facts.connection_reused && facts.first_attempt;
    v.marks_unhealthy = !v.retry;
    v.error.emplace(what, broken->what(), "");
  } else if (const auto* server = dynamic_cast<const pqxx::sql_error*>(&failure)) {
    v.error.emplace(what, server->what(), server->sqlstate());
    if (reached_read_only_server(server->sqlstate())) {
      // Nothing was written (the statement failed), so a retry is safe.
      v.discard_connection = true;
      v.discard_idle_connections = true;
      v.retry = facts.first_attempt;
      v.marks_unhealthy = !v.retry;
    } else {
      v.discard_connection = !facts.connection_open;
      v.marks_unhealthy = v.error->transient();
    }
  } else if (const auto* other = dynamic_cast<const pqxx::failure*>(&failure)) {
    v.discard_connection = true;
    v.marks_unhealthy = true;
    v.error.emplace(what, other->what(), "");
  } else if (const auto* decoding = dynamic_cast<const DbError*>(&failure)) {
    v.error.emplace(what, decoding->what(), decoding->sqlstate());
    v.marks_unhealthy = v.error->transient();
  }
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
    : pool_(config, std::move(setup)) {}

ConnectionPool::Lease ProcedureRunner::acquire(const char* what) {
  try {
    return pool_.acquire();
  } catch (const DbError& e) {
    // No connection could be had (none free in time, or the database refused one).
    healthy_.store(false, std::memory_order_relaxed);
    throw DbError(what, e.what(), e.sqlstate());
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
