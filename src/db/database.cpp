#include "db/database.h"

#include <pqxx/pqxx>

#include "db/catalogue_calls.h"

namespace queen::db {

using namespace catalogue;

Database::Database(const config::DbConfig& config) : runner_(config, register_statements) {}

Database::~Database() = default;

#define QUEEN_DATABASE_CALL(Id, ...)                                    \
  Answer<Id> Database::call(Id /*entry*/, const Arguments<Id>& arguments) { \
    return call_answer<Id>(runner_, arguments);                         \
  }
QUEEN_CATALOGUE(QUEEN_DATABASE_CALL)
#undef QUEEN_DATABASE_CALL

std::chrono::microseconds Database::ping() {
  const auto started = std::chrono::steady_clock::now();
  runner_.run("ping", [&](pqxx::nontransaction& tx) { return tx.exec_prepared(kPingStatement).size(); });
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
}

}  // namespace queen::db
