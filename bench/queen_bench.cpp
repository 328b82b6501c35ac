// queen-bench: HTTP load generator for the Queen broker (`make bench`).
// Scenarios: push and pop+ack at each batch size over N keep-alive connections, then long-poll
// wake latency. Prints one line per scenario and optionally writes a JSON file.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <thread>

#include "broker_client.h"
#include "options.h"
#include "report.h"
#include "scenarios.h"

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
    bench::RunConditions conditions;
    conditions.runId = bench::makeRunId();
    conditions.startedAtUtc = bench::utcNowIso8601();
    conditions.cores = std::thread::hardware_concurrency();

    std::cout << bench::formatHeader(options, conditions);
    emit(bench::formatColumnTitles());

    bench::ScenarioRunner runner(options, address, conditions.runId);
    std::vector<bench::ScenarioResult> results;
    bool brokerLost = false;
    // Runs a scenario unless the broker was lost: timing the rest against a dead broker only
    // produces rows of errors.
    auto runIfAlive = [&](auto&& scenario) {
        if (brokerLost) return;
        if (!brokerAlive(options, address)) {
            emit("broker is gone (crashed or unreachable): remaining scenarios skipped");
            brokerLost = true;
            return;
        }
        bench::ScenarioResult result = scenario();
        emit(bench::formatScenarioLine(result));
        results.push_back(std::move(result));
    };
    if (wants(options, bench::kScenarioPush))
        for (int batch : options.batches) runIfAlive([&] { return runner.runPush(batch); });
    if (wants(options, bench::kScenarioPopAck))
        for (int batch : options.batches) runIfAlive([&] { return runner.runPopAck(batch); });
    if (wants(options, bench::kScenarioWake)) runIfAlive([&] { return runner.runWake(); });

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
        json << bench::resultsToJson(options, conditions, results, finalMemory);
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
