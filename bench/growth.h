// How cost grows: the same push and pop+ack work (batch kGrowthBatch) while one dimension grows,
// each step printed with msg/s and CPU and WAL per message so the curve is visible, and the
// dearest-to-cheapest ratio of the last step over the first at the end:
//   grow-partitions  partitions of one queue (10 -> 1,000 -> 100,000), pre-created before the window;
//   grow-groups      consumer groups on one queue (1 -> 10 -> 50), every message consumed by each group;
//   grow-payload     payload size (100 B -> 64 KiB -> 1 MiB), incompressible filler, at most 1 MiB per request;
//   grow-brokers     brokers on one database (1 -> 1 + --extra-url count), connections spread over them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker_client.h"
#include "cost_meter.h"
#include "loads.h"
#include "options.h"
#include "scenarios.h"

namespace bench {

inline constexpr int kGrowthBatch = 10;

struct GrowthStep {
    int value = 0;                     // partitions, groups, payload bytes or brokers
    std::vector<ScenarioResult> lines; // push then pop+ack (grow-groups: pop+ack only)
};

// One line kind (e.g. parts-push) of the last step against the first.
struct GrowthRatio {
    std::string line;
    int firstValue = 0;
    int lastValue = 0;
    std::optional<double> firstCpuUs; // broker + PostgreSQL CPU per message
    std::optional<double> lastCpuUs;
    std::optional<double> cpuRatio;   // last / first
    std::optional<double> firstWalBytes;
    std::optional<double> lastWalBytes;
    std::optional<double> walRatio;
};

struct GrowthResult {
    std::string scenario;  // grow-partitions, ...
    std::string parameter; // what grows: partitions, groups, payload bytes, brokers
    std::vector<GrowthStep> steps;
    std::vector<GrowthRatio> ratios;
};

// Pure: one ratio per line kind present in both the first and the last step.
std::vector<GrowthRatio> growthRatios(const std::vector<GrowthStep>& steps);
// Pure: partitions that receive a grow-partitions step's pop+ack fill: every partition up to
// `fill / (2 * batch)` of them, so each holds at least two full pops.
int hotPartitionCount(int partitions, std::int64_t fill, int batch);
// Pure: the message bound of a grow-payload step: at most 1 GiB of payload, within `maxMessages`.
std::int64_t payloadMessageLimit(int payloadBytes, std::int64_t maxMessages);
// Pure: the batch of a grow-payload step: kGrowthBatch, fewer when that would put more than 1 MiB
// of payload into one request (1 MiB payloads go one per request).
int payloadBatch(int payloadBytes);
// Pure: "g0", "g1", ... (count names).
std::vector<std::string> groupNames(int count);

class GrowthRunner {
public:
    // `queues` names (and later deletes) the queues; `meter` (may be null) measures the single
    // broker's steps; `emit` prints a line as it is known.
    GrowthRunner(const BenchOptions& options, const BrokerAddress& address, ScenarioRunner& queues, CostMeter* meter,
                 std::function<void(const std::string&)> emit);

    GrowthResult runPartitions();
    GrowthResult runGroups();
    GrowthResult runPayloads();
    GrowthResult runBrokers();

private:
    GrowthStep partitionsStep(int partitions);
    GrowthStep groupsStep(int groups);
    GrowthStep payloadStep(int payloadBytes);
    GrowthStep brokersStep(int brokers);
    GrowthResult finish(std::string scenario, std::string parameter, std::vector<GrowthStep> steps);
    ScenarioResult line(const char* name, int partitions, const std::string& queue) const;
    void show(const ScenarioResult& result) const;
    // The measured pop+ack window of `pop` (its queue, up to `available` messages), then its line.
    void popAck(ScenarioResult& pop, const BenchOptions& options, int batch, std::int64_t available, CostMeter* meter,
                const LoadSpread& spread = {}) const;

    const BenchOptions& options_;
    BrokerAddress address_;
    ScenarioRunner& queues_;
    CostMeter* meter_;
    std::function<void(const std::string&)> emit_;
};

} // namespace bench
