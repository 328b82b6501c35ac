#include "db/connection_pool.h"

#include <algorithm>

#include <pqxx/except>

#include "config/db_hosts.h"
#include "db/db_error.h"
#include "util/assert.h"

namespace queen::db {
namespace {

// Quotes a libpq keyword value: single quotes, backslash-escaped.
std::string quote_value(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

}  // namespace

std::string build_conninfo(const config::DbConfig& c) {
  // libpq's connect_timeout is whole seconds and values below 2 are raised to 2.
  const int connect_timeout_s = std::max(2, (c.connection_timeout_ms + 999) / 1000);
  const char* sslmode = !c.use_ssl ? "disable" : (c.ssl_reject_unauthorized ? "verify-full" : "require");
  std::string info;
  info += "host=" + quote_value(config::join_list(c.hosts));
  info += " port=" + quote_value(config::join_list(c.ports));
  info += " target_session_attrs=read-write";
  info += " dbname=" + quote_value(c.name);
  info += " user=" + quote_value(c.user);
  if (!c.password.empty()) info += " password=" + quote_value(c.password);
  info += " sslmode=" + std::string(sslmode);
  info += " connect_timeout=" + std::to_string(connect_timeout_s);
  info += " keepalives=1";
  info += " keepalives_idle=" + std::to_string(c.keepalives_idle_s);
  info += " keepalives_interval=" + std::to_string(c.keepalives_interval_s);
  info += " keepalives_count=" + std::to_string(c.keepalives_count);
  info += " tcp_user_timeout=" + std::to_string(c.tcp_user_timeout_ms);
  info += " application_name=queen-broker";
  // jit=off: JIT code is compiled per execution, never cached with a plan, and a statement whose estimate grows
  // with the tables (100,000 partitions) paid 40-4,000 ms of compiling per pop (docs/procedures.md, plans).
  std::string options = "-c statement_timeout=" + std::to_string(c.statement_timeout_ms) +
                        " -c lock_timeout=" + std::to_string(c.lock_timeout_ms) + " -c TimeZone=UTC -c jit=off";
  for (const auto& [name, value] : c.session_settings) options += " -c " + name + "=" + value;
  info += " options=" + quote_value(options);
  return info;
}

ConnectionPool::ConnectionPool(const config::DbConfig& config, ConnectionSetup setup)
    : conninfo_(build_conninfo(config)),
      size_(config.pool_size),
      acquire_timeout_(config.connection_timeout_ms),
      setup_(std::move(setup)) {}

ConnectionPool::Lease::~Lease() {
  if (pool_ && connection_) pool_->give_back(std::move(connection_), broken_);
}

ConnectionPool::Lease ConnectionPool::acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + acquire_timeout_;
  for (;;) {
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection), true);
    }
    if (open_ < size_) {
      ++open_;
      lock.unlock();
      try {
        return Lease(this, open_connection(), false);
      } catch (...) {
        lock.lock();
        --open_;
        available_.notify_one();
        throw;
      }
    }
    ++waiting_;
    const bool signalled = available_.wait_until(lock, deadline, [&] { return !idle_.empty() || open_ < size_; });
    --waiting_;
    if (!signalled) {
      throw DbError("timed out after " + std::to_string(acquire_timeout_.count()) +
                        " ms waiting for a database connection (pool of " + std::to_string(size_) + ")",
                    "");
    }
  }
}

std::unique_ptr<pqxx::connection> ConnectionPool::open_connection() {
  try {
    auto connection = std::make_unique<pqxx::connection>(conninfo_);
    if (setup_) setup_(*connection);
    return connection;
  } catch (const pqxx::sql_error& e) {
    throw DbError(e.what(), e.sqlstate());
  } catch (const std::exception& e) {
    throw DbError(std::string("cannot connect to the database: ") + e.what(), "");
  }
}

void ConnectionPool::give_back(std::unique_ptr<pqxx::connection> connection, bool broken) {
  const bool reusable = !broken && connection->is_open();
  std::unique_ptr<pqxx::connection> to_close;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    QUEEN_ASSERT(open_ > static_cast<int>(idle_.size()), "a lent connection counts as open");
    if (reusable) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;
      to_close = std::move(connection);
    }
  }
  available_.notify_one();
  // to_close is destroyed (socket closed) outside the lock.
}

int ConnectionPool::discard_idle() {
  std::vector<std::unique_ptr<pqxx::connection>> to_close;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    to_close.swap(idle_);
    open_ -= static_cast<int>(to_close.size());
  }
  available_.notify_all();
  return static_cast<int>(to_close.size());  // sockets closed outside the lock
}

PoolStats ConnectionPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  PoolStats s;
  s.size = size_;
  s.open = open_;
  s.idle = static_cast<int>(idle_.size());
  s.in_use = open_ - s.idle;
  s.waiting = waiting_;
  return s;
}

}  // namespace queen::db
