#include "anchor_core.h"

#include "../cost_meter.h"
#include "../options.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

namespace anchor {
namespace {

using bench::parseBoundedInt;
using bench::parsePositiveDouble;
using bench::splitComma;

std::optional<std::vector<int>> parseBatchList(const std::string& text) {
    std::vector<int> values;
    for (const auto& part : splitComma(text)) {
        std::int64_t value = 0;
        // basic.qos prefetch-count, set to the batch, is a 16-bit field.
        if (!parseBoundedInt(part, 1, 65'535, value)) return std::nullopt;
        values.push_back(static_cast<int>(value));
    }
    if (values.empty()) return std::nullopt;
    return values;
}

ParseResult failure(std::string message) {
    ParseResult result;
    result.error = std::move(message);
    return result;
}

template <typename... Values>
std::string format(const char* pattern, Values... values) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, pattern, values...);
    return buffer;
}

} // namespace

ParseResult parseAnchorOptions(const std::vector<std::string>& args) {
    AnchorOptions options;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        if (flag == "--help" || flag == "-h") {
            ParseResult result;
            result.helpRequested = true;
            return result;
        }
        if (flag == "--keep-queues") {
            options.keepQueues = true;
            continue;
        }
        static const std::set<std::string> kValueFlags = {
            "--host", "--port", "--user", "--password", "--vhost", "--producers", "--queues", "--message-bytes",
            "--duration", "--batches", "--scenario", "--max-messages", "--prefill", "--prefill-max", "--io-timeout",
            "--max-latency-samples", "--server-pid", "--json", "--queue-prefix"};
        if (kValueFlags.count(flag) == 0) return failure("unknown option " + flag);
        if (i + 1 >= args.size()) return failure(flag + " needs a value");
        const std::string& value = args[++i];
        std::int64_t number = 0;
        auto bounded = [&](std::int64_t low, std::int64_t high) { return parseBoundedInt(value, low, high, number); };
        auto invalid = [&]() { return failure("invalid value for " + flag + ": '" + value + "'"); };

        if (flag == "--host") {
            if (value.empty()) return invalid();
            options.host = value;
        } else if (flag == "--port") {
            if (!bounded(1, 65535)) return invalid();
            options.port = static_cast<int>(number);
        } else if (flag == "--user") {
            options.user = value;
        } else if (flag == "--password") {
            options.password = value;
        } else if (flag == "--vhost") {
            if (value.empty()) return invalid();
            options.vhost = value;
        } else if (flag == "--producers") {
            if (!bounded(1, 1000)) return invalid();
            options.producers = static_cast<int>(number);
        } else if (flag == "--queues") {
            if (!bounded(1, 1000)) return invalid();
            options.queues = static_cast<int>(number);
        } else if (flag == "--message-bytes") {
            if (!bounded(0, 16 * 1024 * 1024)) return invalid();
            options.messageBytes = static_cast<int>(number);
        } else if (flag == "--duration") {
            if (!parsePositiveDouble(value, options.durationSeconds) || options.durationSeconds > 3600) return invalid();
        } else if (flag == "--batches") {
            auto batches = parseBatchList(value);
            if (!batches) return invalid();
            options.batches = *batches;
        } else if (flag == "--scenario") {
            const std::vector<std::string> names = splitComma(value);
            if (names.empty()) return invalid();
            for (const auto& name : names)
                if (name != kScenarioPush && name != kScenarioPopAck)
                    return failure("unknown scenario '" + name + "' (push, popack)");
            options.scenarios = names;
        } else if (flag == "--max-messages") {
            if (!bounded(1, INT64_MAX)) return invalid();
            options.maxMessagesPerScenario = number;
        } else if (flag == "--prefill") {
            if (!bounded(1, 100'000'000)) return invalid();
            options.prefill = number;
        } else if (flag == "--prefill-max") {
            if (!bounded(1, 100'000'000)) return invalid();
            options.prefillMax = number;
        } else if (flag == "--io-timeout") {
            if (!bounded(1, 3600)) return invalid();
            options.ioTimeoutSeconds = static_cast<int>(number);
        } else if (flag == "--max-latency-samples") {
            if (!bounded(1, 100'000'000)) return invalid();
            options.maxLatencySamples = static_cast<std::size_t>(number);
        } else if (flag == "--server-pid") {
            if (!bounded(1, INT32_MAX)) return invalid();
            options.serverPid = static_cast<int>(number);
        } else if (flag == "--json") {
            if (value.empty()) return invalid();
            options.jsonPath = value;
        } else if (flag == "--queue-prefix") {
            if (value.empty()) return invalid();
            options.queuePrefix = value;
        }
    }
    ParseResult result;
    result.options = std::move(options);
    return result;
}

