// Unit tests of the pure parts of queen-bench (no broker, no network).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../anchors.h"
#include "../cost_meter.h"
#include "../latency.h"
#include "../options.h"
#include "../proc_memory.h"
#include "../report.h"
#include "../scenarios.h"
#include "../steady.h"
#include "../wire.h"

namespace bench {
namespace {

using nlohmann::json;

TEST(Percentile, NearestRankOnKnownData) {
    std::vector<std::int64_t> ascending;
    for (int i = 1; i <= 100; ++i) ascending.push_back(i);
    EXPECT_EQ(percentileNearestRank(ascending, 50), 50);
    EXPECT_EQ(percentileNearestRank(ascending, 99), 99);
    EXPECT_EQ(percentileNearestRank(ascending, 100), 100);
    EXPECT_EQ(percentileNearestRank(ascending, 0.5), 1);
}

TEST(Percentile, SmallAndEmptyInputs) {
    EXPECT_EQ(percentileNearestRank({}, 50), 0);
    EXPECT_EQ(percentileNearestRank({7}, 99), 7);
    // Two samples: p50 is the first (1 of 2 samples is <= it), p99 the second.
    EXPECT_EQ(percentileNearestRank({3, 9}, 50), 3);
    EXPECT_EQ(percentileNearestRank({3, 9}, 99), 9);
}

TEST(Summarize, SortsAndConvertsToMilliseconds) {
    const LatencySummary summary = summarize({5000, 1000, 3000, 2000, 4000});
    EXPECT_EQ(summary.count, 5u);
    EXPECT_DOUBLE_EQ(summary.p50Ms, 3.0);
    EXPECT_DOUBLE_EQ(summary.p99Ms, 5.0);
    EXPECT_DOUBLE_EQ(summary.maxMs, 5.0);
}

TEST(LatencySamples, KeepsAtMostCapacityAndCountsTheRest) {
    LatencySamples samples(3);
    for (int i = 0; i < 5; ++i) samples.record(i);
    EXPECT_EQ(samples.kept().size(), 3u);
    EXPECT_EQ(samples.dropped(), 2u);

    LatencySamples merged(4);
    merged.absorb(std::move(samples));
    LatencySamples more(10);
    more.record(10);
    more.record(11);
    merged.absorb(std::move(more));
    EXPECT_EQ(merged.kept().size(), 4u);
    EXPECT_EQ(merged.dropped(), 3u); // 2 carried over + 1 over the merged capacity
}

TEST(Options, DefaultsMatchTheIssue) {
    const ParseResult parsed = parseBenchOptions({});
    ASSERT_TRUE(parsed.options);
    EXPECT_EQ(parsed.options->connections, 10);
    EXPECT_EQ(parsed.options->partitions, 10);
    EXPECT_EQ(parsed.options->batches, (std::vector<int>{1, 10, 100}));
    EXPECT_EQ(parsed.options->scenarios, (std::vector<std::string>{"push", "popack", "wake"})); // no anchors, no steady
}

TEST(Options, ParsesEveryKindOfFlag) {
    const ParseResult parsed = parseBenchOptions({"--url", "http://127.0.0.1:7000", "--connections", "4", "--batches",
                                                  "5,50", "--duration", "2.5", "--scenario", "push,wake", "--label",
                                                  "fsync=on", "--keep-queues", "--broker-pid", "1234"});
    ASSERT_TRUE(parsed.options) << parsed.error;
    const BenchOptions& options = *parsed.options;
    EXPECT_EQ(options.url, "http://127.0.0.1:7000");
    EXPECT_EQ(options.connections, 4);
    EXPECT_EQ(options.batches, (std::vector<int>{5, 50}));
    EXPECT_DOUBLE_EQ(options.durationSeconds, 2.5);
    EXPECT_EQ(options.scenarios, (std::vector<std::string>{"push", "wake"}));
    EXPECT_EQ(options.labels.at("fsync"), "on");
    EXPECT_TRUE(options.keepQueues);
    EXPECT_EQ(options.brokerPid, 1234);
}

TEST(Options, RejectsInvalidInput) {
    EXPECT_FALSE(parseBenchOptions({"--connections", "0"}).options);
    EXPECT_FALSE(parseBenchOptions({"--connections", "ten"}).options);
    EXPECT_FALSE(parseBenchOptions({"--batches", "1,,100"}).options);
    EXPECT_FALSE(parseBenchOptions({"--duration", "-1"}).options);
    EXPECT_FALSE(parseBenchOptions({"--scenario", "push,bogus"}).options);
    EXPECT_FALSE(parseBenchOptions({"--url", "ftp://x"}).options);
    EXPECT_FALSE(parseBenchOptions({"--label", "=x"}).options);
    EXPECT_FALSE(parseBenchOptions({"--partitions"}).options);
    const ParseResult unknown = parseBenchOptions({"--frobnicate", "1"});
    EXPECT_FALSE(unknown.options);
    EXPECT_NE(unknown.error.find("--frobnicate"), std::string::npos);
    EXPECT_TRUE(parseBenchOptions({"--help"}).helpRequested);
}

TEST(Options, PopAckQueueNamesAnExistingQueue) {
    EXPECT_TRUE(parseBenchOptions({}).options->popackQueue.empty());
    const ParseResult parsed = parseBenchOptions({"--popack-queue", "bench-history-hot"});
    ASSERT_TRUE(parsed.options) << parsed.error;
    EXPECT_EQ(parsed.options->popackQueue, "bench-history-hot");
    EXPECT_FALSE(parseBenchOptions({"--popack-queue", ""}).options);
}

TEST(Options, PrefillDerivedFromBatchWithinBounds) {
    BenchOptions options;
    EXPECT_EQ(prefillCountFor(options, 1), 20'000);
    EXPECT_EQ(prefillCountFor(options, 10), 50'000);
    EXPECT_EQ(prefillCountFor(options, 100), 200'000);
    EXPECT_EQ(prefillCountFor(options, 1000), 200'000);
    options.prefillMax = 5'000;
    EXPECT_EQ(prefillCountFor(options, 100), 5'000);
    options.prefill = 777;
    EXPECT_EQ(prefillCountFor(options, 100), 777);
}

TEST(Wire, PushBodyHasOneItemPerMessageWithUniqueTransactionIds) {
    PushBatchSpec spec;
    spec.queue = "q\"x";
    spec.partition = partitionName(3);
    spec.txPrefix = "c2";
    spec.firstSequence = 40;
    spec.count = 3;
    spec.payloadBytes = 5;
    const json body = json::parse(buildPushBody(spec));
    ASSERT_EQ(body["items"].size(), 3u);
    EXPECT_EQ(body["items"][0]["queue"], "q\"x");
    EXPECT_EQ(body["items"][0]["partition"], "p3");
    EXPECT_EQ(body["items"][0]["transactionId"], "c2-40");
    EXPECT_EQ(body["items"][2]["transactionId"], "c2-42");
    EXPECT_EQ(body["items"][1]["payload"]["seq"], 41);
    EXPECT_EQ(body["items"][1]["payload"]["fill"], "xxxxx");
}

TEST(Wire, CountsPushStatusesOfEveryKind) {
    const std::string body = R"([{"index":0,"status":"queued","transactionId":"a"},
        {"index":1, "status" : "duplicate"}, {"status":"buffered"}, {"status":"failed","error":"x"},
        {"status":"weird"}, {"status": 3}])";
    const PushStatusCounts counts = countPushStatuses(body);
    EXPECT_EQ(counts.queued, 1);
    EXPECT_EQ(counts.duplicate, 1);
    EXPECT_EQ(counts.buffered, 1);
    EXPECT_EQ(counts.failed, 1);
    EXPECT_EQ(counts.other, 2);
    EXPECT_EQ(counts.total(), 6);
}

TEST(Wire, StatusAsAValueOrInsideAStringIsNotAnItem) {
    const std::string body = R"([{"status":"queued","note":"status","error":"said \"status\": \"queued\""}])";
    const PushStatusCounts counts = countPushStatuses(body);
    EXPECT_EQ(counts.queued, 1);
    EXPECT_EQ(counts.total(), 1);
    EXPECT_EQ(countPushStatuses(R"({"error":"Queue must be a string"})").total(), 0);
}

TEST(Wire, ParsesPopMessagesAndBuildsTheAck) {
    const std::string pop = R"({"success":true,"leaseId":"L","messages":[
        {"id":"1","transactionId":"t1","partitionId":"P1","leaseId":"L","data":{}},
        {"id":"2","transactionId":"t2","partitionId":"P2","leaseId":"","data":{}}]})";
    const auto messages = parsePopMessages(pop);
    ASSERT_TRUE(messages);
    ASSERT_EQ(messages->size(), 2u);
    EXPECT_EQ((*messages)[1].partitionId, "P2");

    const json ack = json::parse(buildAckBatchBody(*messages));
    EXPECT_TRUE(ack["consumerGroup"].is_null());
    ASSERT_EQ(ack["acknowledgments"].size(), 2u);
    EXPECT_EQ(ack["acknowledgments"][0]["transactionId"], "t1");
    EXPECT_EQ(ack["acknowledgments"][0]["leaseId"], "L");
    EXPECT_EQ(ack["acknowledgments"][0]["status"], "completed");
    EXPECT_FALSE(ack["acknowledgments"][1].contains("leaseId")); // empty lease (autoAck) is not sent
}

