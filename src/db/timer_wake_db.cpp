#include "db/timer_wake_db.h"

#include <pqxx/pqxx>

#include "db/procedure_runner.h"
#include "db/row_decode.h"
#include "db/statements.h"
#include "db/timers_db.h"  // to_bigint_array_literal

namespace queen::db {

std::vector<std::string> timer_queue_names(ProcedureRunner& runner, const std::vector<std::int64_t>& ids) {
  if (ids.empty()) return {};
  return runner.run("timer_queue_names", [&](pqxx::nontransaction& tx) {
    return column_values<std::string>(
        tx.exec_prepared(statement::kTimerQueueNames, to_bigint_array_literal(ids)), "queue_name");
  });
}

}  // namespace queen::db
