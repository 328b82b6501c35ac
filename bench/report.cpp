#include "report.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>

#include <cmath>

#include <nlohmann/json.hpp>

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

json optionalJson(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

// "12.3", or "-" when not measured.
std::string figureOrDash(const std::optional<double>& value, const char* pattern) {
    return value ? format(pattern, *value) : "-";
}

json costJson(const MessageCost& cost) {
    return {{"brokerUsPerMessage", optionalJson(cost.brokerUsPerMessage)},
            {"postgresUsPerMessage", optionalJson(cost.postgresUsPerMessage)},
            {"walBytesPerMessage", optionalJson(cost.walBytesPerMessage)}};
}

json anchorJson(const std::optional<AnchorComparison>& anchor) {
    if (!anchor) return nullptr;
    return {{"scenario", anchor->scenario},
            {"messagesPerSecond", anchor->messagesPerSecond},
            {"ratio", anchor->ratio},
            {"postgresCpuRatio", optionalJson(anchor->postgresCpuRatio)},
            {"walRatio", optionalJson(anchor->walRatio)}};
}

// broker 95.1, pg 120.3 us/msg, wal 450 B/msg
std::string costWords(const MessageCost& cost) {
    return "broker " + figureOrDash(cost.brokerUsPerMessage, "%.1f") + " pg " +
           figureOrDash(cost.postgresUsPerMessage, "%.1f") + " us/msg, wal " +
           figureOrDash(cost.walBytesPerMessage, "%.0f") + " B/msg";
}

std::string ratioText(const Spread& spread) {
    return std::isinf(spread.ratio) ? "inf" : format("%.2f", spread.ratio);
}

// "push     fastest/slowest 1.12 (8123.0 / 7250.1 msg/s) PASS (target <= 1.5); cpu/msg dearest/cheapest 1.05 (...)"
std::string spreadLine(const char* what, const Spread& rate, const std::optional<Spread>& cpu) {
    std::string line = format("steady    %-8s fastest/slowest %s (%.1f / %.1f msg/s) %s (target <= %.1f)", what,
                              ratioText(rate).c_str(), rate.highest, rate.lowest, rate.pass ? "PASS" : "OVER",
                              kSteadyTarget);
    if (cpu)
        line += format("; cpu/msg dearest/cheapest %s (%.1f / %.1f us/msg) %s", ratioText(*cpu).c_str(), cpu->highest,
                       cpu->lowest, cpu->pass ? "PASS" : "OVER");
    return line;
}

json halfJson(const SteadyHalf& half) {
    return {{"elapsedSeconds", half.elapsedSeconds}, {"messages", half.messages}, {"errors", half.errors},
            {"messagesPerSecond", half.messagesPerSecond}, {"p50Ms", half.p50Ms}, {"p99Ms", half.p99Ms},
            {"cost", costJson(half.cost)}};
}

json spreadJson(const Spread& spread) {
    return {{"fastestMessagesPerSecond", spread.highest}, {"slowestMessagesPerSecond", spread.lowest},
            {"fastestOverSlowest", std::isinf(spread.ratio) ? json(nullptr) : json(spread.ratio)},
            {"target", kSteadyTarget}, {"pass", spread.pass}};
}

json cpuSpreadJson(const std::optional<Spread>& spread) {
    if (!spread) return nullptr;
    return {{"dearestUsPerMessage", spread->highest}, {"cheapestUsPerMessage", spread->lowest},
            {"dearestOverCheapest", std::isinf(spread->ratio) ? json(nullptr) : json(spread->ratio)},
            {"target", kSteadyTarget}, {"pass", spread->pass}};
}

json steadyJson(const SteadyResult& steady) {
    json rounds = json::array();
    for (const SteadyRound& round : steady.rounds)
        rounds.push_back({{"round", round.round}, {"push", halfJson(round.push)},
                          {"popAck", halfJson(round.popAck)}, {"backlog", round.backlog}});
    return {{"queue", steady.queue}, {"batch", steady.batch}, {"connections", steady.connections},
            {"partitions", steady.partitions}, {"roundSeconds", steady.roundSeconds},
            {"rounds", std::move(rounds)}, {"push", spreadJson(steady.push)}, {"popAck", spreadJson(steady.popAck)},
            {"pushCpu", cpuSpreadJson(steady.pushCpu)}, {"popAckCpu", cpuSpreadJson(steady.popAckCpu)},
            {"errors", steady.errors},
            {"firstError", steady.firstError.empty() ? json(nullptr) : json(steady.firstError)}};
}

json scenarioJson(const ScenarioResult& result) {
    json details = json::object();
    for (const auto& [key, value] : result.details) details[key] = value;
    return {
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
                     {"p99Ms", result.latency.p99Ms}, {"p999Ms", result.latency.p999Ms},
                     {"maxMs", result.latency.maxMs}, {"droppedSamples", result.droppedSamples}}},
        {"details", std::move(details)},
        {"firstError", result.firstError.empty() ? json(nullptr) : json(result.firstError)},
        {"brokerMemory", memoryJson(result.brokerMemory)},
        {"brokerPeakIsPerScenario", result.peakIsPerScenario},
        {"cost", costJson(result.cost)},
        {"anchor", anchorJson(result.anchor)},
    };
}

