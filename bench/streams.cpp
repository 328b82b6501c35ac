// The stream scenario: a tumbling one-second count over a pre-filled source queue, run the way
// the stream SDKs run it (docs/streams.md): --connections workers of one query each pop a batch
// (group streams.<query>, wait=false), and per partition of the batch read the shard's state and
// commit one cycle (window upserts and deletes, the closed windows pushed to a sink queue, the
// ack of the last message with count N). The figures: cycles/s and messages/s (messages acked
// through committed cycles), the latency of one partition step (state read + cycle), and CPU per
// message from the cost meter over the measured window.
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "loads.h"
#include "scenarios.h"
#include "wire.h"

namespace bench {
namespace {

using Clock = BenchClock;

constexpr int kPrefillBatch = 100;
constexpr auto kPrefillTimeLimit = std::chrono::seconds(30);
constexpr auto kEmptyPopPause = std::chrono::milliseconds(2);
constexpr auto kErrorPause = std::chrono::milliseconds(20);

// The shared counters (messages: acked through committed cycles) and the stream's own.
struct StreamProgress : SharedProgress {
    std::atomic<std::int64_t> cycles{0};   // committed
    std::atomic<std::int64_t> refused{0};  // answered success:false (a lease lost to another worker)
    std::atomic<std::int64_t> emits{0};
};

// One worker: pops until `available` messages went through committed cycles or `deadline` passed.
void streamWorker(const BrokerAddress& address, const BenchOptions& options, const std::string& popPathText,
                  const std::string& queryId, const std::string& group, const std::string& sink,
                  std::int64_t available, Clock::time_point deadline, StreamProgress& progress,
                  LatencySamples& steps) {
    BrokerClient client(address, options.httpTimeoutSeconds);
    while (Clock::now() < deadline && progress.messages.load(std::memory_order_relaxed) < available) {
        const HttpReply popped = client.get(popPathText);
        progress.requests.fetch_add(1, std::memory_order_relaxed);
        if (popped.status == 204) {
            std::this_thread::sleep_for(kEmptyPopPause);
            continue;
        }
        const auto messages = popped.ok() ? parsePopMessages(popped.body) : std::nullopt;
        if (!messages) {
            progress.fail(describeFailure("pop", popped));
            std::this_thread::sleep_for(kErrorPause);
            continue;
        }
        std::map<std::string, std::vector<PoppedMessage>> byPartition;
        for (const PoppedMessage& message : *messages) byPartition[message.partitionId].push_back(message);
        for (const auto& [partitionId, batch] : byPartition) {
            const auto started = Clock::now();
            const HttpReply read = client.post("/streams/v1/state/get", buildStateReadBody(queryId, partitionId));
            progress.requests.fetch_add(1, std::memory_order_relaxed);
            const auto state = read.ok() ? parseWindowCounts(read.body) : std::nullopt;
            if (!state) {
                progress.fail(describeFailure("state/get", read));
                continue;
            }
            const WindowCycle cycle = buildWindowCycle(queryId, group, sink, batch, *state);
            const HttpReply committed = client.post("/streams/v1/cycle", cycle.body);
            progress.requests.fetch_add(1, std::memory_order_relaxed);
            if (!committed.ok()) {
                progress.fail(describeFailure("cycle", committed));
                continue;
            }
            if (!cycleSucceeded(committed.body)) {
                progress.refused.fetch_add(1, std::memory_order_relaxed);
                continue;
            }
            steps.record(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count());
            progress.cycles.fetch_add(1, std::memory_order_relaxed);
            progress.emits.fetch_add(cycle.emits, std::memory_order_relaxed);
            progress.messages.fetch_add(static_cast<std::int64_t>(batch.size()), std::memory_order_relaxed);
        }
    }
}

}  // namespace

ScenarioResult ScenarioRunner::runStream(int batch) {
    ScenarioResult result = beginScenario(kScenarioStream, batch);
    result.queue = newQueue("stream", batch);
    const std::string sink = newQueue("stream-sink", batch);
    std::string error;
    if (!configureQueue(address_, options_, result.queue, error)) result.firstError = error;

    BrokerClient setup(address_, options_.httpTimeoutSeconds);
    const std::string queryName = result.queue;
    const HttpReply registered = setup.post("/streams/v1/queries", buildStreamQueryBody(queryName, result.queue, sink));
    const auto queryId = registered.ok() ? parseStreamQueryId(registered.body) : std::nullopt;
    if (!queryId) {
        result.errors = 1;
        result.firstError = describeFailure("register", registered);
        return result;
    }

    // Pre-fill (not measured): the workers then only run the query.
    const std::int64_t prefillTarget = std::min(prefillCountFor(options_, batch), options_.maxMessagesPerScenario);
    const PushLoadResult prefill = pushLoad(address_, options_, result.queue, kPrefillBatch, prefillTarget,
                                            Clock::now() + kPrefillTimeLimit, /*latencyCapacity=*/1);
    const std::int64_t available = prefill.queued;
    result.details["prefilled"] = static_cast<double>(available);
    if (prefill.errors > 0 && result.firstError.empty()) result.firstError = "pre-fill: " + prefill.firstError;
    if (available == 0) {
        result.errors = prefill.errors;
        return result;
    }

    const std::string group = "streams." + queryName;
    // The SDK's pop: one batch over at most 4 partitions, leased to the group.
    const std::string path = popPath(result.queue, "batch=" + std::to_string(batch) + "&wait=false&partitions=4" +
                                                       "&consumerGroup=" + encodePathSegment(group));
    const int workers = options_.connections;
    const std::size_t perWorker = options_.maxLatencySamples / static_cast<std::size_t>(std::max(workers, 1));
    std::vector<LatencySamples> steps(static_cast<std::size_t>(workers), LatencySamples(perWorker));
    StreamProgress progress;
    const Clock::time_point deadline = deadlineAfter(options_.durationSeconds);
    const CostSample before = sampleCost(meter_);
    const auto begin = Clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < workers; ++i) {
        threads.emplace_back([&, i] {
            streamWorker(address_, options_, path, *queryId, group, sink, available, deadline, progress,
                         steps[static_cast<std::size_t>(i)]);
        });
    }
    for (auto& thread : threads) thread.join();
    const auto end = Clock::now();
    const CostSample after = sampleCost(meter_);

    LatencySamples all(options_.maxLatencySamples);
    for (auto& s : steps) all.absorb(std::move(s));
    result.elapsedSeconds = std::chrono::duration<double>(end - begin).count();
    result.messages = progress.messages.load();
    result.requests = progress.requests.load();
    result.errors += progress.errors.load();
    if (result.firstError.empty()) result.firstError = progress.firstError;
    result.latency = summarize(all.kept());
    result.droppedSamples = all.dropped();
    result.cost = costPerMessage(before, after, result.messages);
    result.messagesPerSecond = result.elapsedSeconds > 0 ? static_cast<double>(result.messages) / result.elapsedSeconds : 0;
    const double cycles = static_cast<double>(progress.cycles.load());
    result.details["cycles"] = cycles;
    result.details["cyclesPerSecond"] = result.elapsedSeconds > 0 ? cycles / result.elapsedSeconds : 0;
    result.details["refusedCycles"] = static_cast<double>(progress.refused.load());
    result.details["windowsEmitted"] = static_cast<double>(progress.emits.load());
    sampleBrokerMemory(result);
    return result;
}

}  // namespace bench
