// The stream scenario's wire steps (bench/wire.h): a tumbling one-second count as the SDKs build it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../options.h"
#include "../wire.h"

namespace bench {
namespace {

using nlohmann::json;

PoppedMessage message(const std::string& tx, const std::string& createdAt) {
    return PoppedMessage{tx, "pid-1", "lease-1", createdAt};
}

TEST(StreamWire, ACycleCountsIntoSecondsAndClosesEveryOlderWindow) {
    const std::string tag = std::string("tumb:1") + '\x1f';
    const std::vector<std::pair<std::string, std::int64_t>> state{{tag + "2026-12-02T17:20:04", 5}};
    const WindowCycle cycle = buildWindowCycle(
        "q-1", "streams.q", "sink",
        {message("t1", "2026-12-02T17:20:04.100000Z"), message("t2", "2026-12-02T17:20:05.000001Z"),
         message("t3", "2026-12-02T17:20:05.900000Z")},
        state);
    EXPECT_EQ(cycle.emits, 1);
    EXPECT_EQ(cycle.upserts, 1);
    const json body = json::parse(cycle.body);
    EXPECT_EQ(body["state_ops"], json::parse(R"([{"type":"delete","key":"tumb:1\u001f2026-12-02T17:20:04"},
        {"type":"upsert","key":"tumb:1\u001f2026-12-02T17:20:05","value":{"acc":{"count":2}}}])"));
    EXPECT_EQ(body["push_items"][0]["payload"], json::parse(R"({"window":"2026-12-02T17:20:04","count":6})"));
    EXPECT_EQ(body["ack"], json::parse(R"({"transactionId":"t3","leaseId":"lease-1","status":"completed","count":3})"));
    EXPECT_EQ(body["consumer_group"], "streams.q");
}

TEST(StreamWire, StateReadsAndAnswersAreParsed) {
    const auto counts = parseWindowCounts(
        R"({"success":true,"rows":[{"key":"a","value":{"acc":{"count":4}},"updated_at":"x"},{"key":"b","value":{}}]})");
    ASSERT_TRUE(counts);
    EXPECT_EQ(*counts, (std::vector<std::pair<std::string, std::int64_t>>{{"a", 4}, {"b", 0}}));
    EXPECT_FALSE(parseWindowCounts(R"({"success":false,"error":"x"})"));
    EXPECT_EQ(parseStreamQueryId(R"({"success":true,"query_id":"q-9"})"), std::optional<std::string>("q-9"));
    EXPECT_FALSE(parseStreamQueryId(R"({"success":false,"query_id":"q-9"})"));
    EXPECT_TRUE(cycleSucceeded(R"({"success":true})"));
    EXPECT_FALSE(cycleSucceeded(R"({"success":false,"error":"Invalid or expired lease"})"));
    EXPECT_EQ(json::parse(buildStateReadBody("q", "p")), json::parse(R"({"query_id":"q","partition_id":"p","keys":[]})"));
}

TEST(StreamWire, TheScenarioIsKnownToTheCommandLine) {
    const ParseResult parsed = parseBenchOptions({"--scenario", "stream"});
    ASSERT_TRUE(parsed.options) << parsed.error;
    EXPECT_EQ(parsed.options->scenarios, std::vector<std::string>{kScenarioStream});
}

}  // namespace
}  // namespace bench
