#include "scenarios.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "loads.h"
#include "wire.h"

namespace bench {
namespace {

using Clock = BenchClock;

// After a failed request a worker pauses this long, so a dead broker is not hammered in a hot loop.
constexpr auto kErrorPause = std::chrono::milliseconds(20);
// After an empty non-waiting pop (every partition leased by another consumer, or nothing left)
// a consumer pauses this long before popping again: long enough not to spin, short enough not
// to hide the broker's throughput.
constexpr auto kEmptyPopPause = std::chrono::milliseconds(2);
// Pre-fill pushes use this batch size: the fastest path, and not what the pop scenario measures.
constexpr int kPrefillBatch = 100;
// Upper bound on the time a pre-fill may take, whatever --prefill asks: keeps `make bench` within
// its budget on a slow broker (the consumers then drain a smaller queue, which `prefilled` shows).
constexpr auto kPrefillTimeLimit = std::chrono::seconds(30);
// A queue deletion answered 503 (lock timeout) is retried this many times, after this pause.
constexpr int kDeleteRetries = 3;
constexpr auto kDeleteRetryPause = std::chrono::seconds(1);
// Extra socket time granted to a long poll beyond its own timeout.
constexpr int kLongPollGraceSeconds = 10;

std::int64_t microsBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
}

double secondsBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}


// Takes up to `want` messages from the scenario's count budget; 0 once it is spent.
int claimBudget(SharedProgress& progress, std::int64_t limit, int want) {
    const std::int64_t before = progress.claimedMessages.fetch_add(want, std::memory_order_relaxed);
    if (before >= limit) return 0;
    return static_cast<int>(std::min<std::int64_t>(want, limit - before));
}

} // namespace

// Transaction ids are unique per load, not just per queue: a kept queue (--popack-queue) is
// filled by every run and batch, and a repeated id would be stored once and count as a duplicate.
std::string loadTag() {
    static std::atomic<int> loads{0};
    const auto startedMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count();
    return std::to_string(startedMs) + "-" + std::to_string(++loads) + "-";
}

namespace {

void finishRates(ScenarioResult& result) {
    result.messagesPerSecond = result.elapsedSeconds > 0 ? static_cast<double>(result.messages) / result.elapsedSeconds : 0;
}

} // namespace

std::string describeFailure(const std::string& request, const HttpReply& reply) {
    if (reply.status == 0) return request + ": " + reply.error;
    return request + ": HTTP " + std::to_string(reply.status) + " " + reply.body.substr(0, 200);
}

std::string popPath(const std::string& queue, const std::string& query) {
    return "/api/v1/pop/queue/" + encodePathSegment(queue) + "?" + query;
}

CostSample sampleCost(CostMeter* meter) {
    if (meter == nullptr) return {};
    try {
        return meter->sample();
    } catch (const std::exception&) {
        return {};
    }
}

BenchClock::time_point deadlineAfter(double seconds) {
    return BenchClock::now() + std::chrono::duration_cast<BenchClock::duration>(std::chrono::duration<double>(seconds));
}

const BrokerAddress& connectionAddress(const BrokerAddress& address, const LoadSpread& spread, int connection) {
    if (spread.brokers.empty()) return address;
    return spread.brokers[static_cast<std::size_t>(connection) % spread.brokers.size()];
}

int pushPartitionIndex(int connection, std::int64_t k, int partitions, bool random) {
    if (partitions <= 0) return 0;
    if (!random) return static_cast<int>((connection + k) % partitions);
    // splitmix64 of (connection, k): uniform, and the same sequence every run.
    std::uint64_t z = (static_cast<std::uint64_t>(connection) << 40) + static_cast<std::uint64_t>(k) +
                      0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<int>(z % static_cast<std::uint64_t>(partitions));
}

