// Command-line options of queen-bench and their parsing (pure, unit tested).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench {

// Scenario names accepted by --scenario.
inline constexpr const char* kScenarioPush = "push";
inline constexpr const char* kScenarioPopAck = "popack";
inline constexpr const char* kScenarioWake = "wake";
// Raw-PostgreSQL anchors of push and pop+ack (anchors.h); in the default list when --raw-pg-url is given.
inline constexpr const char* kScenarioRawPush = "raw-push";
inline constexpr const char* kScenarioRawLease = "raw-lease";
// Ten push-then-pop+ack rounds on one queue (steady.h); only when asked for.
inline constexpr const char* kScenarioSteady = "steady";
// How cost grows (growth.h) and latency under an open-loop load (open_loop.h); only when asked for.
inline constexpr const char* kScenarioGrowPartitions = "grow-partitions";
inline constexpr const char* kScenarioGrowGroups = "grow-groups";
inline constexpr const char* kScenarioGrowPayload = "grow-payload";
inline constexpr const char* kScenarioGrowBrokers = "grow-brokers";
inline constexpr const char* kScenarioLatency = "latency";
// A stream query (tumbling one-second count) run as the stream SDKs run it, at batch 100 (streams.cpp).
inline constexpr const char* kScenarioStream = "stream";
inline constexpr int kStreamBatch = 100;

struct BenchOptions {
    std::string url = "http://127.0.0.1:6632";
    // --consumer-url: where the wake scenario parks its long poll; a mesh peer
    // of --url measures the cross-broker wake (push on one broker, pop on the
    // other). Empty: the same broker.
    std::string consumerUrl;
    int connections = 10;
    int partitions = 10;
    double durationSeconds = 10.0;           // wall-clock bound of each push / pop+ack scenario
    std::vector<int> batches = {1, 10, 100}; // one push and one pop+ack scenario per batch size
    std::vector<std::string> scenarios = {kScenarioPush, kScenarioPopAck, kScenarioWake};
    std::string jsonPath;                    // empty: no JSON file

    // Count bounds: a scenario also stops after this many messages, whatever the duration.
    std::int64_t maxMessagesPerScenario = 5'000'000;
    // Messages pre-filled before each pop+ack scenario; 0 = derived from the batch size
    // (see prefillCountFor).
    std::int64_t prefill = 0;
    std::int64_t prefillMax = 200'000;

    int payloadBytes = 64;                   // size of the filler string inside each payload
    int wakeIterations = 50;
    int wakeSettleMs = 50;                   // pause between the long poll being sent and the push
    int wakeTimeoutMs = 5000;                // long-poll timeout asked of the broker
    int httpTimeoutSeconds = 30;             // socket timeout of every non-long-poll request
    std::size_t maxLatencySamples = 2'000'000; // per scenario, across all connections
    int brokerPid = 0;                       // 0: peak RSS not reported
    // --pg-url: libpq URL of the broker's database; every scenario then prints PostgreSQL CPU and
    // WAL bytes per message (cost_meter.h). Empty: not measured.
    std::string postgresUrl;
    // --raw-pg-url: libpq URL of a scratch database in the same cluster, where the raw-push and
    // raw-lease anchors create, fill and drop their own tables. Empty: no anchors.
    std::string rawPostgresUrl;
    double steadyRoundSeconds = 10.0;        // one steady round: half pushing, half pop+acking
    int steadyRounds = 10;
    std::string queuePrefix = "bench";
    // --popack-queue: pop+ack consumes this existing queue (pre-filled into its partitions p0..pP-1)
    // instead of a fresh one, and neither configures nor deletes it: the history scenario's queue
    // with thousands of consumed partitions. Empty: a fresh queue per batch size.
    std::string popackQueue;
    // Growth scenarios (growth.h) and the open-loop latency scenario (open_loop.h).
    double growthSeconds = 5.0;              // one measured window of a growth step or a latency phase
    std::vector<int> growthPartitions = {10, 1'000, 100'000};
    std::vector<int> growthGroups = {1, 10, 50};
    std::vector<int> growthPayloads = {100, 65'536, 1'048'576}; // filler bytes
    std::int64_t growthFill = 20'000;        // messages pre-filled for a growth step's pop+ack
    // --extra-url / --extra-broker-pid: more brokers on the same database (grow-brokers).
    std::vector<std::string> extraUrls;
    std::vector<int> extraBrokerPids;
    std::vector<int> latencyPercents = {50, 90}; // open-loop arrival rates, % of the capacity just measured
    int latencyConnections = 32;             // connections that send the scheduled requests
    bool keepQueues = false;                 // false: delete the queues a scenario created
    std::map<std::string, std::string> labels; // free-form conditions printed in the header
};

struct ParseResult {
    std::optional<BenchOptions> options; // set on success
    std::string error;                   // set on failure
    bool helpRequested = false;
};

// Parses argv[1..] (without the program name). Unknown flags and invalid values are errors.
ParseResult parseBenchOptions(const std::vector<std::string>& args);

// "1,10,100" -> {1,10,100}; nullopt on an empty list, a non-number or a value < 1.
std::optional<std::vector<int>> parsePositiveIntList(const std::string& text);
// The same within [low, high].
std::optional<std::vector<int>> parseBoundedIntList(const std::string& text, std::int64_t low, std::int64_t high);

// How many messages a pop+ack scenario pre-fills: the explicit --prefill if given, otherwise
// batch * 5000 clamped to [20000, prefillMax] so that small batches do not wait for a huge
// pre-fill they cannot consume within the duration.
std::int64_t prefillCountFor(const BenchOptions& options, int batch);
// The same rule on its two inputs: also the RabbitMQ anchor's pre-fill, so both load the same way.
std::int64_t prefillCount(std::int64_t prefill, std::int64_t prefillMax, int batch);

// Flag-value parsing shared by queen-bench and the RabbitMQ anchor.
// A whole decimal integer within [low, high].
bool parseBoundedInt(const std::string& text, std::int64_t low, std::int64_t high, std::int64_t& out);
// A whole decimal number > 0.
bool parsePositiveDouble(const std::string& text, double& out);
// "a,b,c" -> {"a","b","c"}.
std::vector<std::string> splitComma(const std::string& text);

std::string usageText();

} // namespace bench
