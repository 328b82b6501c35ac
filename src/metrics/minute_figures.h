#pragma once
// The figures a broker flushes once a minute into queen.broker_stats_minutes
// (docs/operations-stats.md): counter deltas since the previous flush and
// gauges sampled now, as the JSON object queen.record_broker_minute reads.
// Pure: unit-tested.
#include <string>

#include "metrics/metrics.h"

namespace queen::metrics {

struct MinuteSample {
  Counters counters;
  ProcessStats process;
};

// Deltas of `now` over `before` (a counter that went backwards counts from 0)
// and the gauges of `gauges` and `now.process`.
std::string minute_figures_json(const MinuteSample& before, const MinuteSample& now, const Gauges& gauges,
                                const std::string& hostname, int port);

}  // namespace queen::metrics