std::string usageText() {
    return R"(usage: queen-rabbitmq-anchor [options]
  --host H / --port N       RabbitMQ AMQP 0-9-1 listener (default 127.0.0.1:5672)
  --user U / --password P   credentials (default guest / guest)
  --vhost V                 virtual host (default /)
  --producers N             publishing connections, one thread each (default 10)
  --queues N                durable quorum queues, one consumer connection each (default 10)
  --message-bytes N         body size of each message (default 100)
  --duration S              seconds per scenario (default 10)
  --batches LIST            batch sizes, e.g. 1,10,100 (default)
  --scenario LIST           push,popack (default both)
  --max-messages N          count bound per scenario (default 5000000)
  --prefill N               messages pre-filled per pop+ack scenario (default batch*5000 in [20000, prefill-max])
  --prefill-max N           cap of the derived pre-fill (default 200000)
  --io-timeout S            bound of the connect, of every RPC and of each wait for confirms or deliveries (default 30)
  --max-latency-samples N   latency samples kept per scenario (default 2000000)
  --server-pid PID          the server's beam.smp: its process tree's CPU per message
  --json FILE               also write the results as JSON
  --queue-prefix NAME       prefix of the queues the anchor declares (default anchor)
  --keep-queues             do not delete the queues afterwards
)";
}

std::int64_t prefillCountFor(const AnchorOptions& options, int batch) {
    return bench::prefillCount(options.prefill, options.prefillMax, batch);
}

std::int64_t prefillPerQueue(std::int64_t total, int queues) {
    if (queues <= 0 || total <= 0) return 0;
    return (total + queues - 1) / queues;
}

int queueForBatch(int producer, std::int64_t batchIndex, int queues) {
    return static_cast<int>((static_cast<std::int64_t>(producer) + batchIndex) % queues);
}

std::string queueName(const std::string& prefix, const std::string& scenario, int batch, const std::string& runId,
                      int index) {
    return prefix + "-" + scenario + "-b" + std::to_string(batch) + "-" + runId + "-q" + std::to_string(index);
}

std::uint64_t ConfirmTracker::published() {
    const std::uint64_t tag = nextTag_++;
    pending_.insert(tag);
    return tag;
}

void ConfirmTracker::settle(std::uint64_t tag, bool multiple, bool negative) {
    // Tags already settled, or never published, change nothing: a confirm counts a message once.
    std::uint64_t settled = 0;
    if (multiple) {
        const auto end = pending_.upper_bound(tag);
        settled = static_cast<std::uint64_t>(std::distance(pending_.begin(), end));
        pending_.erase(pending_.begin(), end);
    } else {
        settled = pending_.erase(tag);
    }
    (negative ? nacked_ : confirmed_) += settled;
}

std::optional<ProcessCpu> parseProcStat(int pid, std::string_view statText) {
    const auto parent = bench::statParentPid(statText);
    const auto ticks = bench::statCpuTicks(statText, /*withChildren=*/true);
    if (!parent || !ticks) return std::nullopt;
    return ProcessCpu{pid, *parent, *ticks};
}

std::optional<std::uint64_t> treeCpuTicks(const std::vector<ProcessCpu>& processes, int root) {
    std::multimap<int, const ProcessCpu*> children;
    const ProcessCpu* rootProcess = nullptr;
    for (const ProcessCpu& process : processes) {
        children.emplace(process.parentPid, &process);
        if (process.pid == root) rootProcess = &process;
    }
    if (rootProcess == nullptr) return std::nullopt;
    std::uint64_t total = 0;
    std::vector<const ProcessCpu*> stack = {rootProcess};
    std::set<int> seen;
    while (!stack.empty()) {
        const ProcessCpu* process = stack.back();
        stack.pop_back();
        // A pid seen twice (pid reuse between two reads of /proc) is counted once.
        if (!seen.insert(process->pid).second) continue;
        total += process->ticks;
        const auto [begin, end] = children.equal_range(process->pid);
        for (auto child = begin; child != end; ++child) stack.push_back(child->second);
    }
    return total;
}

