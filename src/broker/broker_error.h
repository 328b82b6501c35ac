#pragma once
// How a use case fails, in terms the transport maps to a status code:
// BadRequest -> 400, Unavailable -> 503, Internal -> 500, TooManyRequests ->
// 429 with a Retry-After of retry_after_s() seconds (a tenant quota).
#include <stdexcept>
#include <string>

#include "db/db_error.h"

namespace queen::metrics {
class Metrics;
}

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

// Retry-After of a request that failed transiently on its own (a statement
// or lock timeout, a serialization failure): the next attempt may well pass.
inline constexpr int kRequestTransientRetryAfterS = 1;

// Retry-After of a request refused past a storage quota (the database's
// db::kStorageQuotaExceeded, or the dead-letter quota of TenantQuotas): such a
// quota frees only when the tenant deletes something, so retrying soon is futile.
inline constexpr int kStorageQuotaRetryAfterS = 60;

// The one mapping of a database failure to a BrokerError (logged here):
// - a storage-quota refusal (db::kStorageQuotaExceeded) -> TooManyRequests
//   with the database's message and kStorageQuotaRetryAfterS;
// - connection lost -> Unavailable "database unavailable";
// - a request-transient failure (db::FailureClass::Transient) -> Unavailable
//   naming it (db::transient_failure_text) with kRequestTransientRetryAfterS;
//   (both Internal when !transient_is_unavailable);
// - a bad request (db::is_bad_request: SQLSTATE class 22) -> BadRequest;
// - anything else -> Internal.
// Clients see the primary message alone (db/error_text.h), the log the full text.
BrokerError broker_error_of(const db::DbError& error, bool transient_is_unavailable = true);

// Throws broker_error_of(error), counting a database failure (not a quota
// refusal) in `metrics`.
[[noreturn]] void rethrow_db_failure(const db::DbError& error, metrics::Metrics& metrics,
                                     bool transient_is_unavailable = true);

// call()'s result; a db::DbError it throws leaves through rethrow_db_failure
// (any other exception, a LaneRefused or a ReadTimedOut, leaves as thrown).
template <typename Call>
auto translating_db_failures(metrics::Metrics& metrics, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const db::DbError& e) {
    rethrow_db_failure(e, metrics);
  }
}

// The same without counting the failure (the KV and consumer-group use
// cases keep no metrics).
template <typename Call>
auto translating_db_failures(Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const db::DbError& e) {
    throw broker_error_of(e);
  }
}

}  // namespace queen::broker
