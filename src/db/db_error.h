#pragma once
// The one exception type the db module throws: a failed database call with
// its SQLSTATE ("" for connection-level failures) and its failure class.
//
// what() is the full text (severity, DETAIL, HINT, CONTEXT lines ...): for
// the log only. client_message() is the primary message alone
// (db/error_text.h): the only database text that may reach a client.
#include <exception>
#include <stdexcept>
#include <string>

#include "db/error_text.h"
#include "db/sqlstate.h"

namespace queen::db {

class DbError : public std::runtime_error {
 public:
  // `message` as the server or libpq rendered it.
  DbError(const std::string& message, std::string sqlstate)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)), client_message_(primary_message(message)) {}
  // `context` (the call that failed) prefixes the logged text only.
  DbError(const std::string& context, const std::string& server_text, std::string sqlstate)
      : std::runtime_error(context + ": " + server_text),
        sqlstate_(std::move(sqlstate)),
        client_message_(primary_message(server_text)) {}

  const std::string& sqlstate() const noexcept { return sqlstate_; }
  FailureClass failure_class() const noexcept { return classify_sqlstate(sqlstate_); }
  bool transient() const noexcept { return failure_class() == FailureClass::Transient; }
  const std::string& client_message() const noexcept { return client_message_; }

 private:
  std::string sqlstate_;
  std::string client_message_;
};

// Whether a captured failure is a transient DbError (anything else is not).
inline bool is_transient_failure(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const DbError& e) {
    return e.transient();
  } catch (...) {
    return false;
  }
}

}  // namespace queen::db
