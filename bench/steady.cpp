#include "steady.h"

#include <algorithm>
#include <limits>

#include "loads.h"

namespace bench {
namespace {

// Latency samples kept per half round: enough for p99 of a 5-second half at any rate seen here.
constexpr std::size_t kHalfLatencySamples = 200'000;

SteadyHalf halfOf(double elapsedSeconds, std::int64_t messages, std::int64_t errors, const LatencySamples& samples,
                  const MessageCost& cost) {
    SteadyHalf half;
    half.elapsedSeconds = elapsedSeconds;
    half.messages = messages;
    half.errors = errors;
    half.messagesPerSecond = elapsedSeconds > 0 ? static_cast<double>(messages) / elapsedSeconds : 0;
    const LatencySummary summary = summarize(samples.kept());
    half.p50Ms = summary.p50Ms;
    half.p99Ms = summary.p99Ms;
    half.cost = cost;
    return half;
}

// The spread of per-round CPU per message, or nothing when a round lacks the figure.
std::optional<Spread> cpuSpreadOf(const std::vector<std::optional<double>>& costs) {
    std::vector<double> values;
    for (const auto& cost : costs) {
        if (!cost) return std::nullopt;
        values.push_back(*cost);
    }
    if (values.empty()) return std::nullopt;
    return spreadOf(values, kSteadyTarget);
}

} // namespace

Spread spreadOf(const std::vector<double>& values, double target) {
    Spread spread;
    if (values.empty()) return spread;
    spread.highest = *std::max_element(values.begin(), values.end());
    spread.lowest = *std::min_element(values.begin(), values.end());
    spread.ratio = spread.lowest > 0 ? spread.highest / spread.lowest : std::numeric_limits<double>::infinity();
    spread.pass = spread.ratio <= target;
    return spread;
}

std::optional<double> cpuPerMessage(const MessageCost& cost) {
    if (!cost.brokerUsPerMessage || !cost.postgresUsPerMessage) return std::nullopt;
    return *cost.brokerUsPerMessage + *cost.postgresUsPerMessage;
}

SteadyResult runSteady(const BenchOptions& options, const BrokerAddress& address, const std::string& queue,
                       CostMeter* meter, const std::function<void(const SteadyRound&)>& onRound) {
    SteadyResult result;
    result.queue = queue;
    result.connections = options.connections;
    result.partitions = options.partitions;
    result.roundSeconds = options.steadyRoundSeconds;
    auto noteError = [&result](std::int64_t errors, const std::string& first) {
        result.errors += errors;
        if (result.firstError.empty() && !first.empty()) result.firstError = first;
    };
    std::string configureError;
    if (!configureQueue(address, options, queue, configureError)) noteError(1, configureError);

    const double halfSeconds = options.steadyRoundSeconds / 2;
    std::int64_t backlog = 0;
    std::vector<double> pushRates, popAckRates;
    std::vector<std::optional<double>> pushCosts, popAckCosts;
    for (int round = 1; round <= options.steadyRounds; ++round) {
        SteadyRound figures;
        figures.round = round;
        const PushLoadResult pushed = pushLoad(address, options, queue, kSteadyBatch, options.maxMessagesPerScenario,
                                               deadlineAfter(halfSeconds), kHalfLatencySamples, meter);
        noteError(pushed.errors, pushed.firstError);
        figures.push = halfOf(pushed.elapsedSeconds, pushed.queued, pushed.errors, pushed.latencies, pushed.cost);
        backlog += pushed.queued;
        // What is there: this round's pushes and whatever earlier rounds left.
        const PopAckLoadResult acked = backlog > 0 ? popAckLoad(address, options, queue, kSteadyBatch, backlog,
                                                                deadlineAfter(halfSeconds), kHalfLatencySamples, meter)
                                                   : PopAckLoadResult{};
        noteError(acked.errors, acked.firstError);
        figures.popAck = halfOf(acked.elapsedSeconds, acked.acked, acked.errors, acked.cycles, acked.cost);
        backlog -= acked.acked;
        figures.backlog = backlog;
        pushRates.push_back(figures.push.messagesPerSecond);
        popAckRates.push_back(figures.popAck.messagesPerSecond);
        pushCosts.push_back(cpuPerMessage(figures.push.cost));
        popAckCosts.push_back(cpuPerMessage(figures.popAck.cost));
        if (onRound) onRound(figures);
        result.rounds.push_back(figures);
        // A round that moved nothing has lost the broker or the queue: the rest would only time errors.
        if (figures.push.messages == 0 && figures.popAck.messages == 0) {
            noteError(1, "round " + std::to_string(round) + " moved no message; later rounds skipped");
            break;
        }
    }
    result.push = spreadOf(pushRates, kSteadyTarget);
    result.popAck = spreadOf(popAckRates, kSteadyTarget);
    result.pushCpu = cpuSpreadOf(pushCosts);
    result.popAckCpu = cpuSpreadOf(popAckCosts);
    return result;
}

} // namespace bench
