// Unit tests of the pure parts of the growth and open-loop latency scenarios (no broker, no network).
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "../growth.h"
#include "../latency.h"
#include "../loads.h"
#include "../open_loop.h"
#include "../options.h"
#include "../report.h"
#include "../wire.h"

namespace bench {
namespace {

using nlohmann::json;

TEST(Summarize, ReportsTheNinetyNinePointNinthPercentile) {
    std::vector<std::int64_t> micros;
    for (int i = 1; i <= 2000; ++i) micros.push_back(i * 1000);
    const LatencySummary summary = summarize(micros);
    EXPECT_DOUBLE_EQ(summary.p50Ms, 1000.0);
    EXPECT_DOUBLE_EQ(summary.p99Ms, 1980.0);
    EXPECT_DOUBLE_EQ(summary.p999Ms, 1998.0); // rank ceil(0.999 * 2000) = 1998
    EXPECT_DOUBLE_EQ(summary.maxMs, 2000.0);
}

TEST(GrowthOptions, DefaultsAndBounds) {
    const ParseResult defaults = parseBenchOptions({});
    ASSERT_TRUE(defaults.options);
    EXPECT_EQ(defaults.options->growthPartitions, (std::vector<int>{10, 1000, 100000}));
    EXPECT_EQ(defaults.options->growthGroups, (std::vector<int>{1, 10, 50}));
    EXPECT_EQ(defaults.options->growthPayloads, (std::vector<int>{100, 65536, 1048576}));
    EXPECT_EQ(defaults.options->latencyPercents, (std::vector<int>{50, 90}));
    EXPECT_DOUBLE_EQ(defaults.options->growthSeconds, 5.0);

    const ParseResult parsed = parseBenchOptions(
        {"--scenario", "grow-partitions,grow-groups,grow-payload,grow-brokers,latency", "--growth-partitions", "5,50",
         "--growth-groups", "2,4", "--growth-payloads", "10,1000", "--growth-seconds", "2", "--growth-fill", "500",
         "--extra-url", "http://127.0.0.1:6702", "--extra-broker-pid", "42", "--latency-percents", "25,75",
         "--latency-connections", "8"});
    ASSERT_TRUE(parsed.options) << parsed.error;
    EXPECT_EQ(parsed.options->growthPartitions, (std::vector<int>{5, 50}));
    EXPECT_EQ(parsed.options->growthGroups, (std::vector<int>{2, 4}));
    EXPECT_EQ(parsed.options->growthPayloads, (std::vector<int>{10, 1000}));
    EXPECT_EQ(parsed.options->growthFill, 500);
    EXPECT_EQ(parsed.options->extraUrls, (std::vector<std::string>{"http://127.0.0.1:6702"}));
    EXPECT_EQ(parsed.options->extraBrokerPids, (std::vector<int>{42}));
    EXPECT_EQ(parsed.options->latencyPercents, (std::vector<int>{25, 75}));
    EXPECT_EQ(parsed.options->latencyConnections, 8);

    EXPECT_FALSE(parseBenchOptions({"--growth-partitions", "100001"}).options);
    EXPECT_FALSE(parseBenchOptions({"--growth-groups", "0"}).options);
    EXPECT_FALSE(parseBenchOptions({"--growth-payloads", "9000000"}).options); // over JSON_MAX_STRING_BYTES
    EXPECT_FALSE(parseBenchOptions({"--growth-seconds", "601"}).options);
    EXPECT_FALSE(parseBenchOptions({"--growth-fill", "99"}).options);
    EXPECT_FALSE(parseBenchOptions({"--latency-percents", "50,101"}).options);
    EXPECT_FALSE(parseBenchOptions({"--latency-connections", "0"}).options);
    EXPECT_FALSE(parseBenchOptions({"--extra-url", "ftp://x"}).options);
}

TEST(GrowthOptions, BrokersScenarioNeedsAnotherBrokerAndOnePidPerUrl) {
    EXPECT_FALSE(parseBenchOptions({"--scenario", "grow-brokers"}).options);
    EXPECT_FALSE(parseBenchOptions({"--extra-url", "http://a:1", "--extra-url", "http://b:2", "--extra-broker-pid", "7"})
                     .options);
    EXPECT_TRUE(parseBenchOptions({"--scenario", "grow-brokers", "--extra-url", "http://a:1"}).options);
}

TEST(GrowthWire, SpreadPushPutsEachItemIntoItsOwnPartition) {
    PushBatchSpec spec;
    spec.queue = "q";
    spec.txPrefix = "t";
    spec.firstSequence = 998;
    spec.count = 4;
    spec.spreadPartitions = 1000;
    const json body = json::parse(buildPushBody(spec));
    ASSERT_EQ(body["items"].size(), 4u);
    EXPECT_EQ(body["items"][0]["partition"], "p998");
    EXPECT_EQ(body["items"][1]["partition"], "p999");
    EXPECT_EQ(body["items"][2]["partition"], "p0");
    EXPECT_EQ(body["items"][3]["transactionId"], "t-1001");
}

TEST(GrowthWire, IncompressibleFillerIsFixedVariedAndJsonSafe) {
    EXPECT_EQ(payloadFiller(3, false), "xxx");
    const std::string filler = payloadFiller(4096, true);
    ASSERT_EQ(filler.size(), 4096u);
    EXPECT_EQ(filler, payloadFiller(4096, true)); // the same every run
    const std::set<char> distinct(filler.begin(), filler.end());
    EXPECT_GT(distinct.size(), 50u);
    for (char c : filler) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c))) << c;
    EXPECT_EQ(payloadFiller(0, true), "");
}

