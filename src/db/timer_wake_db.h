#pragma once
// queen.timer_queue_names: which queues a batch of claimed timers will fire
// into, so the broker can wake the long polls parked on exactly those queues
// (sql/queen/timer_queue_names.sql). Failures throw DbError.
#include <cstdint>
#include <string>
#include <vector>

namespace queen::db {

class ProcedureRunner;

// Distinct queue names of the timers `ids` (unknown ids are ignored).
std::vector<std::string> timer_queue_names(ProcedureRunner& runner, const std::vector<std::int64_t>& ids);

}  // namespace queen::db
