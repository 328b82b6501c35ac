#include "db/timers_db.h"

#include <pqxx/pqxx>

#include <spdlog/spdlog.h>

#include "db/connection_pool.h"
#include "db/db_error.h"
#include "db/row_decode.h"

namespace queen::db {

void run_pooled(ConnectionPool& pool, const char* what, const std::function<void(pqxx::nontransaction&)>& body) {
  for (int attempt = 0;; ++attempt) {
    auto lease = pool.acquire();  // throws a transient DbError when none is free in time
    try {
      pqxx::nontransaction tx(lease.connection());
      body(tx);
      return;
    } catch (const pqxx::broken_connection& e) {
      lease.discard();
      if (lease.reused() && attempt == 0) {
        spdlog::debug("db: {}: stale pooled connection ({}), retrying on a new one", what, e.what());
        continue;
      }
      throw DbError(what, e.what(), "");
    } catch (const pqxx::sql_error& e) {
      if (!lease.connection().is_open()) lease.discard();
      throw DbError(what, e.what(), e.sqlstate());
    } catch (const pqxx::failure& e) {
      // in_doubt_error, protocol violations ...: do not trust the connection.
      lease.discard();
      throw DbError(what, e.what(), "");
    }
  }
}

std::string to_bigint_array_literal(const std::vector<std::int64_t>& ids) {
  std::string out = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(ids[i]);
  }
  out += '}';
  return out;
}

std::vector<PushRow> TimersDb::schedule_messages(const std::string& items_json,
                                                 const std::optional<std::string>& producer_sub) {
  std::vector<PushRow> rows;
  run_pooled(pool_, "schedule_messages", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_params(
        "SELECT idx, status, message_id::text, transaction_id, partition_id::text, queue_name, partition_name, error "
        "FROM queen.schedule_messages($1::jsonb, $2::text)",
        items_json, producer_sub);
    rows.reserve(r.size());
    for (const auto& row : r) rows.push_back(push_row_of(row));
  });
  return rows;
}

std::vector<std::int64_t> TimersDb::claim_due_timers(const std::string& server_id, int limit, int lease_ms) {
  std::vector<std::int64_t> ids;
  run_pooled(pool_, "claim_due_timers", [&](pqxx::nontransaction& tx) {
    const pqxx::result r =
        tx.exec_params("SELECT id FROM queen.claim_due_timers($1::text, $2::int, $3::int) AS id", server_id, limit,
                       lease_ms);
    ids.reserve(r.size());
    for (const auto& row : r) ids.push_back(row[0].as<std::int64_t>());
  });
  return ids;
}

int TimersDb::fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) {
  if (ids.empty()) return 0;
  int fired = 0;
  run_pooled(pool_, "fire_timers", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_params("SELECT queen.fire_timers($1::text, $2::bigint[])", server_id,
                                          to_bigint_array_literal(ids));
    fired = r.empty() || r[0][0].is_null() ? 0 : r[0][0].as<int>();
  });
  return fired;
}

std::optional<std::int64_t> TimersDb::ms_until_next_timer() {
  std::optional<std::int64_t> ms;
  run_pooled(pool_, "next_timer_due", [&](pqxx::nontransaction& tx) {
    // Both instants from the database clock, so broker clock skew cannot shift timers.
    const pqxx::result r =
        tx.exec("SELECT floor(extract(epoch FROM (queen.next_timer_due() - clock_timestamp())) * 1000)::int8");
    if (!r.empty() && !r[0][0].is_null()) ms = r[0][0].as<std::int64_t>();
  });
  return ms;
}

}  // namespace queen::db
