// Unit tests of the pure parts of queen-bench (no broker, no network).
#include <gtest/gtest.h>
#include <unistd.h>

#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../latency.h"
#include "../options.h"
#include "../proc_memory.h"
#include "../reference.h"
#include "../report.h"
#include "../scenarios.h"
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
    EXPECT_EQ(parsed.options->scenarios.size(), 3u);
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

TEST(Reference, FiguresOfPushAndPopAckAtTheThreeBatchSizes) {
    EXPECT_DOUBLE_EQ(referenceFor("push", 1)->queenMessagesPerSecond, 900);
    EXPECT_DOUBLE_EQ(referenceFor("push", 100)->targetMessagesPerSecond, 26'000);  // 85% of raw PostgreSQL
    EXPECT_DOUBLE_EQ(referenceFor("popack", 10)->targetMessagesPerSecond, 5'000);   // twice the reference
    EXPECT_FALSE(referenceFor("push", 5));
    EXPECT_FALSE(referenceFor("wake", 1));
}

TEST(Report, ScenarioLineCarriesTheReferenceBesideOurs) {
    ScenarioResult result;
    result.scenario = "push";
    result.batch = 10;
    result.messagesPerSecond = 7000;
    const std::string line = formatScenarioLine(result);
    EXPECT_NE(line.find("6.3k"), std::string::npos) << line;
    EXPECT_NE(line.find("12.6k"), std::string::npos) << line;
    result.scenario = "wake";  // no reference: the last two columns are "-"
    std::istringstream words(formatScenarioLine(result));
    std::vector<std::string> columns{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    ASSERT_GE(columns.size(), 2u);
    EXPECT_EQ(columns[columns.size() - 2], "-");
    EXPECT_EQ(columns.back(), "-");
}

} // namespace
} // namespace bench
