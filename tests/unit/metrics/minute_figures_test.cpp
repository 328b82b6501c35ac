#include "metrics/minute_figures.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace queen::metrics;

TEST(MinuteFigures, CountersAreDeltasAndGaugesAreSampledNow) {
  MinuteSample before;
  before.counters.requests = 10;
  before.counters.push_messages = 100;
  before.counters.ack_failed = 1;
  before.process.cpu_user_us = 5000;
  MinuteSample now = before;
  now.counters.requests = 25;
  now.counters.push_messages = 160;
  now.counters.ack_failed = 3;
  now.process.cpu_user_us = 7500;
  now.process.resident_bytes = 1 << 20;
  Gauges gauges;
  gauges.db_pool_size = 20;
  gauges.db_pool_active = 4;
  gauges.parked_pops = 7;
  AdmissionLane lane;
  lane.lane = "push";
  lane.slots = 15;
  lane.in_use = 2;
  gauges.admission.push_back(lane);

  const auto figures = nlohmann::json::parse(minute_figures_json(before, now, gauges, "host-a", 6632));
  EXPECT_EQ(figures["requests"], 15);
  EXPECT_EQ(figures["pushMessages"], 60);
  EXPECT_EQ(figures["ackFailed"], 2);
  EXPECT_EQ(figures["cpuUserUs"], 2500);
  EXPECT_EQ(figures["rssBytes"], 1 << 20);
  EXPECT_EQ(figures["poolSize"], 20);
  EXPECT_EQ(figures["poolInUse"], 4);
  EXPECT_EQ(figures["parkedPops"], 7);
  EXPECT_EQ(figures["hostname"], "host-a");
  EXPECT_EQ(figures["port"], 6632);
  EXPECT_EQ(figures["lanes"], nlohmann::json::parse(R"([{"lane":"push","slots":15,"inUse":2,"waiting":0}])"));
}

TEST(MinuteFigures, ACounterThatWentBackwardsCountsFromZero) {
  MinuteSample before;
  before.counters.requests = 50;
  MinuteSample now;
  now.counters.requests = 8;
  const auto figures = nlohmann::json::parse(minute_figures_json(before, now, Gauges{}, "h", 1));
  EXPECT_EQ(figures["requests"], 8);
}
