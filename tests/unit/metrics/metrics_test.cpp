#include "metrics/metrics.h"

#include <gtest/gtest.h>

using namespace queen::metrics;

TEST(RateMeter, AveragesCompleteSecondsOfTheWindow) {
  RateMeter meter;
  meter.add(10, 100);
  meter.add(20, 101);
  meter.add(1000, 105);  // the current second is not complete: excluded
  EXPECT_DOUBLE_EQ(meter.rate(105, 10), 3.0);
  EXPECT_DOUBLE_EQ(meter.rate(102, 2), 15.0);
}

TEST(RateMeter, OldBucketsAreNotCountedAfterWrapAround) {
  RateMeter meter;
  meter.add(50, 10);
  // 64 seconds later the same bucket index is reused for a new second.
  meter.add(5, 74);
  EXPECT_DOUBLE_EQ(meter.rate(75, 1), 5.0);
  EXPECT_DOUBLE_EQ(meter.rate(12, 2), 0.0);  // second 10 was overwritten
}

TEST(Metrics, CountersAccumulate) {
  Metrics m;
  m.record_request();
  m.record_request();
  m.record_push(100);
  m.record_pop(7);
  m.record_ack(5, 2);
  m.record_db_error();
  const Counters c = m.counters();
  EXPECT_EQ(c.requests, 2u);
  EXPECT_EQ(c.push_requests, 1u);
  EXPECT_EQ(c.push_messages, 100u);
  EXPECT_EQ(c.pop_requests, 1u);
  EXPECT_EQ(c.pop_messages, 7u);
  EXPECT_EQ(c.ack_messages, 7u);
  EXPECT_EQ(c.ack_success, 5u);
  EXPECT_EQ(c.ack_failed, 2u);
  EXPECT_EQ(c.db_errors, 1u);
}

TEST(Prometheus, ExposesTheRequiredSeries) {
  Counters c;
  c.push_messages = 42;
  Gauges g;
  g.db_pool_size = 150;
  g.db_pool_idle = 3;
  g.db_pool_active = 2;
  g.spool_pending = 9;
  g.maintenance = true;
  g.spool_db_healthy = false;
  const std::string text = render_prometheus(c, g, ProcessStats{}, 12.5);
  for (const char* line : {"queen_file_buffer_pending 9\n", "queen_file_buffer_failed 0\n",
                           "queen_file_buffer_db_healthy 0\n", "queen_maintenance_mode_enabled 1\n",
                           "queen_uptime_seconds 12.500\n", "queen_db_pool_size 150\n", "queen_db_pool_idle 3\n",
                           "queen_db_pool_active 2\n", "queen_push_messages_total 42\n",
                           "# TYPE queen_file_buffer_pending gauge\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

TEST(ProcessStats, ReadsThisProcess) {
  const ProcessStats s = read_process_stats();
  EXPECT_GT(s.resident_bytes, 0u);
  EXPECT_GE(s.virtual_bytes, s.resident_bytes);
}
