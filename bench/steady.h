// The steadiness scenario: consecutive rounds on one broker and one queue, each pushing for half
// a round and then pop+acking what is there for the other half. A broker whose cost grows with
// the messages it has stored, the partitions it has touched or the time it has run shows it as
// rounds that get slower; the verdict is the fastest round over the slowest, for push and for
// pop+ack, against kSteadyTarget. On a shared box msg/s also moves with everything else that runs,
// so the same spread of CPU per message (broker + PostgreSQL), which moves far less, is given beside it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker_client.h"
#include "cost_meter.h"
#include "options.h"

namespace bench {

inline constexpr int kSteadyBatch = 10;
inline constexpr double kSteadyTarget = 1.5; // fastest / slowest round at most this

struct SteadyHalf {
    double elapsedSeconds = 0;
    std::int64_t messages = 0; // push: queued; pop+ack: acked
    std::int64_t errors = 0;
    double messagesPerSecond = 0;
    double p50Ms = 0;          // one push request / one pop+ack cycle
    double p99Ms = 0;
    MessageCost cost;
};

struct SteadyRound {
    int round = 0;             // 1-based
    SteadyHalf push;
    SteadyHalf popAck;
    std::int64_t backlog = 0;  // pushed and not yet acked after this round
};

// Highest over lowest of a list of figures (>= 1.0): the fastest round over the slowest for
// rates, the dearest over the cheapest for CPU per message. lowest <= 0 gives an infinite ratio.
struct Spread {
    double highest = 0;
    double lowest = 0;
    double ratio = 0;
    bool pass = false;         // ratio <= target
};
// Pure. An empty list is not a pass.
Spread spreadOf(const std::vector<double>& values, double target);
// Broker + PostgreSQL CPU per message of a half round; nullopt unless both were measured.
std::optional<double> cpuPerMessage(const MessageCost& cost);

struct SteadyResult {
    std::string queue;
    int batch = kSteadyBatch;
    int connections = 0;
    int partitions = 0;
    double roundSeconds = 0;
    std::vector<SteadyRound> rounds;
    Spread push;
    Spread popAck;
    std::optional<Spread> pushCpu;   // over broker + PostgreSQL us/msg, when every round measured both
    std::optional<Spread> popAckCpu;
    std::int64_t errors = 0;
    std::string firstError;
};

// Runs --steady-rounds rounds on `queue` (configured here, 10 partitions by default), measured
// by `meter` (may be null); `onRound` sees each round as it ends. Stops after a round that moved
// no message at all.
SteadyResult runSteady(const BenchOptions& options, const BrokerAddress& address, const std::string& queue,
                       CostMeter* meter, const std::function<void(const SteadyRound&)>& onRound);

} // namespace bench
