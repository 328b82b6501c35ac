// Raw-PostgreSQL anchors: the same work as a push or a pop+ack, done by the bench straight on
// PostgreSQL with the least a broker could do, in a scratch database of the same cluster
// (--raw-pg-url). Each runs just before the broker scenario of the same batch size, so the two
// see the same box, the same moment and the same durability; the broker's line prints its
// ratio to the anchor (AnchorComparison).
//
//   raw-push  one statement per transaction stores b rows of queen.messages' shape into one of P
//             partitions, taking seq numbers from a per-partition counter row in the same
//             statement (UPDATE ... RETURNING in a CTE: the row lock makes them right under
//             concurrency, as the broker's store must).
//   raw-lease a pre-filled table of ready rows; each round claims b rows (UPDATE ... WHERE id IN
//             (SELECT ... LIMIT b FOR UPDATE SKIP LOCKED) RETURNING id, payload) and then deletes
//             them by id: two autocommit transactions per round.
//
// --connections libpq connections, one thread each, autocommit, the cluster's synchronous_commit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cost_meter.h"
#include "options.h"
#include "scenarios.h"

namespace bench {

// Pure parts (unit tested).

// The uuid of anchor partition `index` (0-based): a fixed, readable id.
std::string rawPartitionId(int index);
// The JSON array one raw-push statement stores: [{"transactionId": "<prefix>-<n>", "payload":
// {"seq": n, "fill": "xx.."}}, ...] for n = firstSequence .. firstSequence+count-1; the payload
// and transaction ids the push scenario sends (wire.h).
std::string rawPushItemsJson(const std::string& txPrefix, std::int64_t firstSequence, int count, int payloadBytes);
// {1,2,3}: a PostgreSQL bigint[] literal.
std::string bigintArrayLiteral(const std::vector<std::int64_t>& values);
// Ready rows raw-lease pre-fills at `batch`: enough for --duration at a rate above what this box
// reaches (kRawLeaseCeilingPerSecond, scaled down for small batches), at least 50,000, and
// never more than --max-messages.
std::int64_t rawLeasePrefillFor(const BenchOptions& options, int batch);
// Ours beside the anchor's figures: msg/s ratio, and the PostgreSQL CPU and WAL per message
// ratios when both sides measured them.
AnchorComparison compareWithAnchor(const ScenarioResult& ours, const ScenarioResult& anchor);

class RawPostgresAnchors {
public:
    // `meter` (may be null) must measure the same cluster as `options.rawPostgresUrl`.
    RawPostgresAnchors(BenchOptions options, CostMeter* meter);

    ScenarioResult runRawPush(int batch);
    ScenarioResult runRawLease(int batch);
    // Drops the anchor tables (they are recreated by each scenario); failures are ignored.
    void dropTables();

private:
    BenchOptions options_;
    CostMeter* meter_;
};

} // namespace bench
