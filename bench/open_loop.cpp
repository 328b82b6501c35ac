#include "open_loop.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "growth.h"
#include "loads.h"
#include "report.h"
#include "wire.h"

namespace bench {
namespace {

using Clock = BenchClock;

constexpr std::size_t kPhaseLatencySamples = 500'000;
// Unmeasured top-up of the queue before a pop phase, in push batches of 100.
constexpr int kTopUpBatch = 100;
constexpr auto kTopUpTimeLimit = std::chrono::seconds(30);
// A pop phase's backlog covers its schedule by this factor (pops of fewer than `batch` messages).
constexpr double kBacklogMargin = 1.2;

std::int64_t microsSince(Clock::time_point from) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - from).count();
}

struct PhaseProgress {
    std::atomic<std::int64_t> next{0};
    std::atomic<std::int64_t> completed{0};
    std::atomic<std::int64_t> messages{0};
    std::atomic<std::int64_t> errors{0};
    std::atomic<std::int64_t> emptyPops{0};
    std::mutex errorMutex;
    std::string firstError;

    void fail(const std::string& what) {
        ++errors;
        std::lock_guard<std::mutex> lock(errorMutex);
        if (firstError.empty()) firstError = what;
    }
};

// Runs `send(client, index, due, samples, ackSamples)` for every request of the schedule on
// --latency-connections connections; returns the phase with its figures filled in.
template <typename Send>
OpenLoopPhase runSchedule(const BenchOptions& options, const BrokerAddress& address, CostMeter* meter,
                          OpenLoopPhase phase, double requestsPerSecond, Send send) {
    PhaseProgress progress;
    const int connections = options.latencyConnections;
    const std::size_t perThread = kPhaseLatencySamples / static_cast<std::size_t>(connections) + 1;
    std::vector<LatencySamples> samples(connections, LatencySamples(perThread));
    std::vector<LatencySamples> ackSamples(connections, LatencySamples(perThread));
    phase.scheduled = scheduledRequestCount(requestsPerSecond, options.growthSeconds);
    std::vector<std::unique_ptr<BrokerClient>> clients;
    for (int i = 0; i < connections; ++i)
        clients.push_back(std::make_unique<BrokerClient>(address, options.httpTimeoutSeconds));
    const CostSample before = sampleCost(meter);
    const Clock::time_point start = Clock::now();
    auto worker = [&](int index) {
        for (std::int64_t j = progress.next++; j < phase.scheduled; j = progress.next++) {
            const Clock::time_point due = start + dueOffset(j, requestsPerSecond);
            std::this_thread::sleep_until(due);
            send(*clients[static_cast<std::size_t>(index)], progress, due, samples[static_cast<std::size_t>(index)],
                 ackSamples[static_cast<std::size_t>(index)]);
            ++progress.completed;
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < connections; ++i) threads.emplace_back(worker, i);
    for (auto& thread : threads) thread.join();
    phase.elapsedSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    const CostSample after = sampleCost(meter);

    LatencySamples merged(kPhaseLatencySamples), mergedAcks(kPhaseLatencySamples);
    for (auto& part : samples) merged.absorb(std::move(part));
    for (auto& part : ackSamples) mergedAcks.absorb(std::move(part));
    phase.droppedSamples = merged.dropped();
    phase.latency = summarize(merged.kept());
    phase.ackLatency = summarize(mergedAcks.kept());
    phase.completed = progress.completed.load();
    phase.messages = progress.messages.load();
    phase.errors = progress.errors.load();
    phase.emptyPops = progress.emptyPops.load();
    phase.firstError = progress.firstError;
    phase.achievedMessagesPerSecond =
        phase.elapsedSeconds > 0 ? static_cast<double>(phase.messages) / phase.elapsedSeconds : 0;
    phase.cost = costPerMessage(before, after, phase.messages);
    return phase;
}

// A phase of `kind` offering `percent`% of `capacity`.
OpenLoopPhase newPhase(const char* kind, double capacity, int percent) {
    OpenLoopPhase phase;
    phase.kind = kind;
    phase.percent = percent;
    phase.capacityMessagesPerSecond = capacity;
    phase.offeredMessagesPerSecond = openLoopRequestRate(capacity, percent, kGrowthBatch) * kGrowthBatch;
    return phase;
}

OpenLoopPhase pushPhase(const BenchOptions& options, const BrokerAddress& address, const std::string& queue,
                        CostMeter* meter, double capacity, int percent) {
    const OpenLoopPhase phase = newPhase("push", capacity, percent);
    const double rate = openLoopRequestRate(capacity, percent, kGrowthBatch);
    const std::string tag = loadTag();
    std::atomic<std::int64_t> sequence{0};
    return runSchedule(options, address, meter, phase, rate,
                       [&](BrokerClient& client, PhaseProgress& progress, Clock::time_point due,
                           LatencySamples& latencies, LatencySamples&) {
                           PushBatchSpec spec;
                           spec.queue = queue;
                           spec.txPrefix = tag;
                           spec.payloadBytes = options.payloadBytes;
                           spec.count = kGrowthBatch;
                           spec.firstSequence = sequence.fetch_add(kGrowthBatch);
                           spec.partition = partitionName(
                               static_cast<int>((spec.firstSequence / kGrowthBatch) % options.partitions));
                           const HttpReply reply = client.post("/api/v1/push", buildPushBody(spec));
                           latencies.record(microsSince(due));
                           if (!reply.ok()) {
                               progress.fail(describeFailure("push", reply));
                               return;
                           }
                           progress.messages += countPushStatuses(reply.body).queued;
                       });
}

OpenLoopPhase popPhase(const BenchOptions& options, const BrokerAddress& address, const std::string& queue,
                       CostMeter* meter, double capacity, int percent) {
    const OpenLoopPhase phase = newPhase("pop", capacity, percent);
    const double rate = openLoopRequestRate(capacity, percent, kGrowthBatch);
    const std::string path = popPath(queue, "batch=" + std::to_string(kGrowthBatch) + "&wait=false&timeout=1000");
    return runSchedule(options, address, meter, phase, rate,
                       [&](BrokerClient& client, PhaseProgress& progress, Clock::time_point due,
                           LatencySamples& latencies, LatencySamples& ackLatencies) {
                           const HttpReply popped = client.get(path);
                           const auto popAnswered = Clock::now();
                           latencies.record(microsSince(due));
                           if (popped.status == 204) {
                               ++progress.emptyPops;
                               return;
                           }
                           const auto messages = popped.ok() ? parsePopMessages(popped.body) : std::nullopt;
                           if (!messages) {
                               progress.fail(describeFailure("pop", popped));
                               return;
                           }
                           if (messages->empty()) {
                               ++progress.emptyPops;
                               return;
                           }
                           const HttpReply acked = client.post("/api/v1/ack/batch", buildAckBatchBody(*messages));
                           ackLatencies.record(microsSince(popAnswered));
                           const auto successes = acked.ok() ? countAckSuccesses(acked.body) : std::nullopt;
                           if (!successes) {
                               progress.fail(describeFailure("ack/batch", acked));
                               return;
                           }
                           progress.messages += *successes;
                       });
}

ScenarioResult capacityLine(const char* name, const BenchOptions& options, const std::string& queue) {
    ScenarioResult result;
    result.scenario = name;
    result.batch = kGrowthBatch;
    result.connections = options.connections;
    result.partitions = options.partitions;
    result.queue = queue;
    return result;
}

} // namespace

