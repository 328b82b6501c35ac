#pragma once
// A bounded pool of libpq connections (internal to src/db).
// Lazy: connections are opened on demand up to `pool_size`; a caller that
// finds none free waits at most DB_CONNECTION_TIMEOUT and then gets a
// transient DbError. Connections that broke are discarded, never reused.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pqxx/connection>

#include "config/config.h"
#include "db/procedure_types.h"

namespace queen::db {

// libpq connection string: host/port lists, db/user/password, sslmode,
// connect_timeout, TCP keepalives, tcp_user_timeout and the session
// statement/lock timeouts through `options`. With target_session_attrs=
// read-write libpq tries the hosts in order and keeps the first one that takes
// writes, so every new connection finds the current primary by itself.
std::string build_conninfo(const config::DbConfig& config);

class ConnectionPool {
 public:
  // Runs on every new connection (e.g. to register prepared statements).
  using ConnectionSetup = std::function<void(pqxx::connection&)>;

  ConnectionPool(const config::DbConfig& config, ConnectionSetup setup);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // A connection lent to one caller; returned to the pool when destroyed.
  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<pqxx::connection> connection, bool reused)
        : pool_(pool), connection_(std::move(connection)), reused_(reused) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();

    pqxx::connection& connection() { return *connection_; }
    // True when the connection served an earlier caller (it may have gone
    // stale while idle, e.g. across a database restart).
    bool reused() const { return reused_; }
    // Drop the connection instead of returning it (it broke mid-call).
    void discard() { broken_ = true; }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<pqxx::connection> connection_;
    bool reused_;
    bool broken_ = false;
  };

  // Throws DbError("...", "") when no connection can be had in time.
  Lease acquire();

  PoolStats stats() const;

  // Closes every idle connection (they reached a server that can no longer
  // serve, e.g. a demoted primary); returns how many. Lent ones are dropped
  // when their callers see the same failure.
  int discard_idle();

 private:
  void give_back(std::unique_ptr<pqxx::connection> connection, bool broken);
  std::unique_ptr<pqxx::connection> open_connection();

  const std::string conninfo_;
  const int size_;
  const std::chrono::milliseconds acquire_timeout_;
  const ConnectionSetup setup_;

  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<pqxx::connection>> idle_;
  int open_ = 0;  // lent + idle + being opened
  int waiting_ = 0;
};

}  // namespace queen::db