std::optional<double> cpuMicrosPerMessage(std::optional<std::uint64_t> ticksBefore,
                                          std::optional<std::uint64_t> ticksAfter, long ticksPerSecond,
                                          std::int64_t messages) {
    if (!ticksBefore || !ticksAfter || messages <= 0 || ticksPerSecond <= 0 || *ticksAfter < *ticksBefore)
        return std::nullopt;
    const double seconds = static_cast<double>(*ticksAfter - *ticksBefore) / static_cast<double>(ticksPerSecond);
    return seconds * 1e6 / static_cast<double>(messages);
}

std::string formatColumnTitles() {
    return format("%-8s %6s %6s %6s %12s %9s %9s %9s %7s %12s", "scenario", "batch", "prod", "queues", "msg/s",
                  "p50_ms", "p99_ms", "messages", "errors", "server_us/msg");
}

std::string formatScenarioLine(const ScenarioResult& result) {
    const std::string cpu = result.serverCpuUsPerMessage ? format("%.1f", *result.serverCpuUsPerMessage) : "-";
    const int connections = result.scenario == kScenarioPush ? result.producers : result.consumers;
    std::string line = format("%-8s %6d %6d %6d %12.1f %9.2f %9.2f %9lld %7lld %12s", result.scenario.c_str(),
                              result.batch, connections, result.queues, result.messagesPerSecond,
                              result.latency.p50Ms, result.latency.p99Ms, static_cast<long long>(result.messages),
                              static_cast<long long>(result.errors), cpu.c_str());
    if (result.scenario == kScenarioPopAck)
        line += result.drained ? "  (drained)" : format("  (of %lld pre-filled)", static_cast<long long>(result.prefilled));
    if (!result.firstError.empty()) line += "\n  first error: " + result.firstError;
    return line;
}

std::string resultsToJson(const AnchorOptions& options, const std::string& runId, const std::string& startedAtUtc,
                          const std::string& serverVersion, const std::vector<ScenarioResult>& results) {
    using json = nlohmann::ordered_json;
    json scenarios = json::array();
    for (const ScenarioResult& result : results) {
        scenarios.push_back({
            {"scenario", result.scenario},
            {"batch", result.batch},
            {"producers", result.producers},
            {"consumers", result.consumers},
            {"queues", result.queues},
            {"elapsedSeconds", result.elapsedSeconds},
            {"messages", result.messages},
            {"errors", result.errors},
            {"messagesPerSecond", result.messagesPerSecond},
            {"latency", {{"samples", result.latency.count}, {"p50Ms", result.latency.p50Ms},
                         {"p99Ms", result.latency.p99Ms}, {"maxMs", result.latency.maxMs},
                         {"droppedSamples", result.droppedSamples}}},
            {"serverCpuUsPerMessage",
             result.serverCpuUsPerMessage ? json(*result.serverCpuUsPerMessage) : json(nullptr)},
            {"prefilled", result.scenario == kScenarioPopAck ? json(result.prefilled) : json(nullptr)},
            {"drained", result.scenario == kScenarioPopAck ? json(result.drained) : json(nullptr)},
            {"firstError", result.firstError.empty() ? json(nullptr) : json(result.firstError)},
        });
    }
    const json document = {
        {"broker", "rabbitmq"},
        {"serverVersion", serverVersion},
        {"runId", runId},
        {"startedAt", startedAtUtc},
        {"conditions",
         {{"host", options.host}, {"port", options.port}, {"durationSeconds", options.durationSeconds},
          {"producers", options.producers}, {"queues", options.queues}, {"messageBytes", options.messageBytes},
          {"batches", options.batches}, {"queueType", "quorum"}, {"persistent", true}, {"publisherConfirms", true},
          {"serverPid", options.serverPid == 0 ? json(nullptr) : json(options.serverPid)}}},
        {"scenarios", std::move(scenarios)},
    };
    return document.dump(2) + "\n";
}

} // namespace anchor