PushLoadResult pushLoad(const BrokerAddress& address, const BenchOptions& options, const std::string& queue, int batch,
                        std::int64_t messageLimit, Clock::time_point deadline, std::size_t latencyCapacity,
                        CostMeter* meter, const LoadSpread& spread) {
    const std::string tag = loadTag();
    SharedProgress progress;
    std::atomic<std::int64_t> duplicates{0}, buffered{0}, failedItems{0};
    const int connections = options.connections;
    std::vector<LatencySamples> perThread(connections, LatencySamples(latencyCapacity / connections + 1));
    std::promise<void> startSignal;
    std::shared_future<void> started = startSignal.get_future().share();

    auto worker = [&](int index) {
        BrokerClient client(connectionAddress(address, spread, index), options.httpTimeoutSeconds);
        started.wait();
        PushBatchSpec spec;
        spec.queue = queue;
        spec.txPrefix = tag + "c" + std::to_string(index);
        spec.payloadBytes = options.payloadBytes;
        spec.incompressibleFiller = spread.incompressiblePayload;
        for (std::int64_t k = 0; Clock::now() < deadline; ++k) {
            const int count = claimBudget(progress, messageLimit, batch);
            if (count == 0) break;
            spec.partition = partitionName(pushPartitionIndex(index, k, options.partitions, spread.randomPartitions));
            spec.count = count;
            const std::string body = buildPushBody(spec);
            spec.firstSequence += count;
            const auto sent = Clock::now();
            const HttpReply reply = client.post("/api/v1/push", body);
            const auto answered = Clock::now();
            progress.requests.fetch_add(1, std::memory_order_relaxed);
            if (!reply.ok()) {
                progress.fail(describeFailure("push", reply));
                std::this_thread::sleep_for(kErrorPause);
                continue;
            }
            perThread[index].record(microsBetween(sent, answered));
            const PushStatusCounts counts = countPushStatuses(reply.body);
            progress.messages.fetch_add(counts.queued, std::memory_order_relaxed);
            duplicates.fetch_add(counts.duplicate, std::memory_order_relaxed);
            buffered.fetch_add(counts.buffered, std::memory_order_relaxed);
            failedItems.fetch_add(counts.failed + counts.other, std::memory_order_relaxed);
            if (counts.total() != count) progress.fail("push: answer has " + std::to_string(counts.total()) +
                                                       " item statuses for " + std::to_string(count) + " items");
        }
    };

    std::vector<std::thread> threads;
    for (int i = 0; i < connections; ++i) threads.emplace_back(worker, i);
    const CostSample costBefore = sampleCost(meter);
    const auto begin = Clock::now();
    startSignal.set_value();
    for (auto& thread : threads) thread.join();
    const auto end = Clock::now();
    const CostSample costAfter = sampleCost(meter);

    PushLoadResult result;
    result.elapsedSeconds = secondsBetween(begin, end);
    result.requests = progress.requests.load();
    result.queued = progress.messages.load();
    result.duplicates = duplicates.load();
    result.buffered = buffered.load();
    result.failedItems = failedItems.load();
    result.errors = progress.errors.load();
    result.firstError = progress.firstError;
    result.latencies = LatencySamples(latencyCapacity);
    for (auto& samples : perThread) result.latencies.absorb(std::move(samples));
    result.cost = costPerMessage(costBefore, costAfter, result.queued);
    return result;
}

bool configureQueue(const BrokerAddress& address, const BenchOptions& options, const std::string& queue,
                    std::string& error) {
    BrokerClient client(address, options.httpTimeoutSeconds);
    const HttpReply reply = client.post("/api/v1/configure", buildConfigureBody(queue));
    if (reply.ok()) return true;
    error = describeFailure("configure " + queue, reply);
    return false;
}

