// The admission arbiter's settings (FlowConfig, docs/flow-control.md): names, derived defaults, ranges.
#include <gtest/gtest.h>

#include <algorithm>

#include "config/config.h"

using namespace queen::config;

namespace {

void expect_lane(const FlowLaneConfig& lane, int slots, int queue, int wait_ms) {
  EXPECT_EQ(lane.slots, slots);
  EXPECT_EQ(lane.queue, queue);
  EXPECT_EQ(lane.wait_ms, wait_ms);
}

std::string error_of(const EnvMap& env) {
  try {
    load_config(env, "h");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FlowConfig, DefaultsDeriveFromThePoolAndTheHandlerThreads) {
  // C = min(DB_POOL_SIZE 150, HTTP_MAX_THREADS 64) = 64.
  const FlowConfig f = load_config({}, "h").config.flow;
  EXPECT_EQ(f.slots, 64);
  expect_lane(f.push, 48, 64, 10000);
  expect_lane(f.pop, 48, 64, 2000);
  expect_lane(f.ack, 32, 64, 10000);
  expect_lane(f.maint, 4, 4, 1000);
  // The struct's own defaults are the same.
  const FlowConfig fresh;
  EXPECT_EQ(fresh.slots, f.slots);
  expect_lane(fresh.push, f.push.slots, f.push.queue, f.push.wait_ms);
  expect_lane(fresh.ack, f.ack.slots, f.ack.queue, f.ack.wait_ms);
  expect_lane(fresh.maint, f.maint.slots, f.maint.queue, f.maint.wait_ms);

  const FlowConfig small = load_config({{"DB_POOL_SIZE", "8"}}, "h").config.flow;
  EXPECT_EQ(small.slots, 8);
  expect_lane(small.push, 6, 64, 10000);
  expect_lane(small.pop, 6, 64, 2000);
  expect_lane(small.ack, 4, 64, 10000);
  expect_lane(small.maint, 1, 4, 1000);
  // A saturated Push or Pop lane leaves a quarter of the slots to the others.
  EXPECT_LE(small.push.slots, small.slots * 3 / 4);
  EXPECT_LE(small.pop.slots, small.slots * 3 / 4);
}

TEST(FlowConfig, EveryLaneIsReadFromItsVariables) {
  const FlowConfig f = load_config({{"QUEEN_FLOW_SLOTS", "10"},
                                    {"QUEEN_FLOW_PUSH_SLOTS", "1"},
                                    {"QUEEN_FLOW_PUSH_QUEUE", "0"},
                                    {"QUEEN_FLOW_PUSH_WAIT_MS", "50"},
                                    {"QUEEN_FLOW_POP_SLOTS", "2"},
                                    {"QUEEN_FLOW_POP_QUEUE", "3"},
                                    {"QUEEN_FLOW_POP_WAIT_MS", "60"},
                                    {"QUEEN_FLOW_ACK_SLOTS", "4"},
                                    {"QUEEN_FLOW_ACK_QUEUE", "5"},
                                    {"QUEEN_FLOW_ACK_WAIT_MS", "70"},
                                    {"QUEEN_FLOW_MAINT_SLOTS", "6"},
                                    {"QUEEN_FLOW_MAINT_QUEUE", "7"},
                                    {"QUEEN_FLOW_MAINT_WAIT_MS", "0"}},
                                   "h")
                            .config.flow;
  EXPECT_EQ(f.slots, 10);
  expect_lane(f.push, 1, 0, 50);
  expect_lane(f.pop, 2, 3, 60);
  expect_lane(f.ack, 4, 5, 70);
  expect_lane(f.maint, 6, 7, 0);
}

TEST(FlowConfig, BadValuesStopTheBootWithTheirNames) {
  EXPECT_NE(error_of({{"QUEEN_FLOW_SLOTS", "0"}}).find("QUEEN_FLOW_SLOTS=0 is out of range"), std::string::npos);
  EXPECT_NE(error_of({{"DB_POOL_SIZE", "10"}, {"QUEEN_FLOW_SLOTS", "11"}})
                .find("QUEEN_FLOW_SLOTS (11) must be <= DB_POOL_SIZE (10)"),
            std::string::npos);
  EXPECT_NE(error_of({{"QUEEN_FLOW_SLOTS", "4"}, {"QUEEN_FLOW_ACK_SLOTS", "5"}})
                .find("QUEEN_FLOW_ACK_SLOTS (5) must be <= QUEEN_FLOW_SLOTS (4)"),
            std::string::npos);
  EXPECT_NE(error_of({{"QUEEN_FLOW_POP_QUEUE", "-1"}}).find("QUEEN_FLOW_POP_QUEUE=-1 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of({{"QUEEN_FLOW_MAINT_WAIT_MS", "3600001"}}).find("QUEEN_FLOW_MAINT_WAIT_MS"), std::string::npos);
  EXPECT_NE(error_of({{"QUEEN_FLOW_PUSH_SLOTS", "0"}}).find("QUEEN_FLOW_PUSH_SLOTS=0 is out of range"),
            std::string::npos);
}

TEST(FlowConfig, DescribedOnItsOwnLine) {
  const auto lines = describe_config(load_config({{"QUEEN_FLOW_ACK_WAIT_MS", "1234"}}, "h").config);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return line.rfind("config: flow slots=64 ", 0) == 0 && line.find("ack_wait_ms=1234") != std::string::npos;
  }));
}
