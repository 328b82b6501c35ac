// The two loads every broker scenario is made of: N connections pushing batches, and N consumers
// popping and acking. Shared by the fixed-window scenarios (scenarios.cpp) and the steadiness
// rounds (steady.cpp). Each load samples the CostMeter right before its threads start and right
// after they stop, so a cost covers the measured window and nothing else (no pre-fill, no setup).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "broker_client.h"
#include "cost_meter.h"
#include "latency.h"
#include "options.h"

namespace bench {

using BenchClock = std::chrono::steady_clock;

// Counters shared by the worker threads of one scenario.
struct SharedProgress {
    std::atomic<std::int64_t> claimedMessages{0}; // budget handed out to workers (count bound)
    std::atomic<std::int64_t> messages{0};
    std::atomic<std::int64_t> requests{0};
    std::atomic<std::int64_t> errors{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::string firstError;

    void fail(const std::string& what) {
        errors.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(errorMutex);
        if (firstError.empty()) firstError = what;
    }
};

// How a load spreads beyond one broker, the queue-mode cursor and the (i + k) mod P partition
// rotation (the growth scenarios, growth.h). The default changes nothing.
struct LoadSpread {
    std::vector<BrokerAddress> brokers; // connection i talks to brokers[i mod size]; empty: the load's address
    std::vector<std::string> groups;    // popAckLoad: consumer i's k-th pop and its ack name groups[(i + k) mod size];
                                        // empty: queue mode
    bool randomPartitions = false;      // pushLoad: request k of connection i goes to a pseudo-random partition
                                        // (a window then touches distinct partitions of a queue of 100,000)
    bool incompressiblePayload = false; // pushLoad: PushBatchSpec::incompressibleFiller
};

// Pure: the broker connection `connection` of a load talks to.
const BrokerAddress& connectionAddress(const BrokerAddress& address, const LoadSpread& spread, int connection);
// Pure: the partition index request `k` of connection `connection` pushes to, in [0, partitions).
int pushPartitionIndex(int connection, std::int64_t k, int partitions, bool random);

struct PushLoadResult {
    double elapsedSeconds = 0;
    std::int64_t requests = 0;
    std::int64_t queued = 0;
    std::int64_t duplicates = 0;
    std::int64_t buffered = 0;
    std::int64_t failedItems = 0;
    std::int64_t errors = 0;
    std::string firstError;
    LatencySamples latencies{0};
    MessageCost cost; // per queued message; empty without a meter
};

// Pushes `batch`-item requests to `queue` on --connections keep-alive connections until
// `messageLimit` items were sent or `deadline` passed. Connection i sends its k-th request to
// partition (i + k) mod partitions, so the load is spread over all partitions. `meter` may be null.
PushLoadResult pushLoad(const BrokerAddress& address, const BenchOptions& options, const std::string& queue, int batch,
                        std::int64_t messageLimit, BenchClock::time_point deadline, std::size_t latencyCapacity,
                        CostMeter* meter = nullptr, const LoadSpread& spread = {});

struct PopAckLoadResult {
    double elapsedSeconds = 0;
    std::int64_t acked = 0;
    std::int64_t requests = 0;
    std::int64_t errors = 0;
    std::int64_t emptyPops = 0;
    std::int64_t ackItemFailures = 0;
    std::string firstError;
    LatencySamples cycles{0};     // pop sent -> ack answered
    LatencySummary pops;
    LatencySummary acks;
    bool drained = false;         // every one of `available` messages was acked
    MessageCost cost;             // per acked message; empty without a meter
};

// --connections consumers loop GET /pop (batch, wait=false) + POST /ack/batch on `queue` until
// `available` messages were acked or `deadline` passed. `meter` may be null.
PopAckLoadResult popAckLoad(const BrokerAddress& address, const BenchOptions& options, const std::string& queue,
                            int batch, std::int64_t available, BenchClock::time_point deadline,
                            std::size_t latencyCapacity, CostMeter* meter = nullptr, const LoadSpread& spread = {});

// POST /api/v1/configure for a fresh queue; false with `error` set when the broker refused.
bool configureQueue(const BrokerAddress& address, const BenchOptions& options, const std::string& queue,
                    std::string& error);

// A tag unique to one load of this process, the prefix of its transaction ids.
std::string loadTag();
// "push: HTTP 500 <body>" or "push: <transport error>".
std::string describeFailure(const std::string& request, const HttpReply& reply);
// GET path of a queue-level pop of `queue` with `query` (without the '?').
std::string popPath(const std::string& queue, const std::string& query);

// A sample of `meter`, or an empty one (nothing measured) when there is no meter or it failed:
// a lost PostgreSQL connection costs the figures, not the run.
CostSample sampleCost(CostMeter* meter);

// now + seconds, in the bench clock.
BenchClock::time_point deadlineAfter(double seconds);

} // namespace bench