TEST(Wire, RejectsBodiesThatAreNotPopAnswers) {
    EXPECT_FALSE(parsePopMessages(""));
    EXPECT_FALSE(parsePopMessages("[]"));
    EXPECT_FALSE(parsePopMessages(R"({"messages":[{"id":"1"}]})")); // no transactionId/partitionId
    const auto empty = parsePopMessages(R"({"messages":[]})");
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());
}

TEST(Wire, CountsAckSuccesses) {
    EXPECT_EQ(countAckSuccesses(R"([{"success":true},{"success":false,"error":"x"},{"success":true}])"), 2);
    EXPECT_EQ(countAckSuccesses("[]"), 0);
    EXPECT_FALSE(countAckSuccesses(R"({"error":"boom"})"));
}

TEST(Wire, EncodesPathSegments) {
    EXPECT_EQ(encodePathSegment("bench-push_b1.x~"), "bench-push_b1.x~");
    EXPECT_EQ(encodePathSegment("a b/c"), "a%20b%2Fc");
}

TEST(ProcMemory, ReadsKilobyteFields) {
    const std::string status = "Name:\tqueen-broker\nVmPeak:\t  900 kB\nVmHWM:\t   51234 kB\nVmRSS:\t   40000 kB\n";
    EXPECT_EQ(statusFieldKb(status, "VmHWM"), 51234);
    EXPECT_EQ(statusFieldKb(status, "VmRSS"), 40000);
    EXPECT_FALSE(statusFieldKb(status, "VmSwap"));
    EXPECT_FALSE(statusFieldKb(status, "Vm")); // a prefix of a field name is not that field
}

