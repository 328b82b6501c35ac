#include "latency.h"

#include <algorithm>
#include <cmath>

namespace bench {

LatencySamples::LatencySamples(std::size_t capacity) : capacity_(capacity) {
    // Reserve a modest slice up front; growth beyond it is amortized and still bounded by capacity.
    samples_.reserve(std::min<std::size_t>(capacity_, 65'536));
}

void LatencySamples::record(std::int64_t micros) {
    if (samples_.size() < capacity_) {
        samples_.push_back(micros);
    } else {
        ++dropped_;
    }
}

void LatencySamples::absorb(LatencySamples&& other) {
    dropped_ += other.dropped_;
    for (std::int64_t sample : other.samples_) record(sample);
    other.samples_.clear();
    other.dropped_ = 0;
}

std::int64_t percentileNearestRank(const std::vector<std::int64_t>& ascending, double p) {
    if (ascending.empty()) return 0;
    const double clamped = std::clamp(p, 0.0, 100.0);
    // Nearest rank: the smallest sample such that at least p% of the samples are <= it.
    // The small epsilon keeps a rank that is a whole number in exact arithmetic (99.9% of 2000 is
    // 1998) from being pushed up by one by the rounding of p / 100.
    const auto rank = static_cast<std::size_t>(
        std::ceil(clamped / 100.0 * static_cast<double>(ascending.size()) - 1e-9));
    const std::size_t index = rank == 0 ? 0 : rank - 1;
    return ascending[std::min(index, ascending.size() - 1)];
}

LatencySummary summarize(std::vector<std::int64_t> micros) {
    LatencySummary summary;
    if (micros.empty()) return summary;
    std::sort(micros.begin(), micros.end());
    summary.count = micros.size();
    summary.p50Ms = static_cast<double>(percentileNearestRank(micros, 50)) / 1000.0;
    summary.p99Ms = static_cast<double>(percentileNearestRank(micros, 99)) / 1000.0;
    summary.p999Ms = static_cast<double>(percentileNearestRank(micros, 99.9)) / 1000.0;
    summary.maxMs = static_cast<double>(micros.back()) / 1000.0;
    return summary;
}

} // namespace bench
