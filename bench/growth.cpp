#include "growth.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "loads.h"
#include "report.h"
#include "steady.h"
#include "wire.h"

namespace bench {
namespace {

// Set-up bounds: creating 100,000 partitions or draining them never holds `make bench` longer.
// scripts/bench.sh counts these in the growth run's bound.
constexpr auto kCreateTimeLimit = std::chrono::seconds(180);
constexpr auto kDrainTimeLimit = std::chrono::seconds(90);
constexpr auto kFillTimeLimit = std::chrono::seconds(30);
// Items per creation request: one message into each of 1,000 partitions.
constexpr int kCreateItemsPerRequest = 1'000;
constexpr int kFillItemsPerRequest = 100;
// A drain pop claims this many partitions at once (the broker's default POP_MAX_PARTITIONS).
constexpr int kDrainPartitionsPerPop = 100;
constexpr int kDrainBatch = 1'000;
// A drain consumer stops after this many empty pops in a row.
constexpr int kDrainEmptyPopsToStop = 3;
// A set-up request answered 429 or 503 (the broker shedding load) is retried after this pause.
constexpr auto kRetryPause = std::chrono::milliseconds(200);

bool shedsLoad(const HttpReply& reply) { return reply.status == 429 || reply.status == 503; }
constexpr std::size_t kStepLatencySamples = 500'000;
constexpr std::int64_t kMaxPayloadBytesPerStep = 1LL << 30;
// Payload bytes of one grow-payload request at most: ten 1 MiB items in one push wait on the push
// lane longer than its QUEEN_FLOW_PUSH_WAIT_MS and are refused with 429.
constexpr std::int64_t kPayloadRequestBytes = 1LL << 20;

struct SetUpResult {
    std::int64_t messages = 0;
    std::int64_t errors = 0;
    std::int64_t retries = 0; // 429 / 503 answers (the broker shedding load), retried after a pause
    double seconds = 0;
    std::string firstError;
};

// Not measured: `total` messages into `queue`, item m of the load into partition m mod `spreadOver`,
// `perRequest` items per push, on --connections connections, for at most `timeLimit`.
SetUpResult spreadPush(const BrokerAddress& address, const BenchOptions& options, const std::string& queue,
                       std::int64_t total, int spreadOver, int perRequest, std::chrono::seconds timeLimit) {
    const std::string tag = loadTag();
    const std::int64_t requests = (total + perRequest - 1) / perRequest;
    const auto deadline = BenchClock::now() + timeLimit;
    std::atomic<std::int64_t> next{0}, queued{0}, errors{0}, retries{0};
    std::mutex errorMutex;
    std::string firstError;
    const auto begin = BenchClock::now();
    auto worker = [&] {
        BrokerClient client(address, options.httpTimeoutSeconds);
        PushBatchSpec spec;
        spec.queue = queue;
        spec.txPrefix = tag;
        spec.payloadBytes = options.payloadBytes;
        spec.spreadPartitions = spreadOver;
        for (std::int64_t j = next++; j < requests && BenchClock::now() < deadline; j = next++) {
            spec.firstSequence = j * perRequest;
            spec.count = static_cast<int>(std::min<std::int64_t>(perRequest, total - spec.firstSequence));
            const std::string body = buildPushBody(spec);
            HttpReply reply = client.post("/api/v1/push", body);
            while (shedsLoad(reply) && BenchClock::now() < deadline) {
                ++retries;
                std::this_thread::sleep_for(kRetryPause);
                reply = client.post("/api/v1/push", body);
            }
            if (!reply.ok()) {
                ++errors;
                std::lock_guard<std::mutex> lock(errorMutex);
                if (firstError.empty()) firstError = describeFailure("set-up push", reply);
                continue;
            }
            queued += countPushStatuses(reply.body).queued;
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < options.connections; ++i) threads.emplace_back(worker);
    for (auto& thread : threads) thread.join();
    return {queued.load(), errors.load(), retries.load(),
            std::chrono::duration<double>(BenchClock::now() - begin).count(), firstError};
}

// Not measured: consumes up to `expected` messages of `queue` with auto-acked pops that claim many
// partitions each, so a step's partitions are left created and consumed.
SetUpResult drainQueue(const BrokerAddress& address, const BenchOptions& options, const std::string& queue,
                       std::int64_t expected) {
    const std::string path = popPath(queue, "batch=" + std::to_string(kDrainBatch) + "&partitions=" +
                                                std::to_string(kDrainPartitionsPerPop) +
                                                "&wait=false&autoAck=true&timeout=1000");
    const auto deadline = BenchClock::now() + kDrainTimeLimit;
    std::atomic<std::int64_t> drained{0}, errors{0}, retries{0};
    std::mutex errorMutex;
    std::string firstError;
    const auto begin = BenchClock::now();
    auto worker = [&] {
        BrokerClient client(address, options.httpTimeoutSeconds);
        int emptyInARow = 0;
        while (drained.load() < expected && emptyInARow < kDrainEmptyPopsToStop && BenchClock::now() < deadline) {
            const HttpReply reply = client.get(path);
            const auto messages = reply.status == 200 ? parsePopMessages(reply.body) : std::nullopt;
            if (reply.status == 204 || (messages && messages->empty())) {
                ++emptyInARow;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                continue;
            }
            if (shedsLoad(reply)) {
                ++retries;
                std::this_thread::sleep_for(kRetryPause);
                continue;
            }
            if (!messages) {
                ++errors;
                std::lock_guard<std::mutex> lock(errorMutex);
                if (firstError.empty()) firstError = describeFailure("drain pop", reply);
                continue;
            }
            emptyInARow = 0;
            drained += static_cast<std::int64_t>(messages->size());
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < options.connections; ++i) threads.emplace_back(worker);
    for (auto& thread : threads) thread.join();
    return {drained.load(), errors.load(), retries.load(),
            std::chrono::duration<double>(BenchClock::now() - begin).count(), firstError};
}

// Not measured: one pop of one message and its ack per group, in turn, so every group has joined the queue.
SetUpResult joinGroups(const BrokerAddress& address, const BenchOptions& options, const std::string& queue,
                       const std::vector<std::string>& groups) {
    SetUpResult result;
    BrokerClient client(address, options.httpTimeoutSeconds);
    const auto begin = BenchClock::now();
    for (const std::string& group : groups) {
        const HttpReply popped =
            client.get(popPath(queue, "batch=1&wait=false&timeout=1000&consumerGroup=" + encodePathSegment(group)));
        const auto messages = popped.status == 200 ? parsePopMessages(popped.body) : std::nullopt;
        const HttpReply acked = messages && !messages->empty()
                                    ? client.post("/api/v1/ack/batch", buildAckBatchBody(*messages, group))
                                    : HttpReply{};
        const auto successes = acked.ok() ? countAckSuccesses(acked.body) : std::nullopt;
        if (!successes) {
            ++result.errors;
            if (result.firstError.empty())
                result.firstError = describeFailure("join " + group, messages ? acked : popped);
            continue;
        }
        result.messages += *successes;
    }
    result.seconds = std::chrono::duration<double>(BenchClock::now() - begin).count();
    return result;
}

void noteSetUp(ScenarioResult& result, const char* what, const SetUpResult& setUp) {
    result.details[std::string(what) + "Messages"] = static_cast<double>(setUp.messages);
    result.details[std::string(what) + "Seconds"] = setUp.seconds;
    if (setUp.retries > 0) result.details[std::string(what) + "Retries"] = static_cast<double>(setUp.retries);
    result.errors += setUp.errors;
    if (result.firstError.empty() && !setUp.firstError.empty()) result.firstError = setUp.firstError;
}

std::optional<double> ratioOf(const std::optional<double>& last, const std::optional<double>& first) {
    if (!last || !first || *first <= 0) return std::nullopt;
    return *last / *first;
}

} // namespace

std::vector<GrowthRatio> growthRatios(const std::vector<GrowthStep>& steps) {
    std::vector<GrowthRatio> ratios;
    if (steps.size() < 2) return ratios;
    const GrowthStep& first = steps.front();
    const GrowthStep& last = steps.back();
    for (const ScenarioResult& firstLine : first.lines) {
        const auto lastLine = std::find_if(last.lines.begin(), last.lines.end(),
                                           [&](const ScenarioResult& r) { return r.scenario == firstLine.scenario; });
        if (lastLine == last.lines.end()) continue;
        GrowthRatio ratio;
        ratio.line = firstLine.scenario;
        ratio.firstValue = first.value;
        ratio.lastValue = last.value;
        ratio.firstCpuUs = cpuPerMessage(firstLine.cost);
        ratio.lastCpuUs = cpuPerMessage(lastLine->cost);
        ratio.cpuRatio = ratioOf(ratio.lastCpuUs, ratio.firstCpuUs);
        ratio.firstWalBytes = firstLine.cost.walBytesPerMessage;
        ratio.lastWalBytes = lastLine->cost.walBytesPerMessage;
        ratio.walRatio = ratioOf(ratio.lastWalBytes, ratio.firstWalBytes);
        ratios.push_back(ratio);
    }
    return ratios;
}

int hotPartitionCount(int partitions, std::int64_t fill, int batch) {
    const std::int64_t deep = std::max<std::int64_t>(1, fill / (2 * std::max(batch, 1)));
    return static_cast<int>(std::clamp<std::int64_t>(deep, 1, std::max(partitions, 1)));
}

std::int64_t payloadMessageLimit(int payloadBytes, std::int64_t maxMessages) {
    return std::min(maxMessages, std::max<std::int64_t>(1, kMaxPayloadBytesPerStep / std::max(payloadBytes, 1)));
}

int payloadBatch(int payloadBytes) {
    return static_cast<int>(
        std::clamp<std::int64_t>(kPayloadRequestBytes / std::max(payloadBytes, 1), 1, kGrowthBatch));
}

std::vector<std::string> groupNames(int count) {
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) names.push_back("g" + std::to_string(i));
    return names;
}

GrowthRunner::GrowthRunner(const BenchOptions& options, const BrokerAddress& address, ScenarioRunner& queues,
                           CostMeter* meter, std::function<void(const std::string&)> emit)
    : options_(options), address_(address), queues_(queues), meter_(meter), emit_(std::move(emit)) {}

ScenarioResult GrowthRunner::line(const char* name, int partitions, const std::string& queue) const {
    ScenarioResult result;
    result.scenario = name;
    result.batch = kGrowthBatch;
    result.connections = options_.connections;
    result.partitions = partitions;
    result.queue = queue;
    return result;
}

void GrowthRunner::show(const ScenarioResult& result) const { emit_(formatScenarioLine(result)); }

void GrowthRunner::popAck(ScenarioResult& pop, const BenchOptions& options, int batch, std::int64_t available,
                          CostMeter* meter, const LoadSpread& spread) const {
    if (available > 0)
        takePopAckLoad(pop, popAckLoad(address_, options, pop.queue, batch, available,
                                       deadlineAfter(options_.growthSeconds), kStepLatencySamples, meter, spread));
    show(pop);
}

GrowthResult GrowthRunner::finish(std::string scenario, std::string parameter, std::vector<GrowthStep> steps) {
    GrowthResult result;
    result.scenario = std::move(scenario);
    result.parameter = std::move(parameter);
    result.steps = std::move(steps);
    result.ratios = growthRatios(result.steps);
    emit_(formatGrowthSummary(result));
    return result;
}

GrowthStep GrowthRunner::partitionsStep(int partitions) {
    GrowthStep step;
    step.value = partitions;
    const std::string queue = queues_.newQueue("grow-parts", partitions);
    emit_(formatGrowthStepHeader(kScenarioGrowPartitions, partitions, "partitions", kGrowthBatch));
    ScenarioResult push = line("parts-push", partitions, queue);
    std::string configureError;
    if (!configureQueue(address_, options_, queue, configureError)) push.firstError = configureError;
    // Every partition exists (and holds one message) before the window.
    const SetUpResult created = spreadPush(address_, options_, queue, partitions, partitions, kCreateItemsPerRequest,
                                           kCreateTimeLimit);
    noteSetUp(push, "created", created);

    BenchOptions spread = options_;
    spread.partitions = partitions;
    LoadSpread randomPartitions;
    randomPartitions.randomPartitions = true;
    const PushLoadResult pushed = pushLoad(address_, spread, queue, kGrowthBatch, options_.maxMessagesPerScenario,
                                           deadlineAfter(options_.growthSeconds), kStepLatencySamples, meter_,
                                           randomPartitions);
    takePushLoad(push, pushed);
    show(push);

    // Pop+ack: every partition consumed, then the fill into the hot partitions only.
    ScenarioResult pop = line("parts-pop", partitions, queue);
    const SetUpResult drained = drainQueue(address_, options_, queue, created.messages + pushed.queued);
    noteSetUp(pop, "drained", drained);
    const int hot = hotPartitionCount(partitions, options_.growthFill, kGrowthBatch);
    const SetUpResult filled = spreadPush(address_, options_, queue, options_.growthFill, hot, kFillItemsPerRequest,
                                          kFillTimeLimit);
    noteSetUp(pop, "prefilled", filled);
    pop.details["hotPartitions"] = hot;
    popAck(pop, options_, kGrowthBatch, filled.messages, meter_);
    step.lines = {push, pop};
    return step;
}

GrowthStep GrowthRunner::groupsStep(int groups) {
    GrowthStep step;
    step.value = groups;
    const std::string queue = queues_.newQueue("grow-groups", groups);
    emit_(formatGrowthStepHeader(kScenarioGrowGroups, groups, "consumer groups", kGrowthBatch));
    ScenarioResult pop = line("groups-pop", options_.partitions, queue);
    std::string configureError;
    if (!configureQueue(address_, options_, queue, configureError)) pop.firstError = configureError;
    const PushLoadResult filled = pushLoad(address_, options_, queue, kFillItemsPerRequest, options_.growthFill,
                                           BenchClock::now() + kFillTimeLimit, 1);
    pop.details["prefilledMessages"] = static_cast<double>(filled.queued);
    pop.details["groups"] = groups;
    pop.errors += filled.errors;
    if (pop.firstError.empty()) pop.firstError = filled.firstError;
    LoadSpread spread;
    spread.groups = groupNames(groups);
    // Each group joins before the window (its first pop registers it, tens of milliseconds per
    // group): the window measures deliveries, not joins. The join pops one message and acks it.
    const SetUpResult joined = joinGroups(address_, options_, queue, spread.groups);
    noteSetUp(pop, "joined", joined);
    // Every message once per group: a delivery is one message acked by one group.
    popAck(pop, options_, kGrowthBatch, filled.queued * groups - joined.messages, meter_, spread);
    step.lines = {pop};
    return step;
}

GrowthStep GrowthRunner::payloadStep(int payloadBytes) {
    GrowthStep step;
    step.value = payloadBytes;
    const std::string queue = queues_.newQueue("grow-payload", payloadBytes);
    emit_(formatGrowthStepHeader(kScenarioGrowPayload, payloadBytes, "payload filler bytes", payloadBatch(payloadBytes)));
    BenchOptions sized = options_;
    sized.payloadBytes = payloadBytes;
    LoadSpread incompressible;
    incompressible.incompressiblePayload = true;
    const int batch = payloadBatch(payloadBytes);
    ScenarioResult push = line("payload-push", options_.partitions, queue);
    push.batch = batch;
    push.details["payloadBytes"] = payloadBytes;
    std::string configureError;
    if (!configureQueue(address_, sized, queue, configureError)) push.firstError = configureError;
    const PushLoadResult pushed = pushLoad(address_, sized, queue, batch,
                                           payloadMessageLimit(payloadBytes, options_.maxMessagesPerScenario),
                                           deadlineAfter(options_.growthSeconds), kStepLatencySamples, meter_,
                                           incompressible);
    takePushLoad(push, pushed);
    show(push);
    // Pop+ack consumes what the push stored.
    ScenarioResult pop = line("payload-pop", options_.partitions, queue);
    pop.batch = batch;
    pop.details["payloadBytes"] = payloadBytes;
    popAck(pop, sized, batch, pushed.queued, meter_);
    step.lines = {push, pop};
    return step;
}

GrowthStep GrowthRunner::brokersStep(int brokers) {
    GrowthStep step;
    step.value = brokers;
    const std::string queue = queues_.newQueue("grow-brokers", brokers);
    emit_(formatGrowthStepHeader(kScenarioGrowBrokers, brokers, "brokers on one database", kGrowthBatch));
    LoadSpread spread;
    spread.brokers.push_back(address_);
    std::vector<int> pids;
    if (options_.brokerPid > 0) pids.push_back(options_.brokerPid);
    for (int i = 0; i + 1 < brokers; ++i) {
        spread.brokers.push_back(parseBrokerUrl(options_.extraUrls[static_cast<std::size_t>(i)]));
        if (static_cast<std::size_t>(i) < options_.extraBrokerPids.size())
            pids.push_back(options_.extraBrokerPids[static_cast<std::size_t>(i)]);
    }
    // Broker CPU is the sum over the step's brokers, or not a figure when a pid is unknown.
    if (pids.size() != static_cast<std::size_t>(brokers)) pids.clear();
    std::unique_ptr<CostMeter> meter;
    ScenarioResult push = line("brokers-push", options_.partitions, queue);
    try {
        meter = std::make_unique<CostMeter>(pids, options_.postgresUrl);
    } catch (const std::exception& e) {
        push.firstError = std::string("cost meter: ") + e.what();
    }
    push.details["brokers"] = brokers;
    std::string configureError;
    if (!configureQueue(address_, options_, queue, configureError)) push.firstError = configureError;
    const PushLoadResult pushed = pushLoad(address_, options_, queue, kGrowthBatch, options_.maxMessagesPerScenario,
                                           deadlineAfter(options_.growthSeconds), kStepLatencySamples, meter.get(),
                                           spread);
    takePushLoad(push, pushed);
    show(push);
    ScenarioResult pop = line("brokers-pop", options_.partitions, queue);
    pop.details["brokers"] = brokers;
    popAck(pop, options_, kGrowthBatch, pushed.queued, meter.get(), spread);
    step.lines = {push, pop};
    return step;
}

GrowthResult GrowthRunner::runPartitions() {
    std::vector<GrowthStep> steps;
    for (int partitions : options_.growthPartitions) steps.push_back(partitionsStep(partitions));
    return finish(kScenarioGrowPartitions, "partitions", std::move(steps));
}

GrowthResult GrowthRunner::runGroups() {
    std::vector<GrowthStep> steps;
    for (int groups : options_.growthGroups) steps.push_back(groupsStep(groups));
    return finish(kScenarioGrowGroups, "consumer groups", std::move(steps));
}

GrowthResult GrowthRunner::runPayloads() {
    std::vector<GrowthStep> steps;
    for (int bytes : options_.growthPayloads) steps.push_back(payloadStep(bytes));
    return finish(kScenarioGrowPayload, "payload bytes", std::move(steps));
}

GrowthResult GrowthRunner::runBrokers() {
    std::vector<GrowthStep> steps;
    const int most = 1 + static_cast<int>(options_.extraUrls.size());
    for (int brokers = 1; brokers <= most; ++brokers) steps.push_back(brokersStep(brokers));
    return finish(kScenarioGrowBrokers, "brokers", std::move(steps));
}

} // namespace bench
