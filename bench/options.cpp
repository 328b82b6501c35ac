#include "options.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace bench {
namespace {

bool parseInt64(const std::string& text, std::int64_t& out) {
    if (text.empty()) return false;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

bool isKnownScenario(const std::string& name) {
    for (const char* known : {kScenarioPush, kScenarioPopAck, kScenarioWake, kScenarioRawPush, kScenarioRawLease,
                              kScenarioSteady, kScenarioGrowPartitions, kScenarioGrowGroups, kScenarioGrowPayload,
                              kScenarioGrowBrokers, kScenarioLatency, kScenarioStream})
        if (name == known) return true;
    return false;
}

bool lists(const std::vector<std::string>& names, const char* name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

ParseResult failure(std::string message) {
    ParseResult result;
    result.error = std::move(message);
    return result;
}

} // namespace

bool parseBoundedInt(const std::string& text, std::int64_t low, std::int64_t high, std::int64_t& out) {
    return parseInt64(text, out) && out >= low && out <= high;
}

bool parsePositiveDouble(const std::string& text, double& out) {
    try {
        std::size_t used = 0;
        out = std::stod(text, &used);
        return used == text.size() && out > 0.0;
    } catch (const std::exception&) {
        return false;
    }
}

std::vector<std::string> splitComma(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, ',')) parts.push_back(part);
    return parts;
}

std::optional<std::vector<int>> parsePositiveIntList(const std::string& text) {
    return parseBoundedIntList(text, 1, 1'000'000);
}

std::optional<std::vector<int>> parseBoundedIntList(const std::string& text, std::int64_t low, std::int64_t high) {
    std::vector<int> values;
    for (const auto& part : splitComma(text)) {
        std::int64_t value = 0;
        if (!parseBoundedInt(part, low, high, value)) return std::nullopt;
        values.push_back(static_cast<int>(value));
    }
    if (values.empty()) return std::nullopt;
    return values;
}

