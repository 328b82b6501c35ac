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
  // C = min(DB_POOL_SIZE 25, HTTP_MAX_THREADS 64) = 25.
  const FlowConfig f = load_config({}, "h").config.flow;
  EXPECT_EQ(f.slots, 25);
  expect_lane(f.push, 18, 64, 10000);
  expect_lane(f.pop, 18, 64, 2000);
  expect_lane(f.ack, 12, 64, 10000);
  expect_lane(f.maint, 1, 4, 1000);
  expect_lane(f.read, 3, 16, 2000);
  EXPECT_EQ(f.read_statement_timeout_ms, 5000);
  // Config::defaults() holds the same.
  const FlowConfig fresh = queen::config::Config::defaults().flow;
  EXPECT_EQ(fresh.slots, f.slots);
  expect_lane(fresh.push, f.push.slots, f.push.queue, f.push.wait_ms);
  expect_lane(fresh.pop, f.pop.slots, f.pop.queue, f.pop.wait_ms);
  expect_lane(fresh.ack, f.ack.slots, f.ack.queue, f.ack.wait_ms);
  expect_lane(fresh.maint, f.maint.slots, f.maint.queue, f.maint.wait_ms);
  expect_lane(fresh.read, f.read.slots, f.read.queue, f.read.wait_ms);
  EXPECT_EQ(fresh.read_statement_timeout_ms, f.read_statement_timeout_ms);

  const FlowConfig small = load_config({{"DB_POOL_SIZE", "8"}}, "h").config.flow;
  EXPECT_EQ(small.slots, 8);
  expect_lane(small.push, 6, 64, 10000);
  expect_lane(small.pop, 6, 64, 2000);
  expect_lane(small.ack, 4, 64, 10000);
  expect_lane(small.maint, 1, 4, 1000);
  expect_lane(small.read, 1, 16, 2000);
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
                                    {"QUEEN_FLOW_MAINT_WAIT_MS", "0"},
                                    {"QUEEN_FLOW_READ_SLOTS", "8"},
                                    {"QUEEN_FLOW_READ_QUEUE", "9"},
                                    {"QUEEN_FLOW_READ_WAIT_MS", "80"},
                                    {"QUEEN_READ_STATEMENT_TIMEOUT_MS", "0"}},
                                   "h")
                            .config.flow;
  EXPECT_EQ(f.slots, 10);
  expect_lane(f.push, 1, 0, 50);
  expect_lane(f.pop, 2, 3, 60);
  expect_lane(f.ack, 4, 5, 70);
  expect_lane(f.maint, 6, 7, 0);
  expect_lane(f.read, 8, 9, 80);
  EXPECT_EQ(f.read_statement_timeout_ms, 0);
}

// Reads wait on handler threads: their slots and queue together stay within
// half of HTTP_MAX_THREADS, by default for every thread count, and a setting
// past that stops the boot.
TEST(FlowConfig, ReadsHoldAtMostHalfTheHandlerThreads) {
  for (const int threads : {2, 3, 4, 5, 8, 64, 1000}) {
    const FlowConfig f =
        load_config({{"HTTP_MAX_THREADS", std::to_string(threads)}, {"NUM_WORKERS", "1"}}, "h").config.flow;
    EXPECT_GE(f.read.slots, 1) << threads;
    EXPECT_LE(f.read.slots + f.read.queue, std::max(1, threads / 2)) << threads;
  }
  const FlowConfig four = load_config({{"HTTP_MAX_THREADS", "4"}, {"NUM_WORKERS", "1"}}, "h").config.flow;
  expect_lane(four.read, 1, 1, 2000);
  EXPECT_NE(error_of({{"QUEEN_FLOW_READ_SLOTS", "17"}})
                .find("QUEEN_FLOW_READ_SLOTS + QUEEN_FLOW_READ_QUEUE (33) must be <= HTTP_MAX_THREADS / 2 (32)"),
            std::string::npos);
  EXPECT_EQ(error_of({{"QUEEN_FLOW_READ_SLOTS", "16"}}), "");
  EXPECT_NE(error_of({{"HTTP_MAX_THREADS", "8"}, {"NUM_WORKERS", "1"}, {"QUEEN_FLOW_READ_QUEUE", "4"}})
                .find("HTTP_MAX_THREADS / 2 (4)"),
            std::string::npos);
  EXPECT_NE(error_of({{"QUEEN_READ_STATEMENT_TIMEOUT_MS", "-1"}}).find("QUEEN_READ_STATEMENT_TIMEOUT_MS=-1 is out"),
            std::string::npos);
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
    return line.rfind("config: flow slots=25 ", 0) == 0 && line.find("ack_wait_ms=1234") != std::string::npos &&
           line.find(" read_slots=3 read_queue=16 read_wait_ms=2000 read_statement_timeout_ms=5000") !=
               std::string::npos;
  }));
}
