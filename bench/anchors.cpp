#include "anchors.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <pqxx/pqxx>
#include <thread>

#include <nlohmann/json.hpp>

#include "loads.h"

namespace bench {
namespace {

using Clock = BenchClock;

// Above what raw-lease reaches on the 2-core box at batch 100 (about 20k msg/s measured with
// builds running beside it), so the pre-fill outlasts --duration; smaller batches scale down.
constexpr std::int64_t kRawLeaseCeilingPerSecond = 60'000;
constexpr std::int64_t kRawLeaseCeilingPerBatchItem = 5'000; // msg/s per unit of batch size
constexpr std::int64_t kRawLeasePrefillFloor = 50'000;
// After a failed statement a worker pauses this long, so a broken database is not hammered.
constexpr auto kErrorPause = std::chrono::milliseconds(20);

constexpr const char* kRawPushTables = R"SQL(
SET client_min_messages TO warning;
DROP TABLE IF EXISTS bench_raw_messages, bench_raw_partitions;
-- queen.partitions' shape (no foreign key to a queues table: the anchor has none).
CREATE TABLE bench_raw_partitions (
  id              uuid        PRIMARY KEY,
  queue_id        uuid        NOT NULL,
  name            text        NOT NULL,
  last_seq        bigint      NOT NULL DEFAULT 0,
  last_message_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (queue_id, name)
);
-- queen.messages' shape: the same columns, primary key, unique key and BRIN index.
CREATE TABLE bench_raw_messages (
  partition_id   uuid        NOT NULL,
  seq            bigint      NOT NULL,
  id             uuid        NOT NULL,
  transaction_id text        NOT NULL,
  payload        jsonb,
  trace_id       uuid,
  producer_sub   text,
  is_encrypted   boolean     NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (partition_id, seq),
  UNIQUE (partition_id, transaction_id)
);
CREATE INDEX bench_raw_messages_created_at_brin ON bench_raw_messages USING brin (created_at)
  WITH (autosummarize = on);
)SQL";

// One statement, one transaction: lock and advance the partition's counter, insert the rows
// numbered from its old value. A concurrent statement on the same partition waits for the row
// lock and then sees the advanced counter (READ COMMITTED re-reads the updated row).
constexpr const char* kRawPushStatement = R"SQL(
WITH items AS (
  SELECT i.value, i.ord FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS i(value, ord)
), counter AS (
  UPDATE bench_raw_partitions
     SET last_seq = last_seq + (SELECT count(*) FROM items), last_message_at = now()
   WHERE id = $1::uuid
  RETURNING id, last_seq - (SELECT count(*) FROM items) AS base
)
INSERT INTO bench_raw_messages (partition_id, seq, id, transaction_id, payload, created_at)
SELECT counter.id, counter.base + items.ord, gen_random_uuid(), items.value ->> 'transactionId',
       items.value -> 'payload', now()
  FROM counter, items
)SQL";

constexpr const char* kRawLeaseTable = R"SQL(
SET client_min_messages TO warning;
DROP TABLE IF EXISTS bench_raw_lease;
CREATE TABLE bench_raw_lease (
  id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id text        NOT NULL,
  payload        jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  leased_until   timestamptz
);
)SQL";

// The 30-second lease is far longer than any round: no lease expires within a run.
constexpr const char* kRawLeaseClaim = R"SQL(
UPDATE bench_raw_lease SET leased_until = now() + interval '30 seconds'
 WHERE id IN (SELECT id FROM bench_raw_lease WHERE leased_until IS NULL ORDER BY id LIMIT $1
              FOR UPDATE SKIP LOCKED)
RETURNING id, payload
)SQL";

// Completing = deleting: the least PostgreSQL can do to finish a message, while its lease holds.
constexpr const char* kRawLeaseComplete =
    "DELETE FROM bench_raw_lease WHERE id = ANY ($1::bigint[]) AND leased_until > now()";

double secondsBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

std::int64_t microsBetween(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
}

void execScript(const std::string& url, const std::string& sql) {
    pqxx::connection connection(url);
    pqxx::nontransaction tx(connection);
    tx.exec(sql);
}

