#pragma once
// The one exception type the db module throws: a failed database call with
// its SQLSTATE ("" when the failure carried none) and its failure class
// (db/sqlstate.h).
//
// what() is the full text (severity, DETAIL, HINT, CONTEXT lines ...): for
// the log only. client_message() is the primary message alone
// (db/error_text.h): the only database text that may reach a client.
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "db/error_text.h"
#include "db/sqlstate.h"

namespace queen::db {

class DbError : public std::runtime_error {
 public:
  // `message` as the server or libpq rendered it.
  DbError(const std::string& message, std::string sqlstate)
      : std::runtime_error(message),
        sqlstate_(std::move(sqlstate)),
        class_(classify_sqlstate(sqlstate_)),
        client_message_(primary_message(message)) {}
  // `context` (the call that failed) prefixes the logged text only.
  DbError(const std::string& context, const std::string& server_text, std::string sqlstate)
      : std::runtime_error(context + ": " + server_text),
        sqlstate_(std::move(sqlstate)),
        class_(classify_sqlstate(sqlstate_)),
        client_message_(primary_message(server_text)) {}

  // No connection could be had: ConnectionLost whatever the SQLSTATE says
  // (28P01 on connecting is no reason to give up a spooled event), which
  // stays readable for readiness (configuration_fault).
  static DbError connection_failure(const std::string& context, const std::string& text, std::string sqlstate) {
    DbError e(context, text, std::move(sqlstate));
    e.class_ = FailureClass::ConnectionLost;
    return e;
  }

  const std::string& sqlstate() const noexcept { return sqlstate_; }
  FailureClass failure_class() const noexcept { return class_; }
  // Worth retrying later with the same bytes (ConnectionLost or Transient).
  bool transient() const noexcept { return retry_later(class_); }
  // The database is out of reach for every request (spool mode).
  bool connection_lost() const noexcept { return class_ == FailureClass::ConnectionLost; }
  const std::string& client_message() const noexcept { return client_message_; }

 private:
  std::string sqlstate_;
  FailureClass class_;
  std::string client_message_;
};

// Whether a captured failure is a DbError worth retrying later (anything
// else is not): a combined call that failed so is not retried per request.
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
