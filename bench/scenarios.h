// The three bench scenarios: push, pop+ack and long-poll wake latency.
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
};

// Identifies one bench run; part of every queue name so runs never share queues.
std::string makeRunId();

class ScenarioRunner {
public:
    ScenarioRunner(BenchOptions options, BrokerAddress address, std::string runId);

    ScenarioResult runPush(int batch);
    ScenarioResult runPopAck(int batch);
    ScenarioResult runWake();

    // Queues created so far (for cleanup).
    const std::vector<std::string>& createdQueues() const { return createdQueues_; }
    // Deletes the created queues; returns how many deletions failed and sets `firstError`.
    int deleteCreatedQueues(std::string& firstError);

private:
    std::string newQueue(const std::string& kind, int batch);
    std::string popAckQueue(int batch, std::string& configureError);
    void resetBrokerPeak(ScenarioResult& result) const;
    void sampleBrokerMemory(ScenarioResult& result) const;

    BenchOptions options_;
    BrokerAddress address_;
    std::string runId_;
    std::vector<std::string> createdQueues_;
};

} // namespace bench
