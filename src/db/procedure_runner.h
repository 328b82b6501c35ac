#pragma once
// The one runner of every procedure call in src/db: it lends a pooled
// connection to one autocommit statement, interprets what went wrong, and
// keeps the database health flag that readiness reads. Database, TimersDb,
// KvDb, JobsDb and timer_queue_names all call through it, so every call
// retries, discards connections, names its failures and marks health the
// same way.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <pqxx/nontransaction>

#include "config/config.h"
#include "db/connection_pool.h"
#include "db/db_error.h"
#include "metrics/histogram.h"

namespace queen::db {

// Facts about the attempt that failed, besides the exception.
struct AttemptFacts {
  bool connection_reused = false;  // the connection had been idle in the pool
  bool first_attempt = true;
  bool connection_open = true;  // the connection still looks usable after the failure
};

// What a failed attempt means. Pure: decided from the exception and the facts.
struct FailureVerdict {
  std::optional<DbError> error;     // what the caller gets; empty: not a database failure, rethrow as is
  bool retry = false;               // try once more on another connection
  bool discard_connection = false;  // do not give the connection back to the pool
  bool discard_idle_connections = false;  // close the pool's idle connections too (same server, same fate)
  bool marks_unhealthy = false;     // the connection is lost (readiness should hear that the database is failing)
};

// The one interpretation of a failure thrown while `what` (the operation, e.g.
// "pop_messages") ran on a pooled connection:
// - broken connection: discarded; retried once when the connection had been
//   idle in the pool (it may have died meanwhile, e.g. a database restart),
//   otherwise a ConnectionLost DbError that marks the database unhealthy;
// - server error: a DbError with its SQLSTATE; unhealthy only when its class
//   is ConnectionLost (08, 57P01-57P05: a statement or lock timeout is the
//   request's own failure); the connection is discarded only when it closed;
// - read-only server (25006, e.g. after a failover the pool still holds
//   connections to the demoted primary): this connection and every idle one
//   are discarded and the call is retried once on a new connection, which
//   target_session_attrs=read-write opens on the current primary;
// - any other libpqxx failure (in doubt, protocol violation ...): the
//   connection is not trusted; a ConnectionLost DbError, unhealthy;
// - a DbError from decoding the result: named after `what`, SQLSTATE kept;
// - anything else: not interpreted (error empty).
FailureVerdict interpret_failure(const char* what, const std::exception& failure, const AttemptFacts& facts);

// A statement timeout of its own for every procedure call this thread makes
// while the scope lives (the reads' QUEEN_READ_STATEMENT_TIMEOUT_MS,
// docs/flow-control.md): the runner runs such a call in a transaction that
// opens with SET LOCAL statement_timeout, so the bound ends with the call,
// never leaks to the pooled connection's next user, and holds through
// PgBouncer in transaction mode. A call past it fails with SQLSTATE 57014
// like any statement timeout; the caller that set the scope tells them apart.
// Zero: no bound of its own (the session's DB_STATEMENT_TIMEOUT applies).
class StatementTimeoutScope {
 public:
  explicit StatementTimeoutScope(std::chrono::milliseconds timeout) noexcept;
  ~StatementTimeoutScope();
  StatementTimeoutScope(const StatementTimeoutScope&) = delete;
  StatementTimeoutScope& operator=(const StatementTimeoutScope&) = delete;

  // The bound of the innermost live scope on this thread (zero: none).
  static std::chrono::milliseconds current() noexcept;

 private:
  std::chrono::milliseconds outer_;
};

class ProcedureRunner {
 public:
  // Owns the pool; `setup` runs on every new connection.
  ProcedureRunner(const config::DbConfig& config, ConnectionPool::ConnectionSetup setup);
  ProcedureRunner(const ProcedureRunner&) = delete;
  ProcedureRunner& operator=(const ProcedureRunner&) = delete;

  // Runs body(nontransaction&) on a pooled connection and returns its value.
  // Every failure leaves as a DbError naming `what` (see interpret_failure);
  // no connection to be had is a DbError::connection_failure (its SQLSTATE,
  // when the server refused the connection, is probed: 28P01, 3D000 ...).
  // Under a StatementTimeoutScope the body runs inside BEGIN ... COMMIT.
  template <typename Body>
  auto run(const char* what, Body&& body) {
    const std::chrono::milliseconds bound = StatementTimeoutScope::current();
    for (int attempt = 1;; ++attempt) {
      ConnectionPool::Lease lease = acquire(what);
      const CallTimer timer(*this, what);
      try {
        pqxx::nontransaction tx(lease.connection());
        if (bound.count() > 0) begin_bounded_call(tx, bound);
        auto result = body(tx);
        if (bound.count() > 0) commit_bounded_call(tx);
        healthy_.store(true, std::memory_order_relaxed);
        fault_reported_.store(false, std::memory_order_relaxed);
        return result;
      } catch (const std::exception& failure) {
        if (bound.count() > 0) roll_back_bounded_call(lease);
        settle_failure(what, lease, failure, attempt);  // returns only to retry
      }
    }
  }

  // False after a failure that says the database is unreachable (class
  // ConnectionLost), true again after the next successful call. Optimistic until
  // the first call says otherwise; readiness pings anyway.
  bool healthy() const { return healthy_.load(std::memory_order_relaxed); }
  PoolStats pool_stats() const { return pool_.stats(); }
  // From now on, the seconds each attempt spends on its connection (failed ones too) go to `family`,
  // labelled procedure=`what` (queen_db_call_duration_seconds; `what` is one of the catalogue's names).
  // `family` must outlive the runner; null stops the timing.
  void time_calls_into(metrics::HistogramFamily* family) { call_durations_.store(family); }

 private:
  // Observes one attempt's time on its connection when it ends, however it ends.
  class CallTimer {
   public:
    CallTimer(ProcedureRunner& runner, const char* what)
        : runner_(runner), what_(what), started_(std::chrono::steady_clock::now()) {}
    ~CallTimer();
    CallTimer(const CallTimer&) = delete;
    CallTimer& operator=(const CallTimer&) = delete;

   private:
    ProcedureRunner& runner_;
    const char* what_;
    const std::chrono::steady_clock::time_point started_;
  };

  ConnectionPool::Lease acquire(const char* what);
  // The transaction of a call under a StatementTimeoutScope: opened with the
  // bound (one round trip), committed, or rolled back after a failure (a
  // connection that cannot roll back is discarded, never pooled mid-transaction).
  static void begin_bounded_call(pqxx::nontransaction& tx, std::chrono::milliseconds bound);
  static void commit_bounded_call(pqxx::nontransaction& tx);
  static void roll_back_bounded_call(ConnectionPool::Lease& lease) noexcept;
  // Called from the handler of `failure`: applies the verdict, then throws
  // (the DbError, or `failure` itself when it is not a database failure)
  // unless the call is to be retried.
  void settle_failure(const char* what, ConnectionPool::Lease& lease, const std::exception& failure, int attempt);

  ConnectionPool pool_;
  const std::string conninfo_;  // for the probe that names a refused connection's SQLSTATE
  const std::chrono::milliseconds probe_timeout_;
  std::atomic<bool> healthy_{true};
  std::atomic<bool> fault_reported_{false};  // a configuration fault was logged since the last success
  std::atomic<metrics::HistogramFamily*> call_durations_{nullptr};
};

}  // namespace queen::db