json growthJson(const GrowthResult& growth) {
    json steps = json::array();
    for (const GrowthStep& step : growth.steps) {
        json lines = json::array();
        for (const ScenarioResult& line : step.lines) lines.push_back(scenarioJson(line));
        steps.push_back({{"value", step.value}, {"lines", std::move(lines)}});
    }
    json ratios = json::array();
    for (const GrowthRatio& ratio : growth.ratios)
        ratios.push_back({{"line", ratio.line}, {"firstValue", ratio.firstValue}, {"lastValue", ratio.lastValue},
                          {"firstCpuUsPerMessage", optionalJson(ratio.firstCpuUs)},
                          {"lastCpuUsPerMessage", optionalJson(ratio.lastCpuUs)},
                          {"cpuLastOverFirst", optionalJson(ratio.cpuRatio)},
                          {"firstWalBytesPerMessage", optionalJson(ratio.firstWalBytes)},
                          {"lastWalBytesPerMessage", optionalJson(ratio.lastWalBytes)},
                          {"walLastOverFirst", optionalJson(ratio.walRatio)}});
    return {{"scenario", growth.scenario}, {"parameter", growth.parameter}, {"steps", std::move(steps)},
            {"ratios", std::move(ratios)}};
}

json latencyJson(const LatencySummary& latency) {
    return {{"samples", latency.count}, {"p50Ms", latency.p50Ms}, {"p99Ms", latency.p99Ms},
            {"p999Ms", latency.p999Ms}, {"maxMs", latency.maxMs}};
}

json openLoopJson(const OpenLoopResult& result) {
    json phases = json::array();
    for (const OpenLoopPhase& phase : result.phases)
        phases.push_back({{"kind", phase.kind}, {"percent", phase.percent},
                          {"capacityMessagesPerSecond", phase.capacityMessagesPerSecond},
                          {"offeredMessagesPerSecond", phase.offeredMessagesPerSecond},
                          {"achievedMessagesPerSecond", phase.achievedMessagesPerSecond},
                          {"elapsedSeconds", phase.elapsedSeconds}, {"scheduled", phase.scheduled},
                          {"completed", phase.completed}, {"messages", phase.messages}, {"errors", phase.errors},
                          {"emptyPops", phase.emptyPops}, {"latency", latencyJson(phase.latency)},
                          {"ackLatency", phase.kind == "pop" ? latencyJson(phase.ackLatency) : json(nullptr)},
                          {"droppedSamples", phase.droppedSamples}, {"cost", costJson(phase.cost)},
                          {"firstError", phase.firstError.empty() ? json(nullptr) : json(phase.firstError)}});
    return {{"queue", result.queue}, {"batch", result.batch}, {"connections", result.connections},
            {"pushCapacity", scenarioJson(result.pushCapacity)}, {"popCapacity", scenarioJson(result.popCapacity)},
            {"phases", std::move(phases)}};
}

// "1.08x", or "-" when either side was not measured.
std::string ratioWords(const std::optional<double>& ratio) { return figureOrDash(ratio, "%.2fx"); }

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
    out << "cost: CPU microseconds per message of the broker (its pid) and of the whole PostgreSQL cluster, and "
           "WAL bytes per message, over each measured window"
        << (options.postgresUrl.empty() ? " (PostgreSQL not measured: no --pg-url)" : "") << "\n";
    for (const char* growth : {kScenarioGrowPartitions, kScenarioGrowGroups, kScenarioGrowPayload,
                               kScenarioGrowBrokers, kScenarioLatency})
        if (std::find(options.scenarios.begin(), options.scenarios.end(), growth) != options.scenarios.end()) {
            out << "growth and latency: batch " << kGrowthBatch << ", windows of " << options.growthSeconds
                << " s (not --duration), payload filler " << options.payloadBytes << " B unless grow-payload sets it\n";
            break;
        }
    if (!options.rawPostgresUrl.empty())
        out << "anchors: raw-push and raw-lease do the same work straight on PostgreSQL (scratch database, same "
               "cluster), each run just before the broker scenario of its batch; anchor = ours / theirs msg/s\n";
    return out.str();
}

