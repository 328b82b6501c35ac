#pragma once
// Typed calls of the timer procedures (sql/migrations/deploy/timers_*.sql,
// docs/timers-kv-jobs.md). Every call is one autocommit statement on a pooled
// connection, so claim and fire are separate transactions as the protocol
// requires. Failures throw DbError.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/procedures.h"

namespace pqxx {
class nontransaction;
}

namespace queen::db {

class ConnectionPool;

// Runs `body` on one pooled connection (autocommit statements) and turns
// libpqxx failures into DbError with their SQLSTATE ("" for the connection
// itself). A broken connection that had been idle in the pool is retried once
// on a fresh one, like Database::run. Shared by the timers, KV and jobs calls.
void run_pooled(ConnectionPool& pool, const char* what, const std::function<void(pqxx::nontransaction&)>& body);

class TimersDb {
 public:
  explicit TimersDb(ConnectionPool& pool) : pool_(pool) {}

  // queen.schedule_messages: items_json is a JSON array of push items that all
  // carry deliverAt. One row per item, the columns of push_messages:
  // status queued (scheduled) or duplicate; partition_id empty until the
  // partition exists.
  std::vector<PushRow> schedule_messages(const std::string& items_json, const std::optional<std::string>& producer_sub);

  // queen.claim_due_timers: ids of the timers claimed for server_id, in
  // delivery order (empty: nothing due).
  std::vector<std::int64_t> claim_due_timers(const std::string& server_id, int limit, int lease_ms);

  // queen.fire_timers: how many of `ids` completed (stored or already there).
  int fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids);

  // Milliseconds from now until queen.next_timer_due(), both by the database
  // clock (negative: already due); empty when there are no timers.
  std::optional<std::int64_t> ms_until_next_timer();

 private:
  ConnectionPool& pool_;
};

// "{1,2,3}": a PostgreSQL array literal of ids (passed as one bigint[] parameter).
std::string to_bigint_array_literal(const std::vector<std::int64_t>& ids);

}  // namespace queen::db