// What one worker does per round on its own connection: the messages it moved, or nullopt
// when there is nothing more to do (count budget spent, table drained). Throws on failure.
using AnchorRound = std::function<std::optional<std::int64_t>(pqxx::connection&, int worker, std::int64_t round)>;

struct AnchorLoad {
    double elapsedSeconds = 0;
    std::int64_t messages = 0;
    std::int64_t rounds = 0;
    std::int64_t errors = 0;
    bool exhausted = false; // a worker found nothing more to do before the deadline
    std::string firstError;
    LatencySamples latencies{0};
    MessageCost cost;
};

// --connections threads, each with its own connection and prepared statements, start together,
// loop `round` until the deadline or until one finds nothing left, and are measured by `meter`
// from just before the start to just after the last one stopped.
AnchorLoad runAnchorLoad(const BenchOptions& options, CostMeter* meter,
                         const std::vector<std::pair<std::string, std::string>>& statements, const AnchorRound& round) {
    const int connections = options.connections;
    std::vector<LatencySamples> perThread(connections, LatencySamples(options.maxLatencySamples / connections + 1));
    std::atomic<std::int64_t> messages{0}, rounds{0}, errors{0};
    std::atomic<bool> stop{false}, exhausted{false};
    std::mutex errorMutex;
    std::string firstError;
    auto fail = [&](const std::string& what) {
        errors.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(errorMutex);
        if (firstError.empty()) firstError = what;
    };
    std::promise<void> startSignal;
    std::shared_future<void> started = startSignal.get_future().share();
    Clock::time_point deadline{}; // set before the start signal, read after it

    // Connections are made before the window opens, as the broker's pool is, and outlive the second
    // cost sample: a backend whose client has just disconnected is still exiting, and its CPU would
    // be in neither the live children nor the postmaster's reaped total yet.
    std::vector<std::unique_ptr<pqxx::connection>> links(static_cast<std::size_t>(connections));
    for (std::size_t i = 0; i < links.size(); ++i) {
        try {
            links[i] = std::make_unique<pqxx::connection>(options.rawPostgresUrl);
            for (const auto& [name, sql] : statements) links[i]->prepare(name, sql);
        } catch (const std::exception& e) {
            links[i].reset();
            fail(std::string("connect: ") + e.what());
        }
    }

    auto worker = [&](int index) {
        started.wait();
        pqxx::connection* connection = links[static_cast<std::size_t>(index)].get();
        if (connection == nullptr) return;
        for (std::int64_t k = 0; !stop.load(std::memory_order_relaxed) && Clock::now() < deadline; ++k) {
            const auto sent = Clock::now();
            try {
                const auto moved = round(*connection, index, k);
                if (!moved) {
                    exhausted.store(true, std::memory_order_relaxed);
                    stop.store(true, std::memory_order_relaxed);
                    break;
                }
                perThread[index].record(microsBetween(sent, Clock::now()));
                messages.fetch_add(*moved, std::memory_order_relaxed);
                rounds.fetch_add(1, std::memory_order_relaxed);
            } catch (const pqxx::broken_connection& e) {
                fail(std::string("connection lost: ") + e.what());
                return;
            } catch (const std::exception& e) {
                fail(e.what());
                std::this_thread::sleep_for(kErrorPause);
            }
        }
    };

    std::vector<std::thread> threads;
    for (int i = 0; i < connections; ++i) threads.emplace_back(worker, i);
    const CostSample costBefore = sampleCost(meter);
    const auto begin = Clock::now();
    deadline = deadlineAfter(options.durationSeconds);
    startSignal.set_value();
    for (auto& thread : threads) thread.join();
    const auto end = Clock::now();
    const CostSample costAfter = sampleCost(meter);

    AnchorLoad load;
    load.elapsedSeconds = secondsBetween(begin, end);
    load.messages = messages.load();
    load.rounds = rounds.load();
    load.errors = errors.load();
    load.exhausted = exhausted.load();
    load.firstError = firstError;
    load.latencies = LatencySamples(options.maxLatencySamples);
    for (auto& samples : perThread) load.latencies.absorb(std::move(samples));
    load.cost = costPerMessage(costBefore, costAfter, load.messages);
    return load;
}