TEST(ProcMemory, ReadsThisProcess) {
    const auto memory = readProcessMemory(static_cast<int>(getpid()));
    ASSERT_TRUE(memory);
    EXPECT_GT(memory->peakRssKb, 0);
    EXPECT_GE(memory->peakRssKb, memory->currentRssKb);
}

TEST(ProcMemory, PeakResetLeavesAPeakNotBelowTheCurrentRss) {
    const int self = static_cast<int>(getpid());
    if (!resetPeakRss(self)) GTEST_SKIP() << "/proc/self/clear_refs is not writable here";
    const auto memory = readProcessMemory(self);
    ASSERT_TRUE(memory);
    EXPECT_GE(memory->peakRssKb, memory->currentRssKb);
}

// A /proc/<pid>/stat line: after the command, state ppid pgrp session tty tpgid flags minflt cminflt
// majflt cmajflt utime stime cutime cstime ...
constexpr const char* kStat =
    "4321 (queen broker) S 77 4321 4321 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 4 0 123 456 789";

TEST(CostMeter, StatCpuTicksSumsUserAndSystemTime) {
    EXPECT_EQ(statCpuTicks(kStat, false), 300u);
    EXPECT_EQ(statCpuTicks(kStat, true), 310u); // with the reaped children's 7 + 3
}