PopAckLoadResult popAckLoad(const BrokerAddress& address, const BenchOptions& options, const std::string& queue,
                            int batch, std::int64_t available, Clock::time_point deadline,
                            std::size_t latencyCapacity, CostMeter* meter, const LoadSpread& spread) {
    SharedProgress progress;
    std::atomic<std::int64_t> emptyPops{0}, ackFailures{0};
    const int connections = options.connections;
    const std::size_t perThreadCapacity = latencyCapacity / connections + 1;
    std::vector<LatencySamples> cycleSamples(connections, LatencySamples(perThreadCapacity));
    std::vector<LatencySamples> popSamples(connections, LatencySamples(perThreadCapacity));
    std::vector<LatencySamples> ackSamples(connections, LatencySamples(perThreadCapacity));
    const std::string query = "batch=" + std::to_string(batch) + "&wait=false&timeout=1000";
    // One pop path per group (queue mode: one path without a group).
    std::vector<std::string> paths;
    for (const auto& group : spread.groups) paths.push_back(popPath(queue, query + "&consumerGroup=" + encodePathSegment(group)));
    if (paths.empty()) paths.push_back(popPath(queue, query));
    std::promise<void> startSignal;
    std::shared_future<void> started = startSignal.get_future().share();

    auto consumer = [&](int index) {
        BrokerClient client(connectionAddress(address, spread, index), options.httpTimeoutSeconds);
        started.wait();
        for (std::size_t k = 0; !progress.stop.load(std::memory_order_relaxed) && Clock::now() < deadline; ++k) {
            const std::size_t slot = (static_cast<std::size_t>(index) + k) % paths.size();
            const std::string group = spread.groups.empty() ? std::string() : spread.groups[slot];
            const auto popSent = Clock::now();
            const HttpReply popped = client.get(paths[slot]);
            const auto popAnswered = Clock::now();
            progress.requests.fetch_add(1, std::memory_order_relaxed);
            if (popped.status == 204) {
                emptyPops.fetch_add(1, std::memory_order_relaxed);
                std::this_thread::sleep_for(kEmptyPopPause);
                continue;
            }
            if (!popped.ok()) {
                progress.fail(describeFailure("pop", popped));
                std::this_thread::sleep_for(kErrorPause);
                continue;
            }
            const auto messages = parsePopMessages(popped.body);
            if (!messages) {
                progress.fail("pop: unexpected body " + popped.body.substr(0, 200));
                continue;
            }
            if (messages->empty()) {
                emptyPops.fetch_add(1, std::memory_order_relaxed);
                std::this_thread::sleep_for(kEmptyPopPause);
                continue;
            }
            const HttpReply acked = client.post("/api/v1/ack/batch", buildAckBatchBody(*messages, group));
            const auto ackAnswered = Clock::now();
            progress.requests.fetch_add(1, std::memory_order_relaxed);
            if (!acked.ok()) {
                progress.fail(describeFailure("ack/batch", acked));
                std::this_thread::sleep_for(kErrorPause);
                continue;
            }
            const auto successes = countAckSuccesses(acked.body);
            if (!successes) {
                progress.fail("ack/batch: unexpected body " + acked.body.substr(0, 200));
                continue;
            }
            const auto unsuccessful = static_cast<std::int64_t>(messages->size()) - *successes;
            if (unsuccessful > 0) ackFailures.fetch_add(unsuccessful, std::memory_order_relaxed);
            popSamples[index].record(microsBetween(popSent, popAnswered));
            ackSamples[index].record(microsBetween(popAnswered, ackAnswered));
            cycleSamples[index].record(microsBetween(popSent, ackAnswered));
            // Stop everyone once every pre-filled message is acked: the queue is drained.
            if (progress.messages.fetch_add(*successes, std::memory_order_relaxed) + *successes >= available)
                progress.stop.store(true, std::memory_order_relaxed);
        }
    };

    std::vector<std::thread> threads;
    for (int i = 0; i < connections; ++i) threads.emplace_back(consumer, i);
    const CostSample costBefore = sampleCost(meter);
    const auto begin = Clock::now();
    startSignal.set_value();
    for (auto& thread : threads) thread.join();
    const auto end = Clock::now();
    const CostSample costAfter = sampleCost(meter);

    auto merge = [&](std::vector<LatencySamples>& parts) {
        LatencySamples merged(latencyCapacity);
        for (auto& samples : parts) merged.absorb(std::move(samples));
        return merged;
    };
    PopAckLoadResult result;
    result.cycles = merge(cycleSamples);
    result.pops = summarize(merge(popSamples).kept());
    result.acks = summarize(merge(ackSamples).kept());
    result.elapsedSeconds = secondsBetween(begin, end);
    result.acked = progress.messages.load();
    result.requests = progress.requests.load();
    result.errors = progress.errors.load();
    result.firstError = progress.firstError;
    result.emptyPops = emptyPops.load();
    result.ackItemFailures = ackFailures.load();
    result.drained = result.acked >= available;
    result.cost = costPerMessage(costBefore, costAfter, result.acked);
    return result;
}

namespace {

// What every load's window gives its scenario line.
template <typename Load>
void takeWindow(ScenarioResult& result, const Load& load, std::int64_t messages, const LatencySamples& latencies) {
    result.elapsedSeconds = load.elapsedSeconds;
    result.messages = messages;
    result.requests = load.requests;
    result.errors += load.errors;
    if (result.firstError.empty()) result.firstError = load.firstError;
    result.droppedSamples = latencies.dropped();
    result.latency = summarize(latencies.kept());
    result.cost = load.cost;
}

} // namespace

void takePushLoad(ScenarioResult& result, const PushLoadResult& load) {
    takeWindow(result, load, load.queued, load.latencies);
    result.details["duplicateItems"] = static_cast<double>(load.duplicates);
    result.details["bufferedItems"] = static_cast<double>(load.buffered);
    result.details["failedItems"] = static_cast<double>(load.failedItems);
    finishRates(result);
}