ScenarioResult resultOf(const BenchOptions& options, const char* scenario, int batch, const AnchorLoad& load) {
    ScenarioResult result;
    result.scenario = scenario;
    result.batch = batch;
    result.connections = options.connections;
    result.partitions = options.partitions;
    result.queue = scenario == std::string(kScenarioRawPush) ? "bench_raw_messages" : "bench_raw_lease";
    result.elapsedSeconds = load.elapsedSeconds;
    result.messages = load.messages;
    result.requests = load.rounds;
    result.errors = load.errors;
    result.firstError = load.firstError;
    result.droppedSamples = load.latencies.dropped();
    result.latency = summarize(load.latencies.kept());
    result.cost = load.cost;
    result.messagesPerSecond = load.elapsedSeconds > 0 ? static_cast<double>(load.messages) / load.elapsedSeconds : 0;
    return result;
}

// Fills bench_raw_lease with `rows` ready rows, one INSERT ... SELECT per connection in parallel,
// then ANALYZE, so the claim's plan is the one a maintained table gets (an index scan in id order).
void prefillRawLease(const BenchOptions& options, std::int64_t rows, const std::string& fill) {
    const int writers = std::max(1, std::min<int>(options.connections, 4));
    std::vector<std::future<void>> parts;
    for (int w = 0; w < writers; ++w) {
        const std::int64_t from = rows * w / writers + 1;
        const std::int64_t to = rows * (w + 1) / writers;
        parts.push_back(std::async(std::launch::async, [&options, &fill, from, to] {
            pqxx::connection connection(options.rawPostgresUrl);
            pqxx::nontransaction tx(connection);
            tx.exec_params("INSERT INTO bench_raw_lease (transaction_id, payload) "
                           "SELECT 'prefill-' || g, jsonb_build_object('seq', g, 'fill', $3::text) "
                           "FROM generate_series($1::bigint, $2::bigint) AS g",
                           from, to, fill);
        }));
    }
    for (auto& part : parts) part.get();
    execScript(options.rawPostgresUrl, "ANALYZE bench_raw_lease");
}

std::optional<double> ratioOf(const std::optional<double>& ours, const std::optional<double>& theirs) {
    if (!ours || !theirs || *theirs <= 0) return std::nullopt;
    return *ours / *theirs;
}

} // namespace

std::string rawPartitionId(int index) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "00000000-0000-7000-8000-%012d", index);
    return buffer;
}

std::string rawPushItemsJson(const std::string& txPrefix, std::int64_t firstSequence, int count, int payloadBytes) {
    const std::string filler(static_cast<std::size_t>(payloadBytes), 'x');
    nlohmann::json items = nlohmann::json::array();
    for (int i = 0; i < count; ++i) {
        const std::int64_t sequence = firstSequence + i;
        items.push_back({{"transactionId", txPrefix + "-" + std::to_string(sequence)},
                         {"payload", {{"seq", sequence}, {"fill", filler}}}});
    }
    return items.dump();
}

std::string bigintArrayLiteral(const std::vector<std::int64_t>& values) {
    std::string literal = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) literal += ',';
        literal += std::to_string(values[i]);
    }
    return literal + "}";
}

std::int64_t rawLeasePrefillFor(const BenchOptions& options, int batch) {
    const std::int64_t ratePerSecond =
        std::min(kRawLeaseCeilingPerSecond, kRawLeaseCeilingPerBatchItem * static_cast<std::int64_t>(batch));
    const auto forDuration = static_cast<std::int64_t>(static_cast<double>(ratePerSecond) * options.durationSeconds);
    return std::min(std::max(forDuration, kRawLeasePrefillFloor), options.maxMessagesPerScenario);
}

AnchorComparison compareWithAnchor(const ScenarioResult& ours, const ScenarioResult& anchor) {
    AnchorComparison comparison;
    comparison.scenario = anchor.scenario;
    comparison.messagesPerSecond = anchor.messagesPerSecond;
    comparison.ratio = anchor.messagesPerSecond > 0 ? ours.messagesPerSecond / anchor.messagesPerSecond : 0;
    comparison.postgresCpuRatio = ratioOf(ours.cost.postgresUsPerMessage, anchor.cost.postgresUsPerMessage);
    comparison.walRatio = ratioOf(ours.cost.walBytesPerMessage, anchor.cost.walBytesPerMessage);
    return comparison;
}

