#pragma once
// Typed calls of the timer procedures (sql/queen/claim_due_timers.sql, fire_timers.sql,
// docs/timers-kv-jobs.md). Every call is one autocommit statement on a pooled
// connection, so claim and fire are separate transactions as the protocol
// requires. Failures throw DbError.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace queen::db {

class ProcedureRunner;

class TimersDb {
 public:
  explicit TimersDb(ProcedureRunner& runner) : runner_(runner) {}

  // queen.claim_due_timers: ids of the timers claimed for server_id, in
  // delivery order (empty: nothing due).
  std::vector<std::int64_t> claim_due_timers(const std::string& server_id, int limit, int lease_ms);

  // queen.fire_timers: how many of `ids` completed (stored or already there).
  int fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids);

  // Milliseconds from now until queen.next_timer_due(), both by the database
  // clock (negative: already due); empty when there are no timers.
  std::optional<std::int64_t> ms_until_next_timer();

 private:
  ProcedureRunner& runner_;
};

// "{1,2,3}": a PostgreSQL array literal of ids (passed as one bigint[] parameter).
std::string to_bigint_array_literal(const std::vector<std::int64_t>& ids);

}  // namespace queen::db
