// Latency samples and their percentiles (pure, unit tested).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

// A bounded list of latency samples in microseconds. One per thread: no locking. Samples past
// the capacity are counted but not kept, so memory stays bounded on long runs.
class LatencySamples {
public:
    explicit LatencySamples(std::size_t capacity);
    void record(std::int64_t micros);
    // Moves the kept samples of `other` into this one, honouring this one's capacity.
    void absorb(LatencySamples&& other);
    const std::vector<std::int64_t>& kept() const { return samples_; }
    std::uint64_t dropped() const { return dropped_; }

private:
    std::size_t capacity_;
    std::vector<std::int64_t> samples_;
    std::uint64_t dropped_ = 0;
};

struct LatencySummary {
    std::size_t count = 0; // kept samples the percentiles come from
    double p50Ms = 0;
    double p99Ms = 0;
    double p999Ms = 0;
    double maxMs = 0;
};

// Nearest-rank percentile (p in (0,100]) of an ascending vector; 0 for an empty one.
std::int64_t percentileNearestRank(const std::vector<std::int64_t>& ascending, double p);

// Sorts a copy of the samples and reports p50, p99, p99.9 and the maximum in milliseconds.
LatencySummary summarize(std::vector<std::int64_t> micros);

} // namespace bench