TEST(CostMeter, StatParsingSurvivesParenthesesAndSpacesInTheCommand) {
    const std::string odd = "99 (a) (b c)) R 1 99 99 0 -1 0 0 0 0 0 11 22 33 44 20 0";
    EXPECT_EQ(statParentPid(odd), 1);
    EXPECT_EQ(statCpuTicks(odd, false), 33u);
    EXPECT_EQ(statCpuTicks(odd, true), 110u);
    EXPECT_EQ(statParentPid(kStat), 77);
}

TEST(CostMeter, StatParsingRejectsTruncatedText) {
    EXPECT_FALSE(statCpuTicks("", false));
    EXPECT_FALSE(statCpuTicks("12 (x", false));
    EXPECT_FALSE(statCpuTicks("12 (x) S 1 12 12 0 -1 0 0 0 0 0 5", false)); // no stime
    EXPECT_FALSE(statCpuTicks("12 (x) S 1 12 12 0 -1 0 0 0 0 0 5 6", true)); // no cutime
    EXPECT_FALSE(statParentPid("12 (x)"));
    EXPECT_FALSE(statParentPid("12 (x) S"));
}

TEST(CostMeter, ReadsThisProcessFromProc) {
    std::ifstream file("/proc/self/stat");
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(statParentPid(text.str()), static_cast<int>(getppid()));
    EXPECT_TRUE(statCpuTicks(text.str(), true));
}