std::string formatColumnTitles() {
    return format("%-9s %6s %6s %6s %12s %9s %9s %9s %7s %8s %9s %9s %7s %s", "scenario", "batch", "conns", "parts",
                  "msg/s", "p50_ms", "p99_ms", "messages", "errors", "rss_mb", "broker_us", "pg_us", "wal_B",
                  "anchor");
}

std::string formatScenarioLine(const ScenarioResult& result) {
    const bool latencyOnly = result.scenario.rfind(kScenarioWake, 0) == 0;  // wake, wake-mesh
    const std::string rate = latencyOnly ? "-" : format("%.1f", result.messagesPerSecond);
    const std::string rss = result.brokerMemory ? format("%.1f", kbToMb(result.brokerMemory->peakRssKb)) : "-";
    const std::string broker = figureOrDash(result.cost.brokerUsPerMessage, "%.1f");
    const std::string postgres = figureOrDash(result.cost.postgresUsPerMessage, "%.1f");
    const std::string wal = figureOrDash(result.cost.walBytesPerMessage, "%.0f");
    const std::string anchor = result.anchor ? format("%.2fx raw", result.anchor->ratio) : "-";
    std::string line = format("%-9s %6d %6d %6d %12s %9.2f %9.2f %9lld %7lld %8s %9s %9s %7s %s",
                              result.scenario.c_str(), result.batch, result.connections, result.partitions,
                              rate.c_str(), result.latency.p50Ms, result.latency.p99Ms,
                              static_cast<long long>(result.messages), static_cast<long long>(result.errors),
                              rss.c_str(), broker.c_str(), postgres.c_str(), wal.c_str(), anchor.c_str());
    if (!result.firstError.empty()) line += "\n  first error: " + result.firstError;
    return line;
}

std::string formatStreamLine(const ScenarioResult& result) {
    const auto detail = [&result](const char* key) {
        const auto it = result.details.find(key);
        return it == result.details.end() ? 0.0 : it->second;
    };
    return format("stream    batch %d: %.1f cycles/s, %.1f msg/s, %.0f cycles (%.0f refused), %.0f windows emitted (",
                  result.batch, detail("cyclesPerSecond"), result.messagesPerSecond, detail("cycles"),
                  detail("refusedCycles"), detail("windowsEmitted")) +
           costWords(result.cost) + ")";
}

MessageCost endToEndCost(const MessageCost& push, const MessageCost& popAck) {
    const auto sum = [](const std::optional<double>& a, const std::optional<double>& b) -> std::optional<double> {
        if (!a || !b) return std::nullopt;
        return *a + *b;
    };
    return {sum(push.brokerUsPerMessage, popAck.brokerUsPerMessage),
            sum(push.postgresUsPerMessage, popAck.postgresUsPerMessage),
            sum(push.walBytesPerMessage, popAck.walBytesPerMessage)};
}

std::string formatEndToEndLine(int batch, const MessageCost& push, const MessageCost& popAck) {
    const MessageCost both = endToEndCost(push, popAck);
    std::optional<double> total;
    if (both.brokerUsPerMessage && both.postgresUsPerMessage)
        total = *both.brokerUsPerMessage + *both.postgresUsPerMessage;
    return format("end-to-end b%d: broker %s + pg %s = %s us/msg, wal %s B/msg (push + pop+ack)", batch,
                  figureOrDash(both.brokerUsPerMessage, "%.1f").c_str(),
                  figureOrDash(both.postgresUsPerMessage, "%.1f").c_str(), figureOrDash(total, "%.1f").c_str(),
                  figureOrDash(both.walBytesPerMessage, "%.0f").c_str());
}

std::string formatSteadyHeader(const BenchOptions& options, const std::string& queue) {
    return format("steady: %d rounds of %.1f s on queue %s (batch %d, %d connections, %d partitions): each pushes for "
                  "half the round, then pop+acks what is there for the other half",
                  options.steadyRounds, options.steadyRoundSeconds, queue.c_str(), kSteadyBatch, options.connections,
                  options.partitions);
}

std::string formatSteadyRound(const SteadyRound& round) {
    return format("steady    round %2d: push %9.1f msg/s (", round.round, round.push.messagesPerSecond) +
           costWords(round.push.cost) + format(") | pop+ack %9.1f msg/s (", round.popAck.messagesPerSecond) +
           costWords(round.popAck.cost) + format(") | backlog %lld", static_cast<long long>(round.backlog));
}

std::string formatSteadySummary(const SteadyResult& result) {
    std::string text = spreadLine("push", result.push, result.pushCpu) + "\n" +
                       spreadLine("pop+ack", result.popAck, result.popAckCpu);
    if (result.errors > 0)
        text += format("\nsteady    %lld errors; first: ", static_cast<long long>(result.errors)) + result.firstError;
    return text;
}

