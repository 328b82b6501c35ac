#include "broker/broker_error.h"

#include <spdlog/spdlog.h>

#include "db/sqlstate.h"
#include "metrics/metrics.h"

namespace queen::broker {

BrokerError broker_error_of(const db::DbError& e, bool transient_is_unavailable) {
  const ErrorKind unavailable = transient_is_unavailable ? ErrorKind::Unavailable : ErrorKind::Internal;
  if (e.sqlstate() == db::kStorageQuotaExceeded) {
    // The tenant's refusal, not a database failure.
    spdlog::info("quotas: refused by the database: {}", e.client_message());
    return BrokerError(ErrorKind::TooManyRequests, e.client_message(), kStorageQuotaRetryAfterS);
  }
  if (e.connection_lost()) {
    spdlog::warn("db: database unavailable: {}", e.what());
    return BrokerError(unavailable, kDatabaseUnavailable);
  }
  if (e.transient()) {
    const char* text = db::transient_failure_text(e.sqlstate());
    spdlog::warn("db: request failed transiently ({}): {}", e.sqlstate(), e.what());
    return BrokerError(unavailable, text != nullptr ? text : kDatabaseUnavailable,
                       transient_is_unavailable ? kRequestTransientRetryAfterS : 0);
  }
  if (db::is_bad_request(e.sqlstate())) {
    // The client's mistake, answered with a 400: worth a line only when debugging.
    spdlog::debug("db: request rejected ({}): {}", e.sqlstate(), e.what());
    return BrokerError(ErrorKind::BadRequest, e.client_message());
  }
  spdlog::error("db: permanent failure ({}): {}", e.sqlstate(), e.what());
  return BrokerError(ErrorKind::Internal, e.client_message());
}

void rethrow_db_failure(const db::DbError& e, metrics::Metrics& metrics, bool transient_is_unavailable) {
  BrokerError mapped = broker_error_of(e, transient_is_unavailable);
  if (mapped.kind() != ErrorKind::TooManyRequests) metrics.record_db_error();
  throw mapped;
}

}  // namespace queen::broker