TEST(CostMeter, CostPerMessageDividesTheDifferences) {
    CostSample before;
    before.brokerCpuSeconds = 1.0;
    before.postgresCpuSeconds = 10.0;
    before.walBytes = 1'000;
    before.hasBroker = before.hasPostgres = before.hasWal = true;
    CostSample after = before;
    after.brokerCpuSeconds = 1.5;   // 0.5 s over 1000 messages: 500 us each
    after.postgresCpuSeconds = 12.0; // 2 s: 2000 us each
    after.walBytes = 401'000;        // 400 B each
    const MessageCost cost = costPerMessage(before, after, 1'000);
    EXPECT_DOUBLE_EQ(*cost.brokerUsPerMessage, 500.0);
    EXPECT_DOUBLE_EQ(*cost.postgresUsPerMessage, 2'000.0);
    EXPECT_DOUBLE_EQ(*cost.walBytesPerMessage, 400.0);
}

TEST(CostMeter, CostPerMessageLeavesOutWhatWasNotMeasured) {
    CostSample before;
    CostSample after;
    after.hasBroker = true;
    EXPECT_FALSE(costPerMessage(before, after, 10).brokerUsPerMessage); // one side only
    before.hasBroker = true;
    EXPECT_TRUE(costPerMessage(before, after, 10).brokerUsPerMessage);
    EXPECT_FALSE(costPerMessage(before, after, 10).postgresUsPerMessage);
    EXPECT_FALSE(costPerMessage(before, after, 0).brokerUsPerMessage); // no messages: no figure
    // WAL without the cluster's CPU (PostgreSQL on another machine) is still a figure.
    before.hasWal = after.hasWal = true;
    before.walBytes = 100;
    after.walBytes = 300;
    EXPECT_DOUBLE_EQ(*costPerMessage(before, after, 2).walBytesPerMessage, 100.0);
    EXPECT_FALSE(costPerMessage(before, after, 2).postgresUsPerMessage);
    after.walBytes = 50; // went backwards: not one cluster
    EXPECT_FALSE(costPerMessage(before, after, 2).walBytesPerMessage);
}

TEST(Options, AnchorsJoinTheDefaultListWithARawDatabase) {
    const ParseResult parsed = parseBenchOptions({"--raw-pg-url", "postgresql://u@h/raw", "--pg-url", "postgresql://u@h/q"});
    ASSERT_TRUE(parsed.options) << parsed.error;
    EXPECT_EQ(parsed.options->scenarios,
              (std::vector<std::string>{"push", "popack", "wake", "raw-push", "raw-lease"}));
    EXPECT_EQ(parsed.options->rawPostgresUrl, "postgresql://u@h/raw");
    EXPECT_EQ(parsed.options->postgresUrl, "postgresql://u@h/q");
    // An explicit list is kept as given.
    const ParseResult pushOnly = parseBenchOptions({"--raw-pg-url", "postgresql://u@h/raw", "--scenario", "push"});
    ASSERT_TRUE(pushOnly.options);
    EXPECT_EQ(pushOnly.options->scenarios, (std::vector<std::string>{"push"}));
}

TEST(Options, AnchorsNeedARawDatabase) {
    const ParseResult parsed = parseBenchOptions({"--scenario", "raw-push"});
    EXPECT_FALSE(parsed.options);
    EXPECT_NE(parsed.error.find("--raw-pg-url"), std::string::npos);
    EXPECT_FALSE(parseBenchOptions({"--raw-pg-url", ""}).options);
}

TEST(Options, SteadyRounds) {
    const ParseResult defaults = parseBenchOptions({});
    EXPECT_DOUBLE_EQ(defaults.options->steadyRoundSeconds, 10.0);
    EXPECT_EQ(defaults.options->steadyRounds, 10);
    const ParseResult parsed =
        parseBenchOptions({"--scenario", "steady", "--steady-round-seconds", "4", "--steady-rounds", "3"});
    ASSERT_TRUE(parsed.options) << parsed.error;
    EXPECT_EQ(parsed.options->scenarios, (std::vector<std::string>{"steady"}));
    EXPECT_DOUBLE_EQ(parsed.options->steadyRoundSeconds, 4.0);
    EXPECT_EQ(parsed.options->steadyRounds, 3);
    EXPECT_FALSE(parseBenchOptions({"--steady-round-seconds", "0"}).options);
    EXPECT_FALSE(parseBenchOptions({"--steady-rounds", "1"}).options); // a spread needs two rounds
}

TEST(Anchors, PushItemsCarryThePushScenariosPayloadAndTransactionIds) {
    const json items = json::parse(rawPushItemsJson("run-raw-c3", 20, 2, 4));
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[0]["transactionId"], "run-raw-c3-20");
    EXPECT_EQ(items[1]["transactionId"], "run-raw-c3-21");
    // The same payload as the push scenario's items (wire.h).
    PushBatchSpec spec;
    spec.firstSequence = 21;
    spec.count = 1;
    spec.payloadBytes = 4;
    EXPECT_EQ(items[1]["payload"], json::parse(buildPushBody(spec))["items"][0]["payload"]);
}

TEST(Anchors, PartitionIdsAndArrayLiterals) {
    EXPECT_EQ(rawPartitionId(0), "00000000-0000-7000-8000-000000000000");
    EXPECT_EQ(rawPartitionId(12), "00000000-0000-7000-8000-000000000012");
    EXPECT_EQ(bigintArrayLiteral({}), "{}");
    EXPECT_EQ(bigintArrayLiteral({7, -1, 30}), "{7,-1,30}");
}

TEST(Anchors, LeasePrefillOutlastsTheDurationWithinTheCountBound) {
    BenchOptions options;
    options.durationSeconds = 10;
    EXPECT_EQ(rawLeasePrefillFor(options, 1), 50'000);    // the floor
    EXPECT_EQ(rawLeasePrefillFor(options, 10), 500'000);  // 5,000 msg/s per batch item
    EXPECT_EQ(rawLeasePrefillFor(options, 100), 600'000); // capped at 60,000 msg/s
    options.maxMessagesPerScenario = 30'000;
    EXPECT_EQ(rawLeasePrefillFor(options, 100), 30'000);
}

TEST(Anchors, ComparisonIsOursOverTheAnchors) {
    ScenarioResult anchor;
    anchor.scenario = "raw-push";
    anchor.messagesPerSecond = 20'000;
    anchor.cost.postgresUsPerMessage = 50.0;
    ScenarioResult ours;
    ours.messagesPerSecond = 16'800;
    ours.cost.postgresUsPerMessage = 75.0;
    ours.cost.walBytesPerMessage = 300.0; // the anchor has no WAL figure: no ratio
    const AnchorComparison comparison = compareWithAnchor(ours, anchor);
    EXPECT_EQ(comparison.scenario, "raw-push");
    EXPECT_DOUBLE_EQ(comparison.ratio, 0.84);
    EXPECT_DOUBLE_EQ(*comparison.postgresCpuRatio, 1.5);
    EXPECT_FALSE(comparison.walRatio);
    anchor.messagesPerSecond = 0; // a failed anchor
    EXPECT_DOUBLE_EQ(compareWithAnchor(ours, anchor).ratio, 0.0);
}

TEST(Steady, SpreadIsFastestOverSlowest) {
    const Spread spread = spreadOf({900, 1200, 1000}, kSteadyTarget);
    EXPECT_DOUBLE_EQ(spread.highest, 1200);
    EXPECT_DOUBLE_EQ(spread.lowest, 900);
    EXPECT_NEAR(spread.ratio, 1.3333, 1e-3);
    EXPECT_TRUE(spread.pass);
    EXPECT_FALSE(spreadOf({400, 1000}, kSteadyTarget).pass); // 2.5
    EXPECT_TRUE(std::isinf(spreadOf({0, 1000}, kSteadyTarget).ratio));
    EXPECT_FALSE(spreadOf({}, kSteadyTarget).pass);
    EXPECT_DOUBLE_EQ(spreadOf({500}, kSteadyTarget).ratio, 1.0);
}

TEST(Steady, CpuPerMessageNeedsBothSides) {
    MessageCost cost;
    cost.brokerUsPerMessage = 50.0;
    EXPECT_FALSE(cpuPerMessage(cost));
    cost.postgresUsPerMessage = 150.0;
    EXPECT_DOUBLE_EQ(*cpuPerMessage(cost), 200.0);
}

std::vector<std::string> columnsOf(const std::string& line) {
    std::istringstream words(line);
    return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
}

TEST(Report, ScenarioLineCarriesCostAndTheAnchorRatio) {
    ScenarioResult result;
    result.scenario = "push";
    result.batch = 10;
    result.messagesPerSecond = 7000;
    result.cost.brokerUsPerMessage = 95.14;
    result.cost.postgresUsPerMessage = 120.26;
    result.cost.walBytesPerMessage = 450.4;
    result.anchor = AnchorComparison{"raw-push", 8333, 0.84, std::nullopt, std::nullopt};
    const std::vector<std::string> columns = columnsOf(formatScenarioLine(result));
    const std::vector<std::string> titles = columnsOf(formatColumnTitles());
    ASSERT_EQ(columns.size(), titles.size() + 1) << formatScenarioLine(result); // "0.84x raw" is two words
    EXPECT_EQ(titles[10], "broker_us");
    EXPECT_EQ(columns[10], "95.1");
    EXPECT_EQ(columns[11], "120.3");
    EXPECT_EQ(columns[12], "450");
    EXPECT_EQ(columns[13], "0.84x");
    EXPECT_EQ(columns[14], "raw");
}

TEST(Report, EndToEndAddsPushAndPopAckFigureByFigure) {
    const MessageCost push{10.5, 30.2, 120.0};
    const MessageCost popAck{15.0, 40.0, 80.0};
    EXPECT_EQ(formatEndToEndLine(100, push, popAck),
              "end-to-end b100: broker 25.5 + pg 70.2 = 95.7 us/msg, wal 200 B/msg (push + pop+ack)");
    const MessageCost noPostgres{12.0, std::nullopt, std::nullopt};
    const MessageCost sum = endToEndCost(noPostgres, popAck);
    EXPECT_DOUBLE_EQ(*sum.brokerUsPerMessage, 27.0);
    EXPECT_FALSE(sum.postgresUsPerMessage.has_value());
    EXPECT_FALSE(sum.walBytesPerMessage.has_value());
    EXPECT_EQ(formatEndToEndLine(1, noPostgres, popAck),
              "end-to-end b1: broker 27.0 + pg - = - us/msg, wal - B/msg (push + pop+ack)");
}

TEST(Report, UnmeasuredCostsAndAnAnchorsOwnLineShowDashes) {
    ScenarioResult result;
    result.scenario = "raw-lease";
    result.batch = 100;
    result.messagesPerSecond = 20000;
    result.cost.postgresUsPerMessage = 40.0;
    const std::vector<std::string> columns = columnsOf(formatScenarioLine(result));
    ASSERT_EQ(columns.size(), columnsOf(formatColumnTitles()).size());
    EXPECT_EQ(columns[0], "raw-lease");
    EXPECT_EQ(columns[10], "-");     // no broker in an anchor
    EXPECT_EQ(columns[11], "40.0");
    EXPECT_EQ(columns[12], "-");
    EXPECT_EQ(columns.back(), "-");  // an anchor has no anchor
}

TEST(Report, JsonCarriesCostAnchorAndSteady) {
    BenchOptions options;
    RunConditions conditions;
    ScenarioResult push;
    push.scenario = "push";
    push.batch = 100;
    push.cost.walBytesPerMessage = 321.0;
    push.anchor = AnchorComparison{"raw-push", 30000, 0.5, 2.0, std::nullopt};
    SteadyResult steady;
    SteadyRound round;
    round.round = 1;
    round.push.messagesPerSecond = 5000;
    steady.rounds.push_back(round);
    steady.push = spreadOf({5000, 4000}, kSteadyTarget);
    steady.popAck = spreadOf({0, 4000}, kSteadyTarget);
    const json document = json::parse(resultsToJson(options, conditions, {push}, std::nullopt, steady));
    const json& scenario = document["scenarios"][0];
    EXPECT_DOUBLE_EQ(scenario["cost"]["walBytesPerMessage"].get<double>(), 321.0);
    EXPECT_TRUE(scenario["cost"]["brokerUsPerMessage"].is_null());
    EXPECT_EQ(scenario["anchor"]["scenario"], "raw-push");
    EXPECT_DOUBLE_EQ(scenario["anchor"]["ratio"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(scenario["anchor"]["postgresCpuRatio"].get<double>(), 2.0);
    EXPECT_FALSE(scenario.contains("reference"));
    EXPECT_DOUBLE_EQ(document["steady"]["push"]["fastestOverSlowest"].get<double>(), 1.25);
    EXPECT_TRUE(document["steady"]["push"]["pass"].get<bool>());
    EXPECT_TRUE(document["steady"]["popAck"]["fastestOverSlowest"].is_null()); // infinite
    EXPECT_FALSE(document["steady"]["popAck"]["pass"].get<bool>());
    EXPECT_TRUE(document["steady"]["pushCpu"].is_null());
    EXPECT_EQ(document["steady"]["rounds"][0]["round"], 1);
    EXPECT_FALSE(json::parse(resultsToJson(options, conditions, {push}, std::nullopt)).contains("steady"));
}

TEST(Report, SteadySummarySaysPassOrOver) {
    SteadyResult steady;
    steady.push = spreadOf({1000, 900}, kSteadyTarget);
    steady.popAck = spreadOf({1000, 500}, kSteadyTarget);
    std::string summary = formatSteadySummary(steady);
    EXPECT_NE(summary.find("1.11 (1000.0 / 900.0 msg/s) PASS"), std::string::npos) << summary;
    EXPECT_NE(summary.find("2.00 (1000.0 / 500.0 msg/s) OVER"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("cpu/msg"), std::string::npos); // not measured: not printed
    steady.pushCpu = spreadOf({210, 200}, kSteadyTarget);
    summary = formatSteadySummary(steady);
    EXPECT_NE(summary.find("cpu/msg dearest/cheapest 1.05 (210.0 / 200.0 us/msg) PASS"), std::string::npos) << summary;
}

} // namespace
} // namespace bench
