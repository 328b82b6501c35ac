#include "db/timer_wake_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/catalogue_calls.h"
#include "db/timers_db.h"  // to_bigint_array_literal

namespace queen::db {

std::vector<std::string> timer_queue_names(ProcedureRunner& runner, const std::vector<std::int64_t>& ids) {
  if (ids.empty()) return {};
  return catalogue::call_each<catalogue::TimerQueueNames>(runner, to_bigint_array_literal(ids));
}

}  // namespace queen::db
