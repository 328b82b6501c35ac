// Unit tests of the RabbitMQ anchor's pure parts (no server, no network).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../latency.h"
#include "anchor_core.h"

namespace anchor {
namespace {

AnchorOptions parseOk(const std::vector<std::string>& args) {
    const ParseResult parsed = parseAnchorOptions(args);
    EXPECT_TRUE(parsed.options.has_value()) << parsed.error;
    return parsed.options.value_or(AnchorOptions{});
}

std::string parseError(const std::vector<std::string>& args) {
    const ParseResult parsed = parseAnchorOptions(args);
    EXPECT_FALSE(parsed.options.has_value());
    return parsed.error;
}

TEST(AnchorOptions, DefaultsMirrorQueenBench) {
    const AnchorOptions options = parseOk({});
    EXPECT_EQ(options.producers, 10);
    EXPECT_EQ(options.queues, 10);
    EXPECT_EQ(options.messageBytes, 100);
    EXPECT_EQ(options.batches, (std::vector<int>{1, 10, 100}));
    EXPECT_EQ(options.scenarios, (std::vector<std::string>{"push", "popack"}));
    EXPECT_EQ(options.serverPid, 0);
    EXPECT_TRUE(options.jsonPath.empty());
}

TEST(AnchorOptions, ParsesEveryFlag) {
    const AnchorOptions options =
        parseOk({"--host", "localhost", "--port", "25672", "--user", "u", "--password", "p", "--vhost", "v",
                 "--producers", "4", "--queues", "3", "--message-bytes", "0", "--duration", "2.5", "--batches",
                 "5,50", "--scenario", "popack", "--max-messages", "1000", "--prefill", "900", "--prefill-max",
                 "5000", "--io-timeout", "7", "--max-latency-samples", "10", "--server-pid", "1234", "--json",
                 "/tmp/r.json", "--queue-prefix", "x", "--keep-queues"});
    EXPECT_EQ(options.host, "localhost");
    EXPECT_EQ(options.port, 25672);
    EXPECT_EQ(options.user, "u");
    EXPECT_EQ(options.password, "p");
    EXPECT_EQ(options.vhost, "v");
    EXPECT_EQ(options.producers, 4);
    EXPECT_EQ(options.queues, 3);
    EXPECT_EQ(options.messageBytes, 0);
    EXPECT_DOUBLE_EQ(options.durationSeconds, 2.5);
    EXPECT_EQ(options.batches, (std::vector<int>{5, 50}));
    EXPECT_EQ(options.scenarios, (std::vector<std::string>{"popack"}));
    EXPECT_EQ(options.maxMessagesPerScenario, 1000);
    EXPECT_EQ(options.prefill, 900);
    EXPECT_EQ(options.prefillMax, 5000);
    EXPECT_EQ(options.ioTimeoutSeconds, 7);
    EXPECT_EQ(options.maxLatencySamples, 10u);
    EXPECT_EQ(options.serverPid, 1234);
    EXPECT_EQ(options.jsonPath, "/tmp/r.json");
    EXPECT_EQ(options.queuePrefix, "x");
    EXPECT_TRUE(options.keepQueues);
}

TEST(AnchorOptions, RejectsBadInputWithTheFlagNamed) {
    EXPECT_EQ(parseError({"--port", "0"}), "invalid value for --port: '0'");
    EXPECT_EQ(parseError({"--port", "65536"}), "invalid value for --port: '65536'");
    EXPECT_EQ(parseError({"--duration", "-1"}), "invalid value for --duration: '-1'");
    EXPECT_EQ(parseError({"--duration", "3x"}), "invalid value for --duration: '3x'");
    // The batch is the prefetch count, a 16-bit field.
    EXPECT_EQ(parseError({"--batches", "1,65536"}), "invalid value for --batches: '1,65536'");
    EXPECT_EQ(parseError({"--batches", ""}), "invalid value for --batches: ''");
    EXPECT_EQ(parseError({"--scenario", "wake"}), "unknown scenario 'wake' (push, popack)");
    EXPECT_EQ(parseError({"--server-pid", "abc"}), "invalid value for --server-pid: 'abc'");
    EXPECT_EQ(parseError({"--json"}), "--json needs a value");
    EXPECT_EQ(parseError({"--bogus", "1"}), "unknown option --bogus");
    EXPECT_EQ(parseError({"--bogus"}), "unknown option --bogus");
    EXPECT_TRUE(parseAnchorOptions({"--help"}).helpRequested);
}

TEST(AnchorPrefill, DerivedLikeQueenBenchAndSplitRoundedUp) {
    AnchorOptions options;
    EXPECT_EQ(prefillCountFor(options, 1), 20'000);
    EXPECT_EQ(prefillCountFor(options, 10), 50'000);
    EXPECT_EQ(prefillCountFor(options, 100), 200'000);
    options.prefillMax = 10'000;
    EXPECT_EQ(prefillCountFor(options, 1), 10'000);
    options.prefill = 7;
    EXPECT_EQ(prefillCountFor(options, 100), 7);

    EXPECT_EQ(prefillPerQueue(20'000, 10), 2'000);
    EXPECT_EQ(prefillPerQueue(7, 10), 1);
    EXPECT_EQ(prefillPerQueue(21, 10), 3);
    EXPECT_EQ(prefillPerQueue(0, 10), 0);
    EXPECT_EQ(prefillPerQueue(5, 0), 0);
}

TEST(AnchorQueueRotation, KthBatchOfProducerIGoesToQueueIPlusKModQ) {
    EXPECT_EQ(queueForBatch(0, 0, 10), 0);
    EXPECT_EQ(queueForBatch(3, 0, 10), 3);
    EXPECT_EQ(queueForBatch(3, 9, 10), 2);
    EXPECT_EQ(queueForBatch(9, 1'000'000'000'001LL, 10), 0);
    EXPECT_EQ(queueName("anchor", "push", 10, "42", 3), "anchor-push-b10-42-q3");
}

TEST(AnchorConfirmTracker, SingleAndMultipleAcksInAnyOrder) {
    ConfirmTracker tracker;
    for (int i = 0; i < 5; ++i) tracker.published();
    EXPECT_EQ(tracker.outstanding(), 5u);
    tracker.acked(4, false);
    EXPECT_EQ(tracker.outstanding(), 4u);
    tracker.acked(3, true); // 1, 2, 3
    EXPECT_EQ(tracker.outstanding(), 1u);
    EXPECT_EQ(tracker.confirmedCount(), 4u);
    tracker.nacked(5, false);
    EXPECT_EQ(tracker.outstanding(), 0u);
    EXPECT_EQ(tracker.nackedCount(), 1u);
    EXPECT_EQ(tracker.confirmedCount(), 4u);
}

TEST(AnchorConfirmTracker, RepeatedOrUnknownTagsCountNothing) {
    ConfirmTracker tracker;
    EXPECT_EQ(tracker.published(), 1u);
    EXPECT_EQ(tracker.published(), 2u);
    tracker.acked(2, true);
    tracker.acked(2, true);
    tracker.acked(1, false);
    tracker.acked(99, false);
    EXPECT_EQ(tracker.confirmedCount(), 2u);
    EXPECT_EQ(tracker.published(), 3u); // tags keep counting up on the channel
    EXPECT_EQ(tracker.outstanding(), 1u);
}

TEST(AnchorProcessTree, SumsTheRootAndEveryDescendantOnly) {
    const std::vector<ProcessCpu> processes = {
        {1, 0, 1000},   // init: not part of the tree
        {100, 1, 50},   // beam.smp
        {101, 100, 7},  // erl_child_setup
        {102, 101, 3},  // inet_gethost, a grandchild
        {200, 1, 400},  // an unrelated process
        {201, 200, 9},
    };
    EXPECT_EQ(treeCpuTicks(processes, 100), 60u);
    EXPECT_EQ(treeCpuTicks(processes, 102), 3u);
    EXPECT_FALSE(treeCpuTicks(processes, 555).has_value());
}

TEST(AnchorProcessTree, StatLineWithSpacesAndParensInTheName) {
    // comm "(beam) x)" holds a space and a parenthesis; utime 11, stime 22, cutime 33, cstime 44.
    const std::string stat =
        "4242 ((beam) x)) S 4000 4242 4242 0 -1 4194560 100 0 0 0 11 22 33 44 20 0 30 0 123 456 789";
    const auto process = parseProcStat(4242, stat);
    ASSERT_TRUE(process.has_value());
    EXPECT_EQ(process->pid, 4242);
    EXPECT_EQ(process->parentPid, 4000);
    EXPECT_EQ(process->ticks, 110u);
    EXPECT_FALSE(parseProcStat(1, "4242 (beam) S 4000 1 2 3").has_value());  // cut short
    EXPECT_FALSE(parseProcStat(1, "4242 beam S 4000").has_value());           // no command name
    EXPECT_FALSE(parseProcStat(1, "4242 (b) S x 1 1 0 -1 0 0 0 0 0 1 2 3 4").has_value());
}

TEST(AnchorServerCpu, MicrosPerMessageOverTheWindow) {
    // 250 ticks at 100 Hz = 2.5 s of CPU over 10,000 messages = 250 us each.
    const auto cost = cpuMicrosPerMessage(1000, 1250, 100, 10'000);
    ASSERT_TRUE(cost.has_value());
    EXPECT_DOUBLE_EQ(*cost, 250.0);
    EXPECT_FALSE(cpuMicrosPerMessage(std::nullopt, 1250, 100, 10).has_value());
    EXPECT_FALSE(cpuMicrosPerMessage(1000, std::nullopt, 100, 10).has_value());
    EXPECT_FALSE(cpuMicrosPerMessage(1000, 1250, 100, 0).has_value());
    EXPECT_FALSE(cpuMicrosPerMessage(1250, 1000, 100, 10).has_value()); // the pid was reused
}

TEST(AnchorPercentile, NearestRankOfBatchRoundTrips) {
    const bench::LatencySummary summary = bench::summarize({4000, 1000, 3000, 2000, 100'000});
    EXPECT_DOUBLE_EQ(summary.p50Ms, 3.0);
    EXPECT_DOUBLE_EQ(summary.p99Ms, 100.0);
}

ScenarioResult sampleResult() {
    ScenarioResult result;
    result.scenario = kScenarioPopAck;
    result.batch = 10;
    result.consumers = 10;
    result.queues = 10;
    result.messages = 50'000;
    result.prefilled = 50'000;
    result.drained = true;
    result.elapsedSeconds = 2.0;
    result.messagesPerSecond = 25'000;
    result.latency.p50Ms = 0.5;
    result.latency.p99Ms = 2.25;
    result.serverCpuUsPerMessage = 41.5;
    return result;
}

TEST(AnchorOutput, LineCarriesRateLatencyAndServerCpu) {
    const std::string line = formatScenarioLine(sampleResult());
    EXPECT_NE(line.find("popack"), std::string::npos);
    EXPECT_NE(line.find("25000.0"), std::string::npos);
    EXPECT_NE(line.find("0.50"), std::string::npos);
    EXPECT_NE(line.find("2.25"), std::string::npos);
    EXPECT_NE(line.find("41.5"), std::string::npos);
    EXPECT_NE(line.find("(drained)"), std::string::npos);
    ScenarioResult unmeasured = sampleResult();
    unmeasured.serverCpuUsPerMessage.reset();
    unmeasured.drained = false;
    unmeasured.firstError = "boom";
    const std::string other = formatScenarioLine(unmeasured);
    EXPECT_NE(other.find(" -"), std::string::npos);
    EXPECT_NE(other.find("of 50000 pre-filled"), std::string::npos);
    EXPECT_NE(other.find("first error: boom"), std::string::npos);
}

TEST(AnchorOutput, JsonHasTheSameFigures) {
    AnchorOptions options;
    options.serverPid = 77;
    const auto document =
        nlohmann::json::parse(resultsToJson(options, "run1", "2024-01-01T00:00:00Z", "3.10.8", {sampleResult()}));
    EXPECT_EQ(document["broker"], "rabbitmq");
    EXPECT_EQ(document["serverVersion"], "3.10.8");
    EXPECT_EQ(document["conditions"]["queueType"], "quorum");
    EXPECT_EQ(document["conditions"]["serverPid"], 77);
    const auto& scenario = document["scenarios"][0];
    EXPECT_EQ(scenario["scenario"], "popack");
    EXPECT_EQ(scenario["batch"], 10);
    EXPECT_DOUBLE_EQ(scenario["messagesPerSecond"].get<double>(), 25'000);
    EXPECT_DOUBLE_EQ(scenario["latency"]["p99Ms"].get<double>(), 2.25);
    EXPECT_DOUBLE_EQ(scenario["serverCpuUsPerMessage"].get<double>(), 41.5);
    EXPECT_EQ(scenario["drained"], true);
    EXPECT_TRUE(scenario["firstError"].is_null());
}

} // namespace
} // namespace anchor
