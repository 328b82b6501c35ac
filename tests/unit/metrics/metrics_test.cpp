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

TEST(Prometheus, ExposesEveryAdmissionLane) {
  Gauges g;
  AdmissionLane push;
  push.lane = "push";
  push.slots = 3;
  push.in_use = 2;
  push.waiting = 5;
  push.granted = 40;
  push.rejected_queue_full = 7;
  push.rejected_timeout = 1;
  push.wait_buckets = {{0.001, 30}, {1.0, 39}};
  push.wait_seconds_sum = 2.5;
  push.wait_count = 40;
  AdmissionLane maint;
  maint.lane = "maint";
  g.admission = {push, maint};
  const std::string text = render_prometheus(Counters{}, g, ProcessStats{}, 1.0);
  for (const char* line :
       {"# TYPE queen_flow_slots_in_use gauge\n", "queen_flow_slots{lane=\"push\"} 3\n",
        "queen_flow_slots_in_use{lane=\"push\"} 2\n", "queen_flow_waiting{lane=\"push\"} 5\n",
        "# TYPE queen_flow_granted_total counter\n", "queen_flow_granted_total{lane=\"push\"} 40\n",
        "queen_flow_rejected_total{lane=\"push\",reason=\"queue_full\"} 7\n",
        "queen_flow_rejected_total{lane=\"push\",reason=\"timeout\"} 1\n", "# TYPE queen_flow_wait_seconds histogram\n",
        "queen_flow_wait_seconds_bucket{lane=\"push\",le=\"0.001000\"} 30\n",
        "queen_flow_wait_seconds_bucket{lane=\"push\",le=\"1.000000\"} 39\n",
        "queen_flow_wait_seconds_bucket{lane=\"push\",le=\"+Inf\"} 40\n",
        "queen_flow_wait_seconds_sum{lane=\"push\"} 2.500000\n", "queen_flow_wait_seconds_count{lane=\"push\"} 40\n",
        "queen_flow_slots_in_use{lane=\"maint\"} 0\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
  // Each family is declared once.
  EXPECT_EQ(text.find("# TYPE queen_flow_waiting gauge"), text.rfind("# TYPE queen_flow_waiting gauge"));
  // Without an arbiter there is no flow series at all.
  EXPECT_EQ(render_prometheus(Counters{}, Gauges{}, ProcessStats{}, 1.0).find("queen_flow_"), std::string::npos);
}

TEST(Prometheus, BuildInfoCarriesTheVersionAsALabel) {
  EXPECT_EQ(render_build_info("1.0.0"),
            "# HELP queen_build_info Always 1; the version label is the broker's release.\n"
            "# TYPE queen_build_info gauge\n"
            "queen_build_info{version=\"1.0.0\"} 1\n");
}
