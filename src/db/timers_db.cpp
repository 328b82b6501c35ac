#include "db/timers_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/catalogue_calls.h"

namespace queen::db {

using namespace catalogue;

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
  return catalogue::call_each<catalogue::ClaimDueTimers>(runner_, server_id, limit, lease_ms);
}

int TimersDb::fire_timers(const std::string& server_id, const std::vector<std::int64_t>& ids) {
  if (ids.empty()) return 0;
  return call_first<FireTimers>(runner_, server_id, to_bigint_array_literal(ids)).value_or(0);
}

std::optional<std::int64_t> TimersDb::ms_until_next_timer() {
  return call_first<NextTimerDue>(runner_);
}

}  // namespace queen::db