double openLoopRequestRate(double capacityMessagesPerSecond, int percent, int batch) {
    if (capacityMessagesPerSecond <= 0 || percent <= 0 || batch <= 0) return 0;
    return capacityMessagesPerSecond * percent / 100.0 / batch;
}

std::int64_t scheduledRequestCount(double requestsPerSecond, double seconds) {
    if (requestsPerSecond <= 0 || seconds <= 0) return 0;
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(requestsPerSecond * seconds)));
}

std::chrono::microseconds dueOffset(std::int64_t index, double requestsPerSecond) {
    if (requestsPerSecond <= 0) return std::chrono::microseconds(0);
    return std::chrono::microseconds(static_cast<std::int64_t>(std::llround(index * 1e6 / requestsPerSecond)));
}

OpenLoopResult runOpenLoop(const BenchOptions& options, const BrokerAddress& address, ScenarioRunner& queues,
                           CostMeter* meter, const std::function<void(const std::string&)>& emit) {
    OpenLoopResult result;
    result.queue = queues.newQueue(kScenarioLatency, kGrowthBatch);
    result.batch = kGrowthBatch;
    result.connections = options.latencyConnections;
    emit(formatOpenLoopHeader(options, result.queue));
    std::string configureError;
    result.pushCapacity = capacityLine("cap-push", options, result.queue);
    if (!configureQueue(address, options, result.queue, configureError)) result.pushCapacity.firstError = configureError;

    const PushLoadResult pushed = pushLoad(address, options, result.queue, kGrowthBatch, options.maxMessagesPerScenario,
                                           deadlineAfter(options.growthSeconds), kPhaseLatencySamples, meter);
    takePushLoad(result.pushCapacity, pushed);
    emit(formatScenarioLine(result.pushCapacity));
    std::int64_t backlog = pushed.queued;
    for (int percent : options.latencyPercents) {
        if (result.pushCapacity.messagesPerSecond <= 0) break;
        OpenLoopPhase phase =
            pushPhase(options, address, result.queue, meter, result.pushCapacity.messagesPerSecond, percent);
        backlog += phase.messages;
        emit(formatOpenLoopPhase(phase));
        result.phases.push_back(std::move(phase));
    }

    result.popCapacity = capacityLine("cap-pop", options, result.queue);
    const PopAckLoadResult acked = popAckLoad(address, options, result.queue, kGrowthBatch, backlog,
                                              deadlineAfter(options.growthSeconds), kPhaseLatencySamples, meter);
    takePopAckLoad(result.popCapacity, acked);
    result.popCapacity.details["backlog"] = static_cast<double>(backlog);
    emit(formatScenarioLine(result.popCapacity));
    backlog -= acked.acked;
    for (int percent : options.latencyPercents) {
        const double capacity = result.popCapacity.messagesPerSecond;
        if (capacity <= 0) break;
        // Enough messages that the schedule never meets an empty queue.
        const auto wanted = static_cast<std::int64_t>(capacity * percent / 100.0 * options.growthSeconds *
                                                      kBacklogMargin) + kGrowthBatch * options.latencyConnections;
        if (backlog < wanted) {
            const PushLoadResult topUp = pushLoad(address, options, result.queue, kTopUpBatch, wanted - backlog,
                                                  Clock::now() + kTopUpTimeLimit, 1);
            backlog += topUp.queued;
        }
        OpenLoopPhase phase = popPhase(options, address, result.queue, meter, capacity, percent);
        backlog -= phase.messages;
        emit(formatOpenLoopPhase(phase));
        result.phases.push_back(std::move(phase));
    }
    return result;
}

} // namespace bench
