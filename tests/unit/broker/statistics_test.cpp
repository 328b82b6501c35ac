// Statistics: one view call per route for the requester's tenant, the manual
// refresh within its bounds, the minute flush, and failures counted and
// mapped once.
#include "broker/statistics.h"

#include <stdexcept>

#include <gtest/gtest.h>

#include "broker/broker_error.h"
#include "use_case_fakes.h"

namespace queen::broker {
namespace {

const db::View& view_named(const std::string& function) {
  for (const db::View& view : db::views()) {
    if (view.function == function) return view;
  }
  throw std::logic_error("no view " + function);
}

class StatisticsTest : public ::testing::Test {
 protected:
  testing::StatsFake db;
  testing::OpenReadGate gate;
  metrics::Metrics metrics;
  Statistics statistics{db, metrics, gate.reads};
};

TEST_F(StatisticsTest, AViewAnswersTheProceduresBodyForTheTenant) {
  db.body = "{\"queues\":[]}";
  EXPECT_EQ(statistics.view(view_named("status_queues"), Tenant("acme"), "{\"limit\":100}"), "{\"queues\":[]}");
  ASSERT_EQ(db.views.size(), 1u);
  EXPECT_EQ(db.views[0].function, "status_queues");
  EXPECT_EQ(db.views[0].tenant, "acme");
  EXPECT_EQ(db.views[0].params_json, "{\"limit\":100}");
}

TEST_F(StatisticsTest, AViewOfAQueueTheTenantLacksIsEmpty) {
  db.body = std::nullopt;
  EXPECT_FALSE(statistics.view(view_named("status_queue"), Tenant("acme"), "{\"queue\":\"nope\"}").has_value());
}

TEST_F(StatisticsTest, RefreshIsBoundedInQueuesAndTime) {
  EXPECT_EQ(statistics.refresh(), "{\"refreshed\":0}");
  ASSERT_EQ(db.refreshes.size(), 1u);
  EXPECT_GT(db.refreshes[0].first, 0);
  EXPECT_GT(db.refreshes[0].second, 0);
}

TEST_F(StatisticsTest, FailuresAreCountedAndMapped) {
  db.failure = db::DbError("ERROR:  invalid interval", "22023");
  try {
    statistics.view(view_named("status_analytics"), Tenant::default_tenant(), "{}");
    FAIL() << "no BrokerError";
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadRequest);
  }
  db.failure = db::DbError("ERROR:  canceling statement due to statement timeout", "57014");
  try {
    statistics.refresh();
    FAIL() << "no BrokerError";
  } catch (const BrokerError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_EQ(e.retry_after_s(), kRequestTransientRetryAfterS);
  }
  EXPECT_EQ(metrics.counters().db_errors, 2u);
}

TEST_F(StatisticsTest, TheLastMinuteIsFlushedWhenTheFlusherStops) {
  BrokerMinuteFlusher flusher(db, metrics, [] { return metrics::Gauges{}; },
                              BrokerMinuteOptions{"broker-1", "host", 6632, std::chrono::hours(1)});
  flusher.start();
  flusher.stop();
  ASSERT_EQ(db.minutes.size(), 1u);
  EXPECT_EQ(db.minutes[0].first, "broker-1");
  EXPECT_NE(db.minutes[0].second.find('{'), std::string::npos);
}

}  // namespace
}  // namespace queen::broker
