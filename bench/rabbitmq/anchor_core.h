// The pure parts of the RabbitMQ anchor (queen-rabbitmq-anchor): options, the confirm bookkeeping of a
// publisher, the CPU of a process tree, and the output line and JSON. No sockets here; unit tested in
// anchor_test.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../latency.h"

namespace anchor {

inline constexpr const char* kScenarioPush = "push";
inline constexpr const char* kScenarioPopAck = "popack";

struct AnchorOptions {
    std::string host = "127.0.0.1";
    int port = 5672;
    std::string user = "guest";
    std::string password = "guest";
    std::string vhost = "/";
    // Queen's bench shape: 10 connections, 10 partitions -> 10 producers, 10 consumers, 10 quorum queues.
    int producers = 10;
    int queues = 10; // also the number of consumers: one per queue
    int messageBytes = 100;
    double durationSeconds = 10.0;
    std::vector<int> batches = {1, 10, 100};
    std::vector<std::string> scenarios = {kScenarioPush, kScenarioPopAck};
    std::int64_t maxMessagesPerScenario = 5'000'000;
    std::int64_t prefill = 0; // 0: batch * 5000 in [20000, prefillMax], as queen-bench
    std::int64_t prefillMax = 200'000;
    int ioTimeoutSeconds = 30; // connect, login, every RPC, one batch's confirms, one wait for deliveries
    std::size_t maxLatencySamples = 2'000'000;
    int serverPid = 0; // 0: server CPU not measured
    std::string jsonPath;
    std::string queuePrefix = "anchor";
    bool keepQueues = false;
};

struct ParseResult {
    std::optional<AnchorOptions> options;
    std::string error;
    bool helpRequested = false;
};

// argv[1..]; unknown flags and bad values are errors naming the flag.
ParseResult parseAnchorOptions(const std::vector<std::string>& args);
std::string usageText();

// Messages pre-filled before a pop+ack scenario, in total over the queues.
std::int64_t prefillCountFor(const AnchorOptions& options, int batch);
// The pre-fill split evenly, rounded up: every queue gets this many.
std::int64_t prefillPerQueue(std::int64_t total, int queues);
// The queue producer `producer` publishes its k-th batch to: (producer + k) mod queues, the
// partition rotation of queen-bench's push.
int queueForBatch(int producer, std::int64_t batchIndex, int queues);
// "<prefix>-<scenario>-b<batch>-<runId>-q<index>".
std::string queueName(const std::string& prefix, const std::string& scenario, int batch, const std::string& runId,
                      int index);

// Publisher confirms of one channel in confirm mode: delivery tags run 1, 2, 3, ... in publish order;
// the broker acks (or nacks) one tag or, with `multiple`, every tag up to it, in any order.
class ConfirmTracker {
public:
    std::uint64_t published(); // the next publish's delivery tag
    void acked(std::uint64_t tag, bool multiple) { settle(tag, multiple, false); }
    void nacked(std::uint64_t tag, bool multiple) { settle(tag, multiple, true); }
    std::size_t outstanding() const { return pending_.size(); }
    std::uint64_t confirmedCount() const { return confirmed_; }
    std::uint64_t nackedCount() const { return nacked_; }

private:
    void settle(std::uint64_t tag, bool multiple, bool negative);
    std::uint64_t nextTag_ = 1;
    std::set<std::uint64_t> pending_;
    std::uint64_t confirmed_ = 0;
    std::uint64_t nacked_ = 0;
};

// One process of /proc: its parent and its CPU (utime + stime + cutime + cstime, clock ticks). The reaped
// children's part (cutime + cstime) keeps a helper process that exited inside the window counted.
struct ProcessCpu {
    int pid = 0;
    int parentPid = 0;
    std::uint64_t ticks = 0;
};
// The parent pid and CPU of one /proc/<pid>/stat text; nullopt when it does not parse. The command name, in
// parentheses, may itself hold spaces and parentheses.
std::optional<ProcessCpu> parseProcStat(int pid, std::string_view statText);
// CPU ticks of `root` and of every descendant of it; nullopt when root is not in the list.
std::optional<std::uint64_t> treeCpuTicks(const std::vector<ProcessCpu>& processes, int root);

struct ScenarioResult {
    std::string scenario;
    int batch = 0;
    int producers = 0;
    int consumers = 0;
    int queues = 0;
    std::int64_t messages = 0; // confirmed (push) or acked (popack)
    std::int64_t errors = 0;
    std::string firstError;
    std::int64_t prefilled = 0; // popack only
    bool drained = false;       // popack: every pre-filled message was acked within the duration
    double elapsedSeconds = 0;
    double messagesPerSecond = 0;
    bench::LatencySummary latency;
    std::uint64_t droppedSamples = 0;
    std::optional<double> serverCpuUsPerMessage;
};

// Server CPU over a window in microseconds per message; nothing without both samples or messages.
std::optional<double> cpuMicrosPerMessage(std::optional<std::uint64_t> ticksBefore,
                                          std::optional<std::uint64_t> ticksAfter, long ticksPerSecond,
                                          std::int64_t messages);

std::string formatColumnTitles();
std::string formatScenarioLine(const ScenarioResult& result);
std::string resultsToJson(const AnchorOptions& options, const std::string& runId, const std::string& startedAtUtc,
                          const std::string& serverVersion, const std::vector<ScenarioResult>& results);

} // namespace anchor
