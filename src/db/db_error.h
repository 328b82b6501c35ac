#pragma once
// The one exception type the db module throws: a failed database call with
// its SQLSTATE ("" for connection-level failures) and its failure class.
#include <stdexcept>
#include <string>

#include "db/sqlstate.h"

namespace queen::db {

class DbError : public std::runtime_error {
 public:
  DbError(const std::string& message, std::string sqlstate)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}

  const std::string& sqlstate() const noexcept { return sqlstate_; }
  FailureClass failure_class() const noexcept { return classify_sqlstate(sqlstate_); }
  bool transient() const noexcept { return failure_class() == FailureClass::Transient; }

 private:
  std::string sqlstate_;
};

}  // namespace queen::db
