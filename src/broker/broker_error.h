#pragma once
// How a use case fails, in terms the transport maps to a status code:
// BadRequest -> 400, Unavailable -> 503, Internal -> 500, TooManyRequests ->
// 429 with a Retry-After of retry_after_s() seconds (a tenant quota).
#include <stdexcept>
#include <string>

namespace queen::broker {

enum class ErrorKind { BadRequest, Unavailable, Internal, TooManyRequests };

class BrokerError : public std::runtime_error {
 public:
  BrokerError(ErrorKind kind, const std::string& message, int retry_after_s = 0)
      : std::runtime_error(message), kind_(kind), retry_after_s_(retry_after_s) {}
  ErrorKind kind() const noexcept { return kind_; }
  int retry_after_s() const noexcept { return retry_after_s_; }  // 0: no Retry-After

 private:
  ErrorKind kind_;
  int retry_after_s_;
};

// The message every client sees while PostgreSQL is unreachable.
inline constexpr const char* kDatabaseUnavailable = "database unavailable";

}  // namespace queen::broker
