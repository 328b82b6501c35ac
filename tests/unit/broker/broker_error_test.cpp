// The one mapping of a database failure to what a client is answered, and the
// helper every use case runs its procedure call through.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "broker/broker_error.h"
#include "db/db_error.h"
#include "db/sqlstate.h"
#include "metrics/metrics.h"

using namespace queen;
using namespace queen::broker;

namespace {

// The BrokerError `call` leaves with; empty when it returns.
template <typename Call>
std::optional<BrokerError> broker_error_from(Call&& call) {
  try {
    call();
  } catch (const BrokerError& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

TEST(StorageQuotaRefusal, QQ429IsTooManyRequestsWithTheDatabasesMessage) {
  const db::DbError quota("ERROR:  KV bytes quota of tenant acme reached (100 bytes, QUEEN_TENANT_MAX_KV_BYTES)",
                          std::string(db::kStorageQuotaExceeded));
  const BrokerError e = broker_error_of(quota);
  EXPECT_EQ(e.kind(), ErrorKind::TooManyRequests);
  EXPECT_EQ(e.retry_after_s(), kStorageQuotaRetryAfterS);
  EXPECT_NE(std::string(e.what()).find("QUEEN_TENANT_MAX_KV_BYTES"), std::string::npos) << e.what();
  EXPECT_EQ(broker_error_of(db::DbError("bad", "22023")).kind(), ErrorKind::BadRequest);
  EXPECT_EQ(broker_error_of(db::DbError("down", "")).kind(), ErrorKind::Unavailable);
}

TEST(TranslatingDbFailures, PassesTheResultThrough) {
  metrics::Metrics metrics;
  EXPECT_EQ(translating_db_failures(metrics, [] { return 7; }), 7);
  bool ran = false;
  translating_db_failures(metrics, [&] { ran = true; });
  EXPECT_TRUE(ran);
  EXPECT_EQ(metrics.counters().db_errors, 0u);
}

TEST(TranslatingDbFailures, ADatabaseFailureLeavesAsItsBrokerErrorAndIsCounted) {
  metrics::Metrics metrics;
  const std::optional<BrokerError> left = broker_error_from(
      [&] { translating_db_failures(metrics, []() -> int { throw db::DbError("connection refused", ""); }); });
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(left->kind(), ErrorKind::Unavailable);
  EXPECT_STREQ(left->what(), kDatabaseUnavailable);
  EXPECT_EQ(metrics.counters().db_errors, 1u);
  // Without metrics: the same answer, counted nowhere.
  const std::optional<BrokerError> uncounted =
      broker_error_from([] { translating_db_failures([]() -> int { throw db::DbError("bad", "22023"); }); });
  ASSERT_TRUE(uncounted.has_value());
  EXPECT_EQ(uncounted->kind(), ErrorKind::BadRequest);
  EXPECT_EQ(metrics.counters().db_errors, 1u);
}

TEST(TranslatingDbFailures, AQuotaRefusalIsNotCountedAsADatabaseFailure) {
  metrics::Metrics metrics;
  EXPECT_THROW(translating_db_failures(
                   metrics, [] { throw db::DbError("ERROR:  quota", std::string(db::kStorageQuotaExceeded)); }),
               BrokerError);
  EXPECT_EQ(metrics.counters().db_errors, 0u);
}

TEST(TranslatingDbFailures, AnyOtherExceptionLeavesAsThrown) {
  metrics::Metrics metrics;
  EXPECT_THROW(translating_db_failures(metrics, [] { throw std::invalid_argument("not the database"); }),
               std::invalid_argument);
  EXPECT_EQ(metrics.counters().db_errors, 0u);
}
