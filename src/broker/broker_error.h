#pragma once
// How a use case fails, in terms the transport maps to a status code:
// BadRequest -> 400, Unavailable -> 503, Internal -> 500.
#include <stdexcept>
#include <string>

namespace queen::broker {

enum class ErrorKind { BadRequest, Unavailable, Internal };

class BrokerError : public std::runtime_error {
 public:
  BrokerError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// The message every client sees while PostgreSQL is unreachable.
inline constexpr const char* kDatabaseUnavailable = "database unavailable";

}  // namespace queen::broker