TEST(GrowthWire, AckNamesTheConsumerGroup) {
    const std::vector<PoppedMessage> messages = {{"t1", "p1", "l1", ""}};
    EXPECT_TRUE(json::parse(buildAckBatchBody(messages))["consumerGroup"].is_null());
    EXPECT_EQ(json::parse(buildAckBatchBody(messages, "g3"))["consumerGroup"], "g3");
}

TEST(GrowthLoads, PartitionChoiceRotatesOrSpreadsWithinRange) {
    EXPECT_EQ(pushPartitionIndex(3, 4, 10, false), 7);
    EXPECT_EQ(pushPartitionIndex(9, 1, 10, false), 0);
    std::set<int> touched;
    for (int connection = 0; connection < 10; ++connection)
        for (std::int64_t k = 0; k < 400; ++k) {
            const int index = pushPartitionIndex(connection, k, 100'000, true);
            ASSERT_GE(index, 0);
            ASSERT_LT(index, 100'000);
            touched.insert(index);
        }
    // 4,000 requests over 100,000 partitions: almost all distinct (the rotation would touch 409).
    EXPECT_GT(touched.size(), 3'900u);
    EXPECT_EQ(pushPartitionIndex(1, 2, 100'000, true), pushPartitionIndex(1, 2, 100'000, true));
}

TEST(GrowthLoads, ConnectionsSpreadOverTheBrokers) {
    const BrokerAddress main{"a", 1};
    LoadSpread spread;
    EXPECT_EQ(connectionAddress(main, spread, 5).host, "a");
    spread.brokers = {{"a", 1}, {"b", 2}, {"c", 3}};
    EXPECT_EQ(connectionAddress(main, spread, 0).host, "a");
    EXPECT_EQ(connectionAddress(main, spread, 4).host, "b");
    EXPECT_EQ(connectionAddress(main, spread, 5).host, "c");
}

TEST(Growth, HotPartitionsHoldTwoFullPopsEach) {
    EXPECT_EQ(hotPartitionCount(10, 20'000, 10), 10);
    EXPECT_EQ(hotPartitionCount(1'000, 20'000, 10), 1'000);
    EXPECT_EQ(hotPartitionCount(100'000, 20'000, 10), 1'000);
    EXPECT_EQ(hotPartitionCount(100'000, 5, 10), 1);
}

TEST(Growth, PayloadStepsStopAtOneGibibyte) {
    EXPECT_EQ(payloadMessageLimit(1'048'576, 5'000'000), 1'024);
    EXPECT_EQ(payloadMessageLimit(100, 5'000'000), 5'000'000);
    EXPECT_EQ(payloadMessageLimit(100, 7), 7);
}

TEST(Growth, PayloadRequestsCarryAtMostOneMebibyte) {
    EXPECT_EQ(payloadBatch(100), 10);
    EXPECT_EQ(payloadBatch(65'536), 10);
    EXPECT_EQ(payloadBatch(200'000), 5);
    EXPECT_EQ(payloadBatch(1'048'576), 1);
    EXPECT_EQ(payloadBatch(4'000'000), 1);
}

TEST(Growth, GroupNames) { EXPECT_EQ(groupNames(3), (std::vector<std::string>{"g0", "g1", "g2"})); }

ScenarioResult costLine(const char* name, double brokerUs, double postgresUs, double walBytes) {
    ScenarioResult line;
    line.scenario = name;
    line.messages = 100;
    line.cost.brokerUsPerMessage = brokerUs;
    line.cost.postgresUsPerMessage = postgresUs;
    line.cost.walBytesPerMessage = walBytes;
    return line;
}

TEST(Growth, RatiosAreLastStepOverFirstPerLineKind) {
    std::vector<GrowthStep> steps(3);
    steps[0] = {10, {costLine("parts-push", 40, 60, 500), costLine("parts-pop", 100, 100, 100)}};
    steps[1] = {1000, {costLine("parts-push", 45, 65, 520)}};
    steps[2] = {100000, {costLine("parts-push", 50, 100, 750), costLine("parts-pop", 100, 300, 50)}};
    const std::vector<GrowthRatio> ratios = growthRatios(steps);
    ASSERT_EQ(ratios.size(), 2u);
    EXPECT_EQ(ratios[0].line, "parts-push");
    EXPECT_EQ(ratios[0].firstValue, 10);
    EXPECT_EQ(ratios[0].lastValue, 100000);
    EXPECT_DOUBLE_EQ(*ratios[0].cpuRatio, 1.5);
    EXPECT_DOUBLE_EQ(*ratios[0].walRatio, 1.5);
    EXPECT_DOUBLE_EQ(*ratios[1].cpuRatio, 2.0);
    EXPECT_DOUBLE_EQ(*ratios[1].walRatio, 0.5);

    steps[2].lines[0].cost.brokerUsPerMessage.reset(); // a side not measured: no ratio
    EXPECT_FALSE(growthRatios(steps)[0].cpuRatio);
    EXPECT_TRUE(growthRatios({steps[0]}).empty());
}

TEST(Growth, SummaryAndJsonCarryTheRatio) {
    GrowthResult result;
    result.scenario = kScenarioGrowPartitions;
    result.parameter = "partitions";
    result.steps = {{10, {costLine("parts-push", 40, 60, 500)}}, {100000, {costLine("parts-push", 50, 100, 750)}}};
    result.ratios = growthRatios(result.steps);
    const std::string summary = formatGrowthSummary(result);
    EXPECT_NE(summary.find("10 -> 100000 partitions"), std::string::npos) << summary;
    EXPECT_NE(summary.find("100.0 -> 150.0 us, last/first 1.50x"), std::string::npos) << summary;
    EXPECT_NE(summary.find("500 -> 750 B/msg, last/first 1.50x"), std::string::npos) << summary;

    const json document = json::parse(resultsToJson(BenchOptions{}, RunConditions{}, {}, std::nullopt, std::nullopt,
                                                    {result}));
    const json& curve = document["growth"][0];
    EXPECT_EQ(curve["scenario"], "grow-partitions");
    EXPECT_EQ(curve["steps"][1]["value"], 100000);
    EXPECT_EQ(curve["steps"][1]["lines"][0]["scenario"], "parts-push");
    EXPECT_DOUBLE_EQ(curve["ratios"][0]["cpuLastOverFirst"].get<double>(), 1.5);
    EXPECT_FALSE(document.contains("latencyUnderLoad"));
}

TEST(OpenLoop, ScheduleFollowsTheRate) {
    EXPECT_DOUBLE_EQ(openLoopRequestRate(8000, 50, 10), 400.0);
    EXPECT_DOUBLE_EQ(openLoopRequestRate(8000, 90, 10), 720.0);
    EXPECT_DOUBLE_EQ(openLoopRequestRate(0, 90, 10), 0.0);
    EXPECT_EQ(scheduledRequestCount(400, 5), 2000);
    EXPECT_EQ(scheduledRequestCount(0.1, 5), 1);
    EXPECT_EQ(scheduledRequestCount(0, 5), 0);
    EXPECT_EQ(dueOffset(0, 400).count(), 0);
    EXPECT_EQ(dueOffset(1, 400).count(), 2500);
    EXPECT_EQ(dueOffset(1999, 400).count(), 4'997'500);
}

TEST(OpenLoop, PhaseLineAndJsonCarryTheThreePercentiles) {
    OpenLoopPhase phase;
    phase.kind = "pop";
    phase.percent = 90;
    phase.capacityMessagesPerSecond = 4000;
    phase.offeredMessagesPerSecond = 3600;
    phase.achievedMessagesPerSecond = 3590;
    phase.scheduled = 1800;
    phase.completed = 1800;
    phase.messages = 17950;
    phase.latency = summarize({1000, 2000, 3000, 40000});
    const std::string line = formatOpenLoopPhase(phase);
    EXPECT_NE(line.find("pop  at  90% of 4000.0 msg/s: offered 3600.0, moved 3590.0 msg/s"), std::string::npos)
        << line;
    EXPECT_NE(line.find("p50 2.00 p99 40.00 p999 40.00"), std::string::npos) << line;
    EXPECT_NE(line.find("1800 of 1800 requests"), std::string::npos) << line;

    OpenLoopResult result;
    result.batch = 10;
    result.phases = {phase};
    const json document = json::parse(resultsToJson(BenchOptions{}, RunConditions{}, {}, std::nullopt, std::nullopt,
                                                    {}, result));
    const json& stored = document["latencyUnderLoad"]["phases"][0];
    EXPECT_EQ(stored["kind"], "pop");
    EXPECT_DOUBLE_EQ(stored["latency"]["p999Ms"].get<double>(), 40.0);
    EXPECT_DOUBLE_EQ(stored["offeredMessagesPerSecond"].get<double>(), 3600.0);
    EXPECT_FALSE(stored["ackLatency"].is_null());
}

} // namespace
} // namespace bench