void takePopAckLoad(ScenarioResult& result, const PopAckLoadResult& load) {
    takeWindow(result, load, load.acked, load.cycles);
    result.details["popP50Ms"] = load.pops.p50Ms;
    result.details["popP99Ms"] = load.pops.p99Ms;
    result.details["ackP50Ms"] = load.acks.p50Ms;
    result.details["ackP99Ms"] = load.acks.p99Ms;
    result.details["emptyPops"] = static_cast<double>(load.emptyPops);
    result.details["ackItemFailures"] = static_cast<double>(load.ackItemFailures);
    result.details["drained"] = load.drained ? 1.0 : 0.0;
    finishRates(result);
}

std::string makeRunId() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
}

ScenarioRunner::ScenarioRunner(BenchOptions options, BrokerAddress address, std::string runId, CostMeter* meter)
    : options_(std::move(options)), address_(std::move(address)), runId_(std::move(runId)), meter_(meter) {}

std::string ScenarioRunner::newQueue(const std::string& kind, int batch) {
    std::string name = options_.queuePrefix + "-" + kind + "-b" + std::to_string(batch) + "-" + runId_;
    createdQueues_.push_back(name);
    return name;
}

// The queue a pop+ack scenario consumes: the given existing one (--popack-queue), or a fresh one.
std::string ScenarioRunner::popAckQueue(int batch, std::string& configureError) {
    if (!options_.popackQueue.empty()) return options_.popackQueue;
    std::string queue = newQueue("popack", batch);
    configureQueue(address_, options_, queue, configureError);
    return queue;
}

void ScenarioRunner::resetBrokerPeak(ScenarioResult& result) const {
    if (options_.brokerPid > 0) result.peakIsPerScenario = resetPeakRss(options_.brokerPid);
}

ScenarioResult ScenarioRunner::beginScenario(const char* scenario, int batch) const {
    ScenarioResult result;
    result.scenario = scenario;
    result.batch = batch;
    result.connections = options_.connections;
    result.partitions = options_.partitions;
    resetBrokerPeak(result);
    return result;
}

void ScenarioRunner::sampleBrokerMemory(ScenarioResult& result) const {
    if (options_.brokerPid > 0) result.brokerMemory = readProcessMemory(options_.brokerPid);
}

ScenarioResult ScenarioRunner::runPush(int batch) {
    ScenarioResult result = beginScenario(kScenarioPush, batch);
    result.queue = newQueue("push", batch);
    // Creating the queue up front keeps its one-time creation out of the measured window.
    std::string configureError;
    if (!configureQueue(address_, options_, result.queue, configureError)) result.firstError = configureError;

    PushLoadResult load = pushLoad(address_, options_, result.queue, batch, options_.maxMessagesPerScenario,
                                   deadlineAfter(options_.durationSeconds), options_.maxLatencySamples, meter_);
    takePushLoad(result, load);
    sampleBrokerMemory(result);
    return result;
}

ScenarioResult ScenarioRunner::runPopAck(int batch) {
    ScenarioResult result = beginScenario(kScenarioPopAck, batch);
    std::string configureError;
    result.queue = popAckQueue(batch, configureError);
    result.firstError = configureError;

    // Pre-fill (not measured): the consumers then only pop and ack.
    const std::int64_t prefillTarget = std::min(prefillCountFor(options_, batch), options_.maxMessagesPerScenario);
    PushLoadResult prefill = pushLoad(address_, options_, result.queue, kPrefillBatch, prefillTarget,
                                      Clock::now() + kPrefillTimeLimit, /*latencyCapacity=*/1);
    const std::int64_t available = prefill.queued;
    result.details["prefilled"] = static_cast<double>(available);
    result.details["prefillSeconds"] = prefill.elapsedSeconds;
    result.details["prefillTarget"] = static_cast<double>(prefillTarget);
    result.details["prefillErrors"] = static_cast<double>(prefill.errors);
    if (prefill.errors > 0 && result.firstError.empty()) result.firstError = "pre-fill: " + prefill.firstError;

    if (available == 0) {
        // Nothing to consume: the pre-fill failed, and firstError says why.
        result.errors = prefill.errors;
        sampleBrokerMemory(result);
        return result;
    }

    PopAckLoadResult load = popAckLoad(address_, options_, result.queue, batch, available,
                                       deadlineAfter(options_.durationSeconds), options_.maxLatencySamples, meter_);
    takePopAckLoad(result, load);
    sampleBrokerMemory(result);
    return result;
}

