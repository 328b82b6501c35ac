#include "db/timer_wake_db.h"

#include <pqxx/pqxx>

#include "db/timers_db.h"  // run_pooled, to_bigint_array_literal

namespace queen::db {

std::vector<std::string> timer_queue_names(ConnectionPool& pool, const std::vector<std::int64_t>& ids) {
  std::vector<std::string> names;
  if (ids.empty()) return names;
  run_pooled(pool, "timer_queue_names", [&](pqxx::nontransaction& tx) {
    const pqxx::result r =
        tx.exec_params("SELECT queen.timer_queue_names($1::bigint[])", to_bigint_array_literal(ids));
    names.reserve(r.size());
    for (const auto& row : r) {
      if (!row[0].is_null()) names.emplace_back(row[0].c_str(), row[0].size());
    }
  });
  return names;
}

}  // namespace queen::db
