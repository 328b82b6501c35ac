// queen-bench: HTTP load generator for the Queen broker (`make bench`).
// Scenarios, per batch size: the raw-push anchor then push, the raw-lease anchor then pop+ack
// (each broker line carries its ratio to the anchor just before it); then long-poll wake
// latency; then the steadiness rounds; then latency under an open-loop load and the growth
// scenarios, when asked for. Prints one line per scenario and optionally writes a JSON file.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "anchors.h"
#include "broker_client.h"
#include "cost_meter.h"
#include "growth.h"
#include "open_loop.h"
#include "options.h"
#include "report.h"
#include "scenarios.h"
#include "steady.h"

namespace {

bool wants(const bench::BenchOptions& options, const std::string& scenario) {
    for (const auto& name : options.scenarios)
        if (name == scenario) return true;
    return false;
}

// The broker answers HTTP (any status) and, when its pid is known, the process still exists.
bool brokerAlive(const bench::BenchOptions& options, const bench::BrokerAddress& address) {
    if (options.brokerPid > 0 && !bench::readProcessMemory(options.brokerPid)) return false;
    bench::BrokerClient probe(address, options.httpTimeoutSeconds);
    return probe.get("/health").status != 0;
}

void emit(const std::string& line) { std::cout << line << std::endl; }

// A CostMeter, or a clear error when its PostgreSQL is unreachable (nullptr, `error` set).
std::unique_ptr<bench::CostMeter> makeMeter(std::vector<int> brokerPids, const std::string& url, const char* flag,
                                            std::string& error) {
    try {
        return std::make_unique<bench::CostMeter>(std::move(brokerPids), url);
    } catch (const std::exception& e) {
        error = std::string("cannot connect to ") + flag + ": " + e.what();
        return nullptr;
    }
}

int run(const bench::BenchOptions& options) {
    const bench::BrokerAddress address = bench::parseBrokerUrl(options.url);
    if (address.host.empty()) {
        std::cerr << "queen-bench: cannot parse --url " << options.url << "\n";
        return 2;
    }
    // Fail fast on a wrong URL or a dead broker instead of timing seven failing scenarios.
    if (!brokerAlive(options, address)) {
        std::cerr << "queen-bench: broker at " << options.url << " is unreachable\n";
        return 1;
    }
    std::string meterError;
    // The broker's CPU and its cluster's; the anchors' meter sees the same cluster and no broker.
    const auto brokerMeter = makeMeter(options.brokerPid > 0 ? std::vector<int>{options.brokerPid} : std::vector<int>{},
                                       options.postgresUrl, "--pg-url", meterError);
    const auto rawMeter = options.rawPostgresUrl.empty()
                              ? nullptr
                              : makeMeter({}, options.rawPostgresUrl, "--raw-pg-url", meterError);
    if (!brokerMeter || (!options.rawPostgresUrl.empty() && !rawMeter)) {
        std::cerr << "queen-bench: " << meterError << "\n";
        return 2;
    }
    bench::RunConditions conditions;
    conditions.runId = bench::makeRunId();
    conditions.startedAtUtc = bench::utcNowIso8601();
    conditions.cores = std::thread::hardware_concurrency();

    std::cout << bench::formatHeader(options, conditions);
    emit(bench::formatColumnTitles());

    bench::ScenarioRunner runner(options, address, conditions.runId, brokerMeter.get());
    bench::RawPostgresAnchors anchors(options, rawMeter.get());
    std::vector<bench::ScenarioResult> results;
    std::map<std::pair<std::string, int>, bench::ScenarioResult> anchorOf; // (anchor, batch) -> its result
    bool brokerLost = false;
    // Runs a scenario unless the broker was lost: timing the rest against a dead broker only
    // produces rows of errors. `anchorName` names the anchor the result is compared with.
    auto runIfAlive = [&](auto&& scenario, const char* anchorName = nullptr) {
        if (brokerLost) return;
        if (!brokerAlive(options, address)) {
            emit("broker is gone (crashed or unreachable): remaining scenarios skipped");
            brokerLost = true;
            return;
        }
        bench::ScenarioResult result = scenario();
        if (anchorName != nullptr) {
            const auto anchor = anchorOf.find({anchorName, result.batch});
            if (anchor != anchorOf.end()) result.anchor = bench::compareWithAnchor(result, anchor->second);
        }
        emit(bench::formatScenarioLine(result));
        results.push_back(std::move(result));
    };
    // An anchor needs no broker; a failure to set up its tables is its row's first error.
    auto runAnchor = [&](const char* name, int batch, auto&& scenario) {
        if (brokerLost) return;
        bench::ScenarioResult result;
        try {
            result = scenario();
        } catch (const std::exception& e) {
            result.scenario = name;
            result.batch = batch;
            result.firstError = e.what();
        }
        emit(bench::formatScenarioLine(result));
        anchorOf[{name, batch}] = result;
        results.push_back(std::move(result));
    };
    // The end-to-end line of a batch size once both its push and its pop+ack ran.
    auto emitEndToEnd = [&](int batch) {
        const auto find = [&](const char* scenario) -> const bench::ScenarioResult* {
            for (const auto& result : results)
                if (result.scenario == scenario && result.batch == batch) return &result;
            return nullptr;
        };
        const bench::ScenarioResult* push = find(bench::kScenarioPush);
        const bench::ScenarioResult* popAck = find(bench::kScenarioPopAck);
        if (push != nullptr && popAck != nullptr) emit(bench::formatEndToEndLine(batch, push->cost, popAck->cost));
    };
    // Each broker scenario right after its anchor, so drift between the two stays small.
    for (int batch : options.batches) {
        if (wants(options, bench::kScenarioRawPush))
            runAnchor(bench::kScenarioRawPush, batch, [&] { return anchors.runRawPush(batch); });
        if (wants(options, bench::kScenarioPush))
            runIfAlive([&] { return runner.runPush(batch); }, bench::kScenarioRawPush);
        if (wants(options, bench::kScenarioRawLease))
            runAnchor(bench::kScenarioRawLease, batch, [&] { return anchors.runRawLease(batch); });
        if (wants(options, bench::kScenarioPopAck))
            runIfAlive([&] { return runner.runPopAck(batch); }, bench::kScenarioRawLease);
        emitEndToEnd(batch);
    }
    if (!options.rawPostgresUrl.empty()) anchors.dropTables();
    if (wants(options, bench::kScenarioWake)) runIfAlive([&] { return runner.runWake(); });
    if (wants(options, bench::kScenarioStream)) {
        runIfAlive([&] { return runner.runStream(bench::kStreamBatch); });
        if (!results.empty() && results.back().scenario == bench::kScenarioStream)
            emit(bench::formatStreamLine(results.back()));
    }

    std::optional<bench::SteadyResult> steady;
    if (wants(options, bench::kScenarioSteady) && !brokerLost && !brokerAlive(options, address)) {
        emit("broker is gone (crashed or unreachable): steady skipped");
        brokerLost = true;
    }
    if (wants(options, bench::kScenarioSteady) && !brokerLost) {
        const std::string queue = runner.newQueue(bench::kScenarioSteady, bench::kSteadyBatch);
        emit(bench::formatSteadyHeader(options, queue));
        steady = bench::runSteady(options, address, queue, brokerMeter.get(),
                                  [](const bench::SteadyRound& round) { emit(bench::formatSteadyRound(round)); });
        emit(bench::formatSteadySummary(*steady));
    }

    // How cost grows, then latency under load: each skipped, saying so, once the broker is gone.
    auto stillAlive = [&](const char* scenario) {
        if (brokerLost) return false;
        if (brokerAlive(options, address)) return true;
        emit(std::string("broker is gone (crashed or unreachable): ") + scenario + " and what follows skipped");
        brokerLost = true;
        return false;
    };
    // A checkpoint before the first growth or latency window: the checkpointer's timed round (and its
    // full-page writes) then falls after the run instead of into one step of it.
    if (std::any_of(options.scenarios.begin(), options.scenarios.end(), [](const std::string& name) {
            return name == bench::kScenarioLatency || name.rfind("grow-", 0) == 0;
        })) {
        std::string checkpointError;
        emit(brokerMeter->checkpoint(checkpointError)
                 ? "growth and latency: CHECKPOINT done before the first window"
                 : "growth and latency: no CHECKPOINT before the first window (" + checkpointError + ")");
    }
    // Latency first, on a database the growth steps have not yet filled; grow-payload last: its
    // gigabyte of WAL keeps the checkpointer busy into whatever runs after it.
    std::optional<bench::OpenLoopResult> openLoop;
    if (wants(options, bench::kScenarioLatency) && stillAlive(bench::kScenarioLatency))
        openLoop = bench::runOpenLoop(options, address, runner, brokerMeter.get(), emit);
    std::vector<bench::GrowthResult> growth;
    bench::GrowthRunner growthRunner(options, address, runner, brokerMeter.get(), emit);
    const std::pair<const char*, bench::GrowthResult (bench::GrowthRunner::*)()> curves[] = {
        {bench::kScenarioGrowPartitions, &bench::GrowthRunner::runPartitions},
        {bench::kScenarioGrowGroups, &bench::GrowthRunner::runGroups},
        {bench::kScenarioGrowBrokers, &bench::GrowthRunner::runBrokers},
        {bench::kScenarioGrowPayload, &bench::GrowthRunner::runPayloads},
    };
    for (const auto& [name, run] : curves)
        if (wants(options, name) && stillAlive(name)) growth.push_back((growthRunner.*run)());

    std::optional<bench::ProcessMemory> finalMemory;
    if (options.brokerPid > 0) finalMemory = bench::readProcessMemory(options.brokerPid);
    // Each scenario reset VmHWM when it began: the run's peak is the highest scenario peak.
    for (const auto& result : results)
        if (finalMemory && result.brokerMemory)
            finalMemory->peakRssKb = std::max(finalMemory->peakRssKb, result.brokerMemory->peakRssKb);
    emit(bench::formatPeakRss(finalMemory));

    if (!options.keepQueues && !brokerLost) {
        std::string deleteError;
        const int failures = runner.deleteCreatedQueues(deleteError);
        if (failures > 0)
            std::cerr << "queen-bench: " << failures << " bench queue(s) could not be deleted; first: " << deleteError
                      << "\n";
    }
    if (!options.jsonPath.empty()) {
        std::ofstream json(options.jsonPath);
        json << bench::resultsToJson(options, conditions, results, finalMemory, steady, growth, openLoop);
        if (!json) {
            std::cerr << "queen-bench: cannot write " << options.jsonPath << "\n";
            return 1;
        }
        emit("results written to " + options.jsonPath);
    }
    // A run where a scenario moved no message at all is a failed run (broken broker or URL).
    if (brokerLost) return 1;
    for (const auto& result : results)
        if (result.messages == 0) return 1;
    if (steady)
        for (const auto& round : steady->rounds)
            if (round.push.messages == 0 || round.popAck.messages == 0) return 1;
    for (const auto& curve : growth)
        for (const auto& step : curve.steps)
            for (const auto& line : step.lines)
                if (line.messages == 0) return 1;
    if (openLoop) {
        if (openLoop->pushCapacity.messages == 0 || openLoop->popCapacity.messages == 0) return 1;
        for (const auto& phase : openLoop->phases)
            if (phase.messages == 0) return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const bench::ParseResult parsed = bench::parseBenchOptions(args);
    if (parsed.helpRequested) {
        std::cout << bench::usageText();
        return 0;
    }
    if (!parsed.options) {
        std::cerr << "queen-bench: " << parsed.error << "\n" << bench::usageText();
        return 2;
    }
    return run(*parsed.options);
}
