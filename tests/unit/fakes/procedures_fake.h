#pragma once
// A complete db::Procedures for unit tests: every catalogue entry answers as
// a database with nothing in it would (no rows, a null scalar: no such queue
// or message, flags off), and counts itself. The answers are generated from
// QUEEN_CATALOGUE, so a new entry needs no line here. A test derives from it
// and overrides call(Id, arguments) for the entries its case is about (the
// named calls of db::Procedures are written over them).
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "db/procedures.h"

namespace queen::testing {

class ProceduresFake : public db::Procedures {
 public:
  // How often each procedure was called, by its SQL name ("ping" too).
  int calls_of(const std::string& procedure) const {
    const std::lock_guard<std::mutex> lock(calls_mutex_);
    const auto it = calls_.find(procedure);
    return it == calls_.end() ? 0 : it->second;
  }

#define QUEEN_FAKE_CALL(Id, ...)                                                            \
  db::catalogue::Answer<db::catalogue::Id> call(                                            \
      db::catalogue::Id /*entry*/, const db::catalogue::Arguments<db::catalogue::Id>& /*arguments*/) override { \
    count(db::catalogue::Id::function);                                                     \
    return {};                                                                              \
  }
  QUEEN_CATALOGUE(QUEEN_FAKE_CALL)
#undef QUEEN_FAKE_CALL
  using db::Procedures::call;

  std::chrono::microseconds ping() override {
    count("ping");
    return std::chrono::microseconds(0);
  }
  db::PoolStats pool_stats() const override { return {}; }
  bool healthy() const override { return true; }

 protected:
  void count(const std::string& procedure) {
    const std::lock_guard<std::mutex> lock(calls_mutex_);
    ++calls_[procedure];
  }

 private:
  mutable std::mutex calls_mutex_;
  std::map<std::string, int> calls_;
};

}  // namespace queen::testing
