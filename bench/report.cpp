#include "report.h"

#include <cstdio>
#include <ctime>
#include <sstream>

#include <nlohmann/json.hpp>

#include "reference.h"

namespace bench {
namespace {

using json = nlohmann::ordered_json;

template <typename... Values>
std::string format(const char* pattern, Values... values) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, pattern, values...);
    return buffer;
}

double kbToMb(std::int64_t kb) { return static_cast<double>(kb) / 1024.0; }

json memoryJson(const std::optional<ProcessMemory>& memory) {
    if (!memory) return nullptr;
    return {{"peakRssKb", memory->peakRssKb}, {"rssKb", memory->currentRssKb}};
}

// 0.90k, 6.3k, 15.0k: the precision the reference figures were measured with.
std::string kilo(double messagesPerSecond) {
    const double k = messagesPerSecond / 1000.0;
    return format(k < 1 ? "%.2fk" : "%.1fk", k);
}

json referenceJson(const ScenarioResult& result) {
    const auto reference = referenceFor(result.scenario, result.batch);
    if (!reference) return nullptr;
    return {{"queenMessagesPerSecond", reference->queenMessagesPerSecond},
            {"targetMessagesPerSecond", reference->targetMessagesPerSecond},
            {"targetMet", result.messagesPerSecond >= reference->targetMessagesPerSecond}};
}

} // namespace

std::string utcNowIso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

std::string formatHeader(const BenchOptions& options, const RunConditions& conditions) {
    std::ostringstream out;
    out << "queen-bench run " << conditions.runId << " at " << conditions.startedAtUtc << "\n";
    out << "conditions: broker " << options.url << ", cores " << conditions.cores << ", duration "
        << options.durationSeconds << " s per scenario, connections " << options.connections << ", partitions "
        << options.partitions << ", payload filler " << options.payloadBytes << " B\n";
    if (!options.labels.empty()) {
        out << "conditions:";
        for (const auto& [key, value] : options.labels) out << " " << key << "=" << value;
        out << "\n";
    }
    out << "reference: " << referenceNote() << "\n";
    return out.str();
}

std::string formatColumnTitles() {
    return format("%-8s %6s %6s %6s %12s %9s %9s %9s %7s %10s %7s %7s", "scenario", "batch", "conns", "parts",
                  "msg/s", "p50_ms", "p99_ms", "messages", "errors", "rss_mb", "queen", "target");
}

std::string formatScenarioLine(const ScenarioResult& result) {
    const bool latencyOnly = result.scenario.rfind(kScenarioWake, 0) == 0;  // wake, wake-mesh
    const std::string rate = latencyOnly ? "-" : format("%.1f", result.messagesPerSecond);
    const std::string rss = result.brokerMemory ? format("%.1f", kbToMb(result.brokerMemory->peakRssKb)) : "-";
    const auto reference = referenceFor(result.scenario, result.batch);
    const std::string queen = reference ? kilo(reference->queenMessagesPerSecond) : "-";
    const std::string target = reference ? kilo(reference->targetMessagesPerSecond) : "-";
    std::string line = format("%-8s %6d %6d %6d %12s %9.2f %9.2f %9lld %7lld %10s %7s %7s", result.scenario.c_str(),
                              result.batch, result.connections, result.partitions, rate.c_str(), result.latency.p50Ms,
                              result.latency.p99Ms, static_cast<long long>(result.messages),
                              static_cast<long long>(result.errors), rss.c_str(), queen.c_str(), target.c_str());
    if (!result.firstError.empty()) line += "\n  first error: " + result.firstError;
    return line;
}

std::string formatPeakRss(const std::optional<ProcessMemory>& memory) {
    if (!memory) return "broker peak RSS: not measured (no --broker-pid, or the process is gone)";
    return format("broker peak RSS: %.1f MB (VmHWM, highest of the scenarios), RSS at end %.1f MB (target <= 32 MiB)",
                  kbToMb(memory->peakRssKb), kbToMb(memory->currentRssKb));
}

std::string resultsToJson(const BenchOptions& options, const RunConditions& conditions,
                          const std::vector<ScenarioResult>& results, const std::optional<ProcessMemory>& finalMemory) {
    json scenarios = json::array();
    for (const ScenarioResult& result : results) {
        json details = json::object();
        for (const auto& [key, value] : result.details) details[key] = value;
        scenarios.push_back({
            {"scenario", result.scenario},
            {"batch", result.batch},
            {"connections", result.connections},
            {"partitions", result.partitions},
            {"queue", result.queue},
            {"elapsedSeconds", result.elapsedSeconds},
            {"messages", result.messages},
            {"requests", result.requests},
            {"errors", result.errors},
            {"messagesPerSecond", result.scenario.rfind(kScenarioWake, 0) == 0 ? json(nullptr)
                                                                               : json(result.messagesPerSecond)},
            {"latency", {{"samples", result.latency.count}, {"p50Ms", result.latency.p50Ms},
                         {"p99Ms", result.latency.p99Ms}, {"maxMs", result.latency.maxMs},
                         {"droppedSamples", result.droppedSamples}}},
            {"details", std::move(details)},
            {"firstError", result.firstError.empty() ? json(nullptr) : json(result.firstError)},
            {"brokerMemory", memoryJson(result.brokerMemory)},
            {"brokerPeakIsPerScenario", result.peakIsPerScenario},
            {"reference", referenceJson(result)},
        });
    }
    json labels = json::object();
    for (const auto& [key, value] : options.labels) labels[key] = value;
    const json document = {
        {"runId", conditions.runId},
        {"startedAt", conditions.startedAtUtc},
        {"conditions", {{"url", options.url}, {"cores", conditions.cores},
                        {"durationSeconds", options.durationSeconds}, {"connections", options.connections},
                        {"partitions", options.partitions}, {"payloadBytes", options.payloadBytes},
                        {"batches", options.batches}, {"labels", std::move(labels)}}},
        {"scenarios", std::move(scenarios)},
        {"broker", memoryJson(finalMemory)},
    };
    return document.dump(2) + "\n";
}

} // namespace bench
