#include "db/timers_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/statements.h"

namespace queen::db {

using namespace statement;

std::string to_bigint_array_literal(const std::vector<std::int64_t>& ids) {
  std::string out = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(ids[i]);
  }
  out += '}';
  return out;
}

std::vector<std::int64_t> TimersDb::claim_due_timers(const std::string& server_id, int limit, int lease_ms) {
  return runner_.run("claim_due_timers", [&](pqxx::nontransaction& tx) {
    return column_values<std::int64_t>(tx.exec_prepared(kClaimDueTimers, server_id, limit, lease_ms), "id");
  });
}

int TimersDb::fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) {
  if (ids.empty()) return 0;
  return runner_.run("fire_timers", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kFireTimers, server_id, to_bigint_array_literal(ids)), "fired")
        .value_or(0);
  });
}

std::optional<std::int64_t> TimersDb::ms_until_next_timer() {
  return runner_.run("next_timer_due", [&](pqxx::nontransaction& tx) {
    return first_value<std::int64_t>(tx.exec_prepared(kMsUntilNextTimer), "ms_until_due");
  });
}

}  // namespace queen::db