std::int64_t prefillCount(std::int64_t prefill, std::int64_t prefillMax, int batch) {
    if (prefill > 0) return prefill;
    const std::int64_t floor = std::min<std::int64_t>(20'000, prefillMax);
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(batch) * 5'000, floor, prefillMax);
}

std::int64_t prefillCountFor(const BenchOptions& options, int batch) {
    return prefillCount(options.prefill, options.prefillMax, batch);
}

ParseResult parseBenchOptions(const std::vector<std::string>& args) {
    BenchOptions options;
    bool scenariosGiven = false;
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
        if (i + 1 >= args.size()) return failure(flag + " needs a value");
        const std::string& value = args[++i];
        std::int64_t number = 0;
        auto bounded = [&](std::int64_t low, std::int64_t high) {
            return parseBoundedInt(value, low, high, number);
        };
        auto invalid = [&]() { return failure("invalid value for " + flag + ": '" + value + "'"); };

        if (flag == "--url") {
            if (value.rfind("http://", 0) != 0) return failure("--url must start with http://");
            options.url = value;
        } else if (flag == "--consumer-url") {
            if (value.rfind("http://", 0) != 0) return failure("--consumer-url must start with http://");
            options.consumerUrl = value;
        } else if (flag == "--connections") {
            if (!bounded(1, 1000)) return invalid();
            options.connections = static_cast<int>(number);
        } else if (flag == "--partitions") {
            if (!bounded(1, 100'000)) return invalid();
            options.partitions = static_cast<int>(number);
        } else if (flag == "--duration") {
            if (!parsePositiveDouble(value, options.durationSeconds) || options.durationSeconds > 3600) return invalid();
        } else if (flag == "--batches") {
            auto batches = parsePositiveIntList(value);
            if (!batches) return invalid();
            options.batches = *batches;
        } else if (flag == "--scenario") {
            std::vector<std::string> names = splitComma(value);
            if (names.empty()) return invalid();
            for (const auto& name : names)
                if (!isKnownScenario(name))
                    return failure("unknown scenario '" + name +
                                   "' (push, popack, wake, raw-push, raw-lease, steady, grow-partitions, grow-groups, "
                                   "grow-payload, grow-brokers, latency)");
            options.scenarios = names;
            scenariosGiven = true;
        } else if (flag == "--json") {
            options.jsonPath = value;
        } else if (flag == "--max-messages") {
            if (!bounded(1, INT64_MAX)) return invalid();
            options.maxMessagesPerScenario = number;
        } else if (flag == "--prefill") {
            if (!bounded(1, 100'000'000)) return invalid();
            options.prefill = number;
        } else if (flag == "--prefill-max") {
            if (!bounded(1, 100'000'000)) return invalid();
            options.prefillMax = number;
        } else if (flag == "--payload-bytes") {
            if (!bounded(0, 16 * 1024 * 1024)) return invalid();
            options.payloadBytes = static_cast<int>(number);
        } else if (flag == "--wake-iterations") {
            if (!bounded(1, 100'000)) return invalid();
            options.wakeIterations = static_cast<int>(number);
        } else if (flag == "--wake-settle-ms") {
            if (!bounded(0, 60'000)) return invalid();
            options.wakeSettleMs = static_cast<int>(number);
        } else if (flag == "--wake-timeout-ms") {
            if (!bounded(100, 600'000)) return invalid();
            options.wakeTimeoutMs = static_cast<int>(number);
        } else if (flag == "--http-timeout") {
            if (!bounded(1, 3600)) return invalid();
            options.httpTimeoutSeconds = static_cast<int>(number);
        } else if (flag == "--max-latency-samples") {
            if (!bounded(1, 100'000'000)) return invalid();
            options.maxLatencySamples = static_cast<std::size_t>(number);
        } else if (flag == "--broker-pid") {
            if (!bounded(1, INT32_MAX)) return invalid();
            options.brokerPid = static_cast<int>(number);
        } else if (flag == "--pg-url") {
            if (value.empty()) return invalid();
            options.postgresUrl = value;
        } else if (flag == "--raw-pg-url") {
            if (value.empty()) return invalid();
            options.rawPostgresUrl = value;
        } else if (flag == "--steady-round-seconds") {
            if (!parsePositiveDouble(value, options.steadyRoundSeconds) || options.steadyRoundSeconds > 3600)
                return invalid();
        } else if (flag == "--steady-rounds") {
            if (!bounded(2, 1000)) return invalid();
            options.steadyRounds = static_cast<int>(number);
        } else if (flag == "--queue-prefix") {
            if (value.empty()) return invalid();
            options.queuePrefix = value;
        } else if (flag == "--popack-queue") {
            if (value.empty()) return invalid();
            options.popackQueue = value;
        } else if (flag == "--growth-seconds") {
            if (!parsePositiveDouble(value, options.growthSeconds) || options.growthSeconds > 600) return invalid();
        } else if (flag == "--growth-partitions") {
            auto steps = parseBoundedIntList(value, 1, 100'000);
            if (!steps) return invalid();
            options.growthPartitions = *steps;
        } else if (flag == "--growth-groups") {
            auto steps = parseBoundedIntList(value, 1, 1'000);
            if (!steps) return invalid();
            options.growthGroups = *steps;
        } else if (flag == "--growth-payloads") {
            // 8 MiB is the broker's longest JSON string (JSON_MAX_STRING_BYTES).
            auto steps = parseBoundedIntList(value, 1, 8 * 1024 * 1024 - 1024);
            if (!steps) return invalid();
            options.growthPayloads = *steps;
        } else if (flag == "--growth-fill") {
            if (!bounded(100, 1'000'000)) return invalid();
            options.growthFill = number;
        } else if (flag == "--extra-url") {
            if (value.rfind("http://", 0) != 0) return failure("--extra-url must start with http://");
            options.extraUrls.push_back(value);
        } else if (flag == "--extra-broker-pid") {
            if (!bounded(1, INT32_MAX)) return invalid();
            options.extraBrokerPids.push_back(static_cast<int>(number));
        } else if (flag == "--latency-percents") {
            auto percents = parseBoundedIntList(value, 1, 100);
            if (!percents) return invalid();
            options.latencyPercents = *percents;
        } else if (flag == "--latency-connections") {
            if (!bounded(1, 1000)) return invalid();
            options.latencyConnections = static_cast<int>(number);
        } else if (flag == "--label") {
            const auto eq = value.find('=');
            if (eq == std::string::npos || eq == 0) return failure("--label expects key=value, got '" + value + "'");
            options.labels[value.substr(0, eq)] = value.substr(eq + 1);
        } else {
            return failure("unknown option " + flag);
        }
    }
    if (!scenariosGiven && !options.rawPostgresUrl.empty()) {
        options.scenarios.emplace_back(kScenarioRawPush);
        options.scenarios.emplace_back(kScenarioRawLease);
    }
    if ((lists(options.scenarios, kScenarioRawPush) || lists(options.scenarios, kScenarioRawLease)) &&
        options.rawPostgresUrl.empty())
        return failure("the raw-push and raw-lease scenarios need --raw-pg-url");
    if (!options.extraBrokerPids.empty() && options.extraBrokerPids.size() != options.extraUrls.size())
        return failure("--extra-broker-pid must be given once per --extra-url, in the same order");
    if (lists(options.scenarios, kScenarioGrowBrokers) && options.extraUrls.empty())
        return failure("the grow-brokers scenario needs at least one --extra-url");
    ParseResult result;
    result.options = std::move(options);
    return result;
}

std::string usageText() {
    return R"(usage: queen-bench [options]
  --url URL                 broker base URL (default http://127.0.0.1:6632)
  --consumer-url URL        wake scenario: park the long poll on this mesh peer of --url (scenario wake-mesh)
  --connections N           HTTP keep-alive connections, one thread each (default 10)
  --partitions P            partitions of each fresh queue (default 10)
  --duration S              seconds per push / pop+ack scenario (default 10)
  --batches LIST            batch sizes, e.g. 1,10,100 (default)
  --scenario LIST           push,popack,wake,raw-push,raw-lease,steady,grow-partitions,grow-groups,
                            grow-payload,grow-brokers,latency,stream (default push,popack,wake, and
                            raw-push,raw-lease when --raw-pg-url is given)
  --json FILE               also write the results as JSON
  --max-messages N          count bound per scenario (default 5000000)
  --prefill N               messages pre-filled per pop+ack scenario (default batch*5000 in [20000, prefill-max])
  --prefill-max N           cap of the derived pre-fill (default 200000)
  --payload-bytes N         filler bytes in each payload (default 64)
  --wake-iterations N       long-poll wake samples (default 50)
  --wake-settle-ms MS       pause after sending the long poll before pushing (default 50)
  --wake-timeout-ms MS      long-poll timeout (default 5000)
  --http-timeout S          socket timeout for ordinary requests (default 30)
  --max-latency-samples N   latency samples kept per scenario (default 2000000)
  --broker-pid PID          report the broker's RSS: peak per scenario (VmHWM, reset through
                            /proc/PID/clear_refs when allowed) and over the run
  --pg-url URL              libpq URL of the broker's database: PostgreSQL CPU and WAL bytes per message
  --raw-pg-url URL          libpq URL of a scratch database in the same cluster for the raw-push and
                            raw-lease anchors (their tables are dropped and recreated each run)
  --steady-round-seconds S  one steady round: S/2 pushing, then S/2 pop+acking (default 10)
  --steady-rounds N         rounds of the steady scenario (default 10)
  --queue-prefix NAME       prefix of the queues the bench creates (default bench)
  --keep-queues             do not delete the bench queues afterwards
  --popack-queue NAME       pop+ack consumes this existing queue (pre-filled into p0..pP-1), kept afterwards
  --growth-seconds S        growth scenarios and latency: one measured window (default 5, at most 600)
  --growth-partitions LIST  grow-partitions steps (default 10,1000,100000; each 1..100000)
  --growth-groups LIST      grow-groups steps: consumer groups on one queue (default 1,10,50; each 1..1000)
  --growth-payloads LIST    grow-payload steps: filler bytes per message (default 100,65536,1048576; < 8 MiB)
  --growth-fill N           messages pre-filled for a growth step's pop+ack (default 20000, 100..1000000)
  --extra-url URL           grow-brokers: another broker on the same database (repeatable)
  --extra-broker-pid PID    its pid, for its CPU (once per --extra-url, same order)
  --latency-percents LIST   latency: open-loop rates as % of the capacity just measured (default 50,90)
  --latency-connections N   latency: connections sending the scheduled requests (default 32, 1..1000)
  --label KEY=VALUE         a condition to print in the header and the JSON (repeatable)
)";
}

} // namespace bench
