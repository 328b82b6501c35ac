// Latency under load: an open-loop arrival process. The capacity of push and of pop+ack (batch
// kGrowthBatch) is measured first, closed-loop, in the same run; then requests arrive on a fixed
// schedule at --latency-percents of it (50 % and 90 %): request j is due at start + j / rate and
// is sent then whether or not earlier ones were answered (by whichever of --latency-connections
// connections is free), and its latency runs from when it was due, not from when it could be
// sent. A broker that stalls therefore shows the whole wait of every request that arrived behind
// the stall (no coordinated omission), which closed-loop clients hide by sending less.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "broker_client.h"
#include "cost_meter.h"
#include "latency.h"
#include "options.h"
#include "scenarios.h"

namespace bench {

struct OpenLoopPhase {
    std::string kind;                     // push, pop
    int percent = 0;                      // of the capacity
    double capacityMessagesPerSecond = 0; // measured just before
    double offeredMessagesPerSecond = 0;  // the schedule's rate, in messages
    double achievedMessagesPerSecond = 0; // messages moved over the phase's elapsed time
    double elapsedSeconds = 0;
    std::int64_t scheduled = 0;           // requests due in the phase (push) / pop+ack cycles (pop)
    std::int64_t completed = 0;
    std::int64_t messages = 0;            // pushed (queued) or acked
    std::int64_t errors = 0;
    std::int64_t emptyPops = 0;
    LatencySummary latency;               // push: due -> answered; pop: due -> pop answered
    LatencySummary ackLatency;            // pop: pop answered -> ack answered
    std::uint64_t droppedSamples = 0;
    MessageCost cost;
    std::string firstError;
};

struct OpenLoopResult {
    std::string queue;
    int batch = 0;
    int connections = 0;
    ScenarioResult pushCapacity; // closed-loop, just before the push phases
    ScenarioResult popCapacity;  // closed-loop, just before the pop phases
    std::vector<OpenLoopPhase> phases;
};

// Pure: requests per second that offer `percent`% of `capacityMessagesPerSecond` in batches of `batch`.
double openLoopRequestRate(double capacityMessagesPerSecond, int percent, int batch);
// Pure: requests due within `seconds` at `requestsPerSecond` (at least 1 when the rate is > 0).
std::int64_t scheduledRequestCount(double requestsPerSecond, double seconds);
// Pure: when request `index` is due, after the phase's start.
std::chrono::microseconds dueOffset(std::int64_t index, double requestsPerSecond);

// Capacity then the phases, push first, then pop+ack; `emit` prints each line as it is known.
OpenLoopResult runOpenLoop(const BenchOptions& options, const BrokerAddress& address, ScenarioRunner& queues,
                           CostMeter* meter, const std::function<void(const std::string&)>& emit);

} // namespace bench