ScenarioResult ScenarioRunner::runWake() {
    ScenarioResult result;
    result.scenario = kScenarioWake;
    result.batch = 1;
    result.connections = 1;
    result.partitions = 1;
    result.queue = newQueue("wake", 1);
    resetBrokerPeak(result);
    std::string configureError;
    if (!configureQueue(address_, options_, result.queue, configureError)) result.firstError = configureError;

    const int longPollSocketSeconds = options_.wakeTimeoutMs / 1000 + kLongPollGraceSeconds;
    // Cross-broker when a consumer URL is given: the push commits on --url and
    // the mesh must wake the poll parked on the peer.
    const BrokerAddress consumerAddress =
        options_.consumerUrl.empty() ? address_ : parseBrokerUrl(options_.consumerUrl);
    if (!options_.consumerUrl.empty()) result.scenario = "wake-mesh";
    BrokerClient consumer(consumerAddress, longPollSocketSeconds);
    BrokerClient producer(address_, options_.httpTimeoutSeconds);
    const std::string partition = partitionName(0);
    const std::string path = "/api/v1/pop/queue/" + encodePathSegment(result.queue) + "/partition/" + partition +
                             "?batch=1&wait=true&autoAck=true&timeout=" + std::to_string(options_.wakeTimeoutMs);
    PushBatchSpec spec;
    spec.queue = result.queue;
    spec.partition = partition;
    spec.txPrefix = "wake";
    spec.count = 1;
    spec.payloadBytes = options_.payloadBytes;

    LatencySamples wakeSamples(static_cast<std::size_t>(options_.wakeIterations));
    std::int64_t misses = 0;
    const auto begin = Clock::now();
    // Bounded by count (--wake-iterations) and by time (--duration), like every scenario.
    const auto deadline = begin + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(options_.durationSeconds));
    int iterations = 0;
    for (; iterations < options_.wakeIterations && Clock::now() < deadline; ++iterations) {
        // The long poll runs on its own thread; this one pushes once the poll is parked.
        auto parked = std::async(std::launch::async, [&] {
            HttpReply reply = consumer.get(path);
            return std::make_pair(std::move(reply), Clock::now());
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(options_.wakeSettleMs));
        const std::string body = buildPushBody(spec);
        spec.firstSequence += 1;
        const auto pushSent = Clock::now();
        const HttpReply pushed = producer.post("/api/v1/push", body);
        result.requests += 2;
        auto [popped, popReturned] = parked.get();
        if (!pushed.ok()) {
            ++result.errors;
            if (result.firstError.empty()) result.firstError = describeFailure("push", pushed);
            std::this_thread::sleep_for(kErrorPause);
            continue;
        }
        const auto messages = popped.status == 200 ? parsePopMessages(popped.body) : std::nullopt;
        if (!messages || messages->size() != 1 || popReturned < pushSent) {
            // Timed out, answered before the push, or failed: not a wake-up sample.
            ++misses;
            if (popped.status != 204 && !popped.ok()) {
                ++result.errors;
                if (result.firstError.empty()) result.firstError = describeFailure("long poll", popped);
            }
            continue;
        }
        wakeSamples.record(microsBetween(pushSent, popReturned));
        ++result.messages;
    }
    result.elapsedSeconds = secondsBetween(begin, Clock::now());
    result.latency = summarize(wakeSamples.kept());
    result.details["iterations"] = iterations;
    result.details["misses"] = static_cast<double>(misses);
    result.details["settleMs"] = options_.wakeSettleMs;
    // Wake-ups per second would only restate the settle pause: report none.
    result.messagesPerSecond = 0;
    sampleBrokerMemory(result);
    return result;
}

int ScenarioRunner::deleteCreatedQueues(std::string& firstError) {
    BrokerClient client(address_, options_.httpTimeoutSeconds);
    int failures = 0;
    for (const std::string& queue : createdQueues_) {
        const std::string path = "/api/v1/resources/queues/" + encodePathSegment(queue);
        HttpReply reply = client.del(path);
        // A queue of 100,000 partitions may wait on a lock its sweeps hold: retry a 503 a few times.
        for (int retry = 0; retry < kDeleteRetries && reply.status == 503; ++retry) {
            std::this_thread::sleep_for(kDeleteRetryPause);
            reply = client.del(path);
        }
        if (reply.ok()) continue;
        if (failures++ == 0) firstError = describeFailure("delete " + queue, reply);
    }
    return failures;
}

} // namespace bench