RawPostgresAnchors::RawPostgresAnchors(BenchOptions options, CostMeter* meter)
    : options_(std::move(options)), meter_(meter) {}

ScenarioResult RawPostgresAnchors::runRawPush(int batch) {
    execScript(options_.rawPostgresUrl, kRawPushTables);
    execScript(options_.rawPostgresUrl,
               "INSERT INTO bench_raw_partitions (id, queue_id, name) SELECT ('00000000-0000-7000-8000-' || "
               "lpad(g::text, 12, '0'))::uuid, '00000000-0000-7000-8000-000000000000', 'p' || g "
               "FROM generate_series(0, " + std::to_string(options_.partitions - 1) + ") AS g");
    // Transaction ids unique per run and connection, shaped like the push scenario's.
    const std::string tag = makeRunId() + "-raw-c";
    std::atomic<std::int64_t> claimed{0};
    const std::int64_t limit = options_.maxMessagesPerScenario;
    std::vector<std::int64_t> nextSequence(static_cast<std::size_t>(options_.connections), 0);
    const AnchorRound round = [&](pqxx::connection& connection, int worker, std::int64_t k) -> std::optional<std::int64_t> {
        const std::int64_t before = claimed.fetch_add(batch, std::memory_order_relaxed);
        if (before >= limit) return std::nullopt;
        const int count = static_cast<int>(std::min<std::int64_t>(batch, limit - before));
        const std::string partition = rawPartitionId(static_cast<int>((worker + k) % options_.partitions));
        std::int64_t& sequence = nextSequence[static_cast<std::size_t>(worker)];
        const std::string items = rawPushItemsJson(tag + std::to_string(worker), sequence, count, options_.payloadBytes);
        sequence += count;
        pqxx::nontransaction tx(connection);
        return static_cast<std::int64_t>(tx.exec_prepared("raw_push", partition, items).affected_rows());
    };
    const AnchorLoad load = runAnchorLoad(options_, meter_, {{"raw_push", kRawPushStatement}}, round);
    return resultOf(options_, kScenarioRawPush, batch, load);
}

ScenarioResult RawPostgresAnchors::runRawLease(int batch) {
    execScript(options_.rawPostgresUrl, kRawLeaseTable);
    const std::int64_t prefill = rawLeasePrefillFor(options_, batch);
    const auto prefillStarted = Clock::now();
    prefillRawLease(options_, prefill, std::string(static_cast<std::size_t>(options_.payloadBytes), 'x'));
    const double prefillSeconds = secondsBetween(prefillStarted, Clock::now());

    const AnchorRound round = [&](pqxx::connection& connection, int, std::int64_t) -> std::optional<std::int64_t> {
        std::vector<std::int64_t> ids;
        {
            pqxx::nontransaction claim(connection);
            const pqxx::result leased = claim.exec_prepared("raw_lease_claim", batch);
            ids.reserve(leased.size());
            for (const auto& row : leased) ids.push_back(row[0].as<std::int64_t>());
        }
        if (ids.empty()) return std::nullopt; // every ready row is taken: drained
        pqxx::nontransaction complete(connection);
        return static_cast<std::int64_t>(
            complete.exec_prepared("raw_lease_complete", bigintArrayLiteral(ids)).affected_rows());
    };
    const AnchorLoad load = runAnchorLoad(
        options_, meter_, {{"raw_lease_claim", kRawLeaseClaim}, {"raw_lease_complete", kRawLeaseComplete}}, round);
    ScenarioResult result = resultOf(options_, kScenarioRawLease, batch, load);
    result.partitions = 1;
    result.details["prefilled"] = static_cast<double>(prefill);
    result.details["prefillSeconds"] = prefillSeconds;
    result.details["drained"] = load.exhausted ? 1.0 : 0.0;
    return result;
}

void RawPostgresAnchors::dropTables() {
    try {
        execScript(options_.rawPostgresUrl, "SET client_min_messages TO warning; "
                                             "DROP TABLE IF EXISTS bench_raw_messages, bench_raw_partitions, bench_raw_lease");
    } catch (const std::exception&) {
        // The next run drops them before use anyway.
    }
}

} // namespace bench
