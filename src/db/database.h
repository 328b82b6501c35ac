#pragma once
// Procedures implemented against PostgreSQL through the connection pool.
#include "config/config.h"
#include "db/procedure_runner.h"
#include "db/procedures.h"

namespace queen::db {

class Database final : public Procedures {
 public:
  explicit Database(const config::DbConfig& config);
  ~Database() override;

  // Every catalogue entry: its prepared statement on a pooled connection.
#define QUEEN_DATABASE_CALL(Id, ...)                                     \
  catalogue::Answer<catalogue::Id> call(catalogue::Id /*entry*/,         \
                                        const catalogue::Arguments<catalogue::Id>& arguments) override;
  QUEEN_CATALOGUE(QUEEN_DATABASE_CALL)
#undef QUEEN_DATABASE_CALL
  using Procedures::call;

  std::chrono::microseconds ping() override;
  PoolStats pool_stats() const override { return runner_.pool_stats(); }
  // The runner and its pool, shared with the background loops' calls
  // (timers, KV, jobs) so that DB_POOL_SIZE bounds every connection this
  // broker opens and their failures reach the same health flag.
  ProcedureRunner& runner() { return runner_; }
  bool healthy() const override { return runner_.healthy(); }

 private:
  ProcedureRunner runner_;
};

}  // namespace queen::db
