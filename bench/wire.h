// Request bodies the bench sends and the parts of the answers it reads (push, pop, ack).
// Pure functions, unit tested; nlohmann/json stays inside wire.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

// One push request: `count` items for one partition of one queue. Transaction ids are
// "<txPrefix>-<firstSequence + i>", unique per run, so every item is stored (no duplicates).
struct PushBatchSpec {
    std::string queue;
    std::string partition;
    std::string txPrefix;
    std::int64_t firstSequence = 0;
    int count = 1;
    int payloadBytes = 0;
    // > 0: item i goes to partition (firstSequence + i) mod spreadPartitions instead of `partition`,
    // so one request touches up to `count` partitions (creating many partitions in few requests).
    int spreadPartitions = 0;
    // The filler is letters and digits PostgreSQL cannot compress instead of 'x' repeated: a large
    // payload then costs its real size in TOAST and WAL.
    bool incompressibleFiller = false;
};

std::string buildPushBody(const PushBatchSpec& spec);

// `bytes` filler characters: 'x' repeated, or a fixed pseudo-random sequence of [A-Za-z0-9].
std::string payloadFiller(int bytes, bool incompressible);

// Name of partition `index` of a bench queue ("p0", "p1", ...).
std::string partitionName(int index);

struct PushStatusCounts {
    std::int64_t queued = 0;
    std::int64_t duplicate = 0;
    std::int64_t buffered = 0;
    std::int64_t failed = 0;
    std::int64_t other = 0;
    std::int64_t total() const { return queued + duplicate + buffered + failed + other; }
};

// Counts the per-item "status" values of a push answer (a JSON array of items). It scans for the
// "status" key instead of building a JSON tree: on a 2-core box the bench shares the CPU with the
// broker and PostgreSQL, and push answers are the bulk of what it reads. Only keys match: a
// string value "status" is followed by ',' or '}' and an escaped one never closes with a bare
// quote.
PushStatusCounts countPushStatuses(std::string_view body);

// What an ack needs from one popped message.
struct PoppedMessage {
    std::string transactionId;
    std::string partitionId;
    std::string leaseId;
    std::string createdAt; // ISO-8601, as the broker wrote it (empty when absent)
};

// The messages of a 200 pop answer; nullopt if the body is not a pop answer.
std::optional<std::vector<PoppedMessage>> parsePopMessages(std::string_view body);

// POST /api/v1/ack/batch body acking every message as completed, in queue mode (empty `group`)
// or for the named consumer group.
std::string buildAckBatchBody(const std::vector<PoppedMessage>& messages, const std::string& group = "");

// Number of results with "success": true in an ack/batch answer; nullopt if it is not an array.
std::optional<std::int64_t> countAckSuccesses(std::string_view body);

// POST /api/v1/configure body creating `queue` with server-default options.
std::string buildConfigureBody(const std::string& queue);

// --- The stream scenario (streams.h): the calls of a stream SDK running a tumbling count window.

// POST /streams/v1/queries body registering `name` over `source`.
std::string buildStreamQueryBody(const std::string& name, const std::string& source, const std::string& sink);
// The query_id of a successful registration; nullopt otherwise.
std::optional<std::string> parseStreamQueryId(std::string_view body);
// POST /streams/v1/state/get body reading a whole shard.
std::string buildStateReadBody(const std::string& queryId, const std::string& partitionId);
// The window counts of a state read: key -> value.acc.count; nullopt if it is not a successful read.
std::optional<std::vector<std::pair<std::string, std::int64_t>>> parseWindowCounts(std::string_view body);

// What one cycle of a one-second tumbling count over a partition's batch carries.
struct WindowCycle {
    std::string body;   // the POST /streams/v1/cycle body
    int upserts = 0;    // windows still open, written back
    int emits = 0;      // windows closed by the batch's latest second: pushed to the sink and deleted
};

// The SDK's step for one partition's messages (in pop order): each message counts into the window
// of its createdAt second; every window older than the batch's latest second closes. The ack is
// the last message's, count N, with its lease.
WindowCycle buildWindowCycle(const std::string& queryId, const std::string& group, const std::string& sink,
                             const std::vector<PoppedMessage>& messages,
                             const std::vector<std::pair<std::string, std::int64_t>>& state);
// "success": true in a cycle answer.
bool cycleSucceeded(std::string_view body);

// Percent-encodes a path segment (RFC 3986 unreserved characters pass through).
std::string encodePathSegment(std::string_view segment);

} // namespace bench
