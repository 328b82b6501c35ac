#include "metrics/metrics.h"

#include <gtest/gtest.h>

#include <ctime>

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
  Metrics m;
  m.record_push(42);
  Gauges g;
  g.db_pool_size = 150;
  g.db_pool_idle = 3;
  g.db_pool_active = 2;
  g.spool_pending = 9;
  g.maintenance = true;
  g.spool_db_healthy = false;
  g.spool_fallback = true;
  const std::string text = render_prometheus(m, g, ProcessStats{});
  for (const char* line : {"queen_file_buffer_pending 9\n", "queen_file_buffer_failed 0\n",
                           "queen_file_buffer_db_healthy 0\n", "queen_file_buffer_fallback 1\n",
                           "# TYPE queen_file_buffer_fallback gauge\n", "queen_maintenance_mode_enabled 1\n",
                           "# TYPE queen_uptime_seconds gauge\n", "queen_db_pool_size 150\n", "queen_db_pool_idle 3\n",
                           "queen_db_pool_active 2\n", "queen_push_messages_total 42\n",
                           "# TYPE queen_file_buffer_pending gauge\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

TEST(ProcessStats, ReadsThisProcess) {
  const ProcessStats s = read_process_stats();
  EXPECT_GT(s.resident_bytes, 0u);
  EXPECT_GE(s.virtual_bytes, s.resident_bytes);
  EXPECT_GE(s.open_fds, 3u);  // stdin, stdout, stderr at least
  EXPECT_GE(s.max_fds, s.open_fds);
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_GT(s.start_time_seconds, now - 3600);
  EXPECT_LE(s.start_time_seconds, now + 1);
}

TEST(Prometheus, ProcessSeriesHaveTheStandardNamesInBaseUnits) {
  ProcessStats p;
  p.cpu_user_us = 1500000;
  p.cpu_system_us = 250000;
  p.resident_bytes = 4096;
  p.open_fds = 12;
  p.max_fds = 1024;
  p.start_time_seconds = 1700000000.5;
  const std::string text = render_process(p);
  for (const char* line : {"# TYPE process_cpu_seconds_total counter\n", "process_cpu_seconds_total 1.750000\n",
                           "process_resident_memory_bytes 4096\n", "process_open_fds 12\n", "process_max_fds 1024\n",
                           "process_start_time_seconds 1700000000.50\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
  EXPECT_EQ(render_prometheus(Metrics{}, Gauges{}, p).find("microseconds"), std::string::npos);
}

TEST(Prometheus, RequestsAreCountedByRouteMethodAndStatus) {
  Metrics m;
  m.record_http_answer("/api/v1/push", "POST", 201, 0.004);
  m.record_http_answer("/api/v1/push", "POST", 429, 0.2);
  m.record_http_answer("unmatched", "BREW", 404, 0.0001);
  const std::string text = render_prometheus(m, Gauges{}, ProcessStats{});
  for (const char* line :
       {"queen_http_requests_total{route=\"/api/v1/push\",method=\"POST\",code=\"201\"} 1\n",
        "queen_http_requests_total{route=\"/api/v1/push\",method=\"POST\",code=\"429\"} 1\n",
        "queen_http_requests_total{route=\"unmatched\",method=\"other\",code=\"404\"} 1\n",
        "# TYPE queen_http_request_duration_seconds histogram\n",
        "queen_http_request_duration_seconds_bucket{route=\"/api/v1/push\",method=\"POST\",status_class=\"2xx\","
        "le=\"0.005\"} 1\n",
        "queen_http_request_duration_seconds_bucket{route=\"/api/v1/push\",method=\"POST\",status_class=\"4xx\","
        "le=\"0.1\"} 0\n",
        "queen_http_request_duration_seconds_bucket{route=\"/api/v1/push\",method=\"POST\",status_class=\"4xx\","
        "le=\"0.25\"} 1\n",
        "queen_http_request_duration_seconds_count{route=\"/api/v1/push\",method=\"POST\",status_class=\"4xx\"} 1\n",
        "# TYPE queen_db_call_duration_seconds histogram\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

TEST(Histogram, CountsCumulativelyWithTheSumInSeconds) {
  HistogramFamily family({0.01, 0.1});
  family.observe(label_pair("procedure", "pop_messages"), 0.005);
  family.observe(label_pair("procedure", "pop_messages"), 0.05);
  family.observe(label_pair("procedure", "pop_messages"), 3);
  const std::vector<HistogramSample> samples = family.samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].labels, "procedure=\"pop_messages\"");
  EXPECT_EQ(samples[0].cumulative, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(samples[0].count, 3u);
  EXPECT_NEAR(samples[0].sum_seconds, 3.055, 1e-6);
  std::string out;
  render_histograms(out, "x_seconds", "help", family.bounds(), samples);
  EXPECT_NE(out.find("x_seconds_bucket{procedure=\"pop_messages\",le=\"+Inf\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_seconds_sum{procedure=\"pop_messages\"} 3.055000\n"), std::string::npos) << out;
}

TEST(Labels, EscapeWhatTheTextFormatReserves) {
  EXPECT_EQ(label_pair("queue", "a\"b\\c\nd"), "queue=\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(status_class(204), "2xx");
  EXPECT_EQ(status_class(503), "5xx");
  EXPECT_EQ(method_label("GET"), "GET");
  EXPECT_EQ(method_label("get"), "other");
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
  const std::string text = render_prometheus(Metrics{}, g, ProcessStats{});
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
  EXPECT_EQ(render_prometheus(Metrics{}, Gauges{}, ProcessStats{}).find("queen_flow_"), std::string::npos);
}

TEST(Prometheus, BuildInfoCarriesTheVersionAsALabel) {
  EXPECT_EQ(render_build_info("1.0.0"),
            "# HELP queen_build_info Always 1; the version label is the broker's release.\n"
            "# TYPE queen_build_info gauge\n"
            "queen_build_info{version=\"1.0.0\"} 1\n");
}
