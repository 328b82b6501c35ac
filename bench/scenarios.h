// The broker scenarios: push, pop+ack and long-poll wake latency.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker_client.h"
#include "cost_meter.h"
#include "latency.h"
#include "options.h"
#include "proc_memory.h"

namespace bench {

// A broker scenario beside the raw-PostgreSQL anchor run just before it at the same batch size
// (anchors.h): raw-push for push, raw-lease for popack.
struct AnchorComparison {
    std::string scenario;            // raw-push, raw-lease
    double messagesPerSecond = 0;    // the anchor's
    double ratio = 0;                // ours / the anchor's msg/s
    std::optional<double> postgresCpuRatio; // ours / the anchor's PostgreSQL CPU per message
    std::optional<double> walRatio;         // ours / the anchor's WAL bytes per message
};

struct ScenarioResult {
    std::string scenario;
    int batch = 0;
    int connections = 0;
    int partitions = 0;
    std::string queue;
    double elapsedSeconds = 0;
    std::int64_t messages = 0;  // push: stored ("queued"); popack: acked; wake: woken pops
    std::int64_t requests = 0;
    std::int64_t errors = 0;    // transport failures, non-2xx answers, unexpected bodies
    double messagesPerSecond = 0;
    LatencySummary latency;     // push: per request; popack: pop+ack cycle; wake: push sent -> pop returned
    std::uint64_t droppedSamples = 0;
    std::map<std::string, double> details; // scenario-specific counters and sub-latencies
    std::string firstError;                // the first failure seen, for the report
    std::optional<ProcessMemory> brokerMemory; // sampled when the scenario ended; peakRssKb is this
                                               // scenario's peak when peakIsPerScenario
    bool peakIsPerScenario = false;            // VmHWM was reset when the scenario began
    MessageCost cost;                          // CPU and WAL per message over the measured window
    std::optional<AnchorComparison> anchor;    // push / popack: the raw-PostgreSQL anchor of the same batch
};

struct PushLoadResult;
struct PopAckLoadResult;
// A scenario's figures from the push load / pop+ack load it ran (loads.h): messages, requests,
// latency, cost, details and msg/s. Errors add to those already counted (set-up, pre-fill).
void takePushLoad(ScenarioResult& result, const PushLoadResult& load);
void takePopAckLoad(ScenarioResult& result, const PopAckLoadResult& load);

// Identifies one bench run; part of every queue name so runs never share queues.
std::string makeRunId();

class ScenarioRunner {
public:
    // `meter` (may be null) measures each scenario's window; it outlives the runner.
    ScenarioRunner(BenchOptions options, BrokerAddress address, std::string runId, CostMeter* meter = nullptr);

    ScenarioResult runPush(int batch);
    ScenarioResult runPopAck(int batch);
    ScenarioResult runWake();
    // A stream query as the SDKs run it (streams.cpp): per pop of `batch`, per partition a state read
    // and one cycle (state ops, sink pushes, the ack); messages are the ones acked through cycles.
    ScenarioResult runStream(int batch);

    // A fresh queue name, remembered for cleanup; not created on the broker.
    std::string newQueue(const std::string& kind, int batch);
    // Queues created so far (for cleanup).
    const std::vector<std::string>& createdQueues() const { return createdQueues_; }
    // Deletes the created queues; returns how many deletions failed and sets `firstError`.
    int deleteCreatedQueues(std::string& firstError);

private:
    std::string popAckQueue(int batch, std::string& configureError);
    void resetBrokerPeak(ScenarioResult& result) const;
    // A result of `scenario` at `batch` with this run's connections and partitions, the broker's peak RSS reset.
    ScenarioResult beginScenario(const char* scenario, int batch) const;
    void sampleBrokerMemory(ScenarioResult& result) const;

    BenchOptions options_;
    BrokerAddress address_;
    std::string runId_;
    std::vector<std::string> createdQueues_;
    CostMeter* meter_ = nullptr;
};

} // namespace bench
