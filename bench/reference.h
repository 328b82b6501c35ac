// Figures printed beside ours for context: the reference Queen server (queen-mq v0.15) measured on
// the project's 2-core box with durable PostgreSQL, raw HTTP, 10 partitions, 10 requests in flight,
// and the targets set from them (README, "Benchmarks").
#pragma once

#include <optional>
#include <string>

namespace bench {

struct ReferenceFigures {
    double queenMessagesPerSecond = 0;  // reference Queen, fresh database
    double targetMessagesPerSecond = 0; // ours must reach at least this
};

// The figures of a push or pop+ack scenario at batch 1, 10 or 100; nullopt for anything else.
std::optional<ReferenceFigures> referenceFor(const std::string& scenario, int batch);

// One line saying where the figures and targets come from, for the report.
std::string referenceNote();

} // namespace bench
