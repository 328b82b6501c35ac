// Human-readable lines and the JSON document of a bench run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "growth.h"
#include "open_loop.h"
#include "options.h"
#include "proc_memory.h"
#include "scenarios.h"
#include "steady.h"

namespace bench {

struct RunConditions {
    std::string runId;
    std::string startedAtUtc; // ISO-8601
    unsigned cores = 0;
};

// Header lines stating the conditions: URL, cores, durations, connections, labels
// (PostgreSQL durability settings arrive as labels from scripts/bench.sh), what the cost columns
// measure and where the anchors run.
std::string formatHeader(const BenchOptions& options, const RunConditions& conditions);
std::string formatColumnTitles();
// One line per scenario; the wake scenario prints "-" for msg/s; "-" for a cost not measured;
// push and popack end with their ratio to the anchor of the same batch ("0.84x raw").
std::string formatScenarioLine(const ScenarioResult& result);
// The stream scenario's own figures under its line: cycles/s, msg/s, CPU per message.
std::string formatStreamLine(const ScenarioResult& result);
// What one message costs to push and then pop and ack: the push and pop+ack scenarios of one batch size, side
// by side, each figure the sum of theirs (a dash where either did not measure it):
// "end-to-end b100: broker 14.2 + pg 30.1 = 44.3 us/msg, wal 120 B/msg (push + pop+ack)".
MessageCost endToEndCost(const MessageCost& push, const MessageCost& popAck);
std::string formatEndToEndLine(int batch, const MessageCost& push, const MessageCost& popAck);
// The steady scenario: what it runs, one line per round, the two verdicts.
std::string formatSteadyHeader(const BenchOptions& options, const std::string& queue);
std::string formatSteadyRound(const SteadyRound& round);
std::string formatSteadySummary(const SteadyResult& result);
// Growth scenarios: the line before a step's lines, and the last step over the first per line kind.
std::string formatGrowthStepHeader(const char* scenario, int value, const char* unit, int batch);
std::string formatGrowthSummary(const GrowthResult& result);
// Latency under load: what runs, and one line per open-loop phase (p50 / p99 / p99.9).
std::string formatOpenLoopHeader(const BenchOptions& options, const std::string& queue);
std::string formatOpenLoopPhase(const OpenLoopPhase& phase);
// The broker's peak RSS over the whole run, or a note that it was not measured.
std::string formatPeakRss(const std::optional<ProcessMemory>& memory);

std::string resultsToJson(const BenchOptions& options, const RunConditions& conditions,
                          const std::vector<ScenarioResult>& results, const std::optional<ProcessMemory>& finalMemory,
                          const std::optional<SteadyResult>& steady = std::nullopt,
                          const std::vector<GrowthResult>& growth = {},
                          const std::optional<OpenLoopResult>& openLoop = std::nullopt);

std::string utcNowIso8601();

} // namespace bench