std::string formatGrowthStepHeader(const char* scenario, int value, const char* unit, int batch) {
    return format("%s: step %d %s (batch %d)", scenario, value, unit, batch);
}

std::string formatGrowthSummary(const GrowthResult& result) {
    std::string text;
    for (const GrowthRatio& ratio : result.ratios) {
        if (!text.empty()) text += "\n";
        text += format("%s %-12s %d -> %d %s: cpu/msg (broker + pg) ", result.scenario.c_str(), ratio.line.c_str(),
                       ratio.firstValue, ratio.lastValue, result.parameter.c_str()) +
                figureOrDash(ratio.firstCpuUs, "%.1f") + " -> " + figureOrDash(ratio.lastCpuUs, "%.1f") +
                " us, last/first " + ratioWords(ratio.cpuRatio) + "; wal " + figureOrDash(ratio.firstWalBytes, "%.0f") +
                " -> " + figureOrDash(ratio.lastWalBytes, "%.0f") + " B/msg, last/first " + ratioWords(ratio.walRatio);
    }
    if (text.empty()) text = result.scenario + ": fewer than two steps, no ratio";
    return text;
}

std::string formatOpenLoopHeader(const BenchOptions& options, const std::string& queue) {
    std::string percents;
    for (int percent : options.latencyPercents) percents += (percents.empty() ? "" : ", ") + std::to_string(percent) + "%";
    return format("latency: queue %s, batch %d; closed-loop capacity (%d connections, %.1f s), then open-loop "
                  "arrivals at %s of it for %.1f s each on %d connections; latency from each request's due time",
                  queue.c_str(), kGrowthBatch, options.connections, options.growthSeconds, percents.c_str(),
                  options.growthSeconds, options.latencyConnections);
}

std::string formatOpenLoopPhase(const OpenLoopPhase& phase) {
    std::string line = format("latency   %-4s at %3d%% of %.1f msg/s: offered %.1f, moved %.1f msg/s; p50 %.2f p99 %.2f "
                              "p999 %.2f max %.2f ms (%lld of %lld requests",
                              phase.kind.c_str(), phase.percent, phase.capacityMessagesPerSecond,
                              phase.offeredMessagesPerSecond, phase.achievedMessagesPerSecond, phase.latency.p50Ms,
                              phase.latency.p99Ms, phase.latency.p999Ms, phase.latency.maxMs,
                              static_cast<long long>(phase.completed), static_cast<long long>(phase.scheduled));
    if (phase.kind == "pop")
        line += format(", %lld empty; ack p50 %.2f p99 %.2f ms", static_cast<long long>(phase.emptyPops),
                       phase.ackLatency.p50Ms, phase.ackLatency.p99Ms);
    line += format(", %lld errors); ", static_cast<long long>(phase.errors)) + costWords(phase.cost);
    if (!phase.firstError.empty()) line += "\n  first error: " + phase.firstError;
    return line;
}

std::string formatPeakRss(const std::optional<ProcessMemory>& memory) {
    if (!memory) return "broker peak RSS: not measured (no --broker-pid, or the process is gone)";
    return format("broker peak RSS: %.1f MB (VmHWM, highest of the scenarios), RSS at end %.1f MB (target <= 32 MiB)",
                  kbToMb(memory->peakRssKb), kbToMb(memory->currentRssKb));
}

std::string resultsToJson(const BenchOptions& options, const RunConditions& conditions,
                          const std::vector<ScenarioResult>& results, const std::optional<ProcessMemory>& finalMemory,
                          const std::optional<SteadyResult>& steady, const std::vector<GrowthResult>& growth,
                          const std::optional<OpenLoopResult>& openLoop) {
    json scenarios = json::array();
    for (const ScenarioResult& result : results) scenarios.push_back(scenarioJson(result));
    json labels = json::object();
    for (const auto& [key, value] : options.labels) labels[key] = value;
    json document = {
        {"runId", conditions.runId},
        {"startedAt", conditions.startedAtUtc},
        {"conditions", {{"url", options.url}, {"cores", conditions.cores},
                        {"durationSeconds", options.durationSeconds}, {"connections", options.connections},
                        {"partitions", options.partitions}, {"payloadBytes", options.payloadBytes},
                        {"batches", options.batches}, {"labels", std::move(labels)}}},
        {"scenarios", std::move(scenarios)},
        {"broker", memoryJson(finalMemory)},
    };
    if (steady) document["steady"] = steadyJson(*steady);
    if (!growth.empty()) {
        json curves = json::array();
        for (const GrowthResult& curve : growth) curves.push_back(growthJson(curve));
        document["growth"] = std::move(curves);
    }
    if (openLoop) document["latencyUnderLoad"] = openLoopJson(*openLoop);
    return document.dump(2) + "\n";
}

} // namespace bench
