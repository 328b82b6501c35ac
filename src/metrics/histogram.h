#pragma once
// Histograms of durations in seconds, one per label set, for the Prometheus
// exposition (docs/operations-metrics.md). Recording is lock-free once a label
// set has its histogram (a shared lock to find it, atomics to count); a new
// label set takes the exclusive lock once. Callers keep the label sets bounded
// (route templates, procedure names, status classes), never raw request data.
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

namespace queen::metrics {

// Upper bounds in seconds, ascending (+Inf is implied).
using Bounds = std::vector<double>;

// Request durations: a millisecond up to a long poll's half minute.
const Bounds& request_duration_bounds();
// Database calls: half a millisecond up to ten seconds.
const Bounds& db_call_duration_bounds();

// One histogram as rendered: cumulative counts per bound, the sum and the count.
struct HistogramSample {
  std::string labels;  // rendered label pairs without braces: name="value",...
  std::vector<std::uint64_t> cumulative;  // one per bound
  double sum_seconds = 0;
  std::uint64_t count = 0;
};

class HistogramFamily {
 public:
  explicit HistogramFamily(Bounds bounds);

  // `labels` is the rendered label text (label_pair() builds it).
  void observe(const std::string& labels, double seconds);
  std::vector<HistogramSample> samples() const;  // sorted by labels
  const Bounds& bounds() const { return bounds_; }

 private:
  struct Cells {
    explicit Cells(std::size_t n) : buckets(n) {}
    std::vector<std::atomic<std::uint64_t>> buckets;  // non-cumulative, one per bound
    std::atomic<std::uint64_t> count{0};
    std::atomic<std::uint64_t> sum_ns{0};
  };
  Cells& cells(const std::string& labels);

  const Bounds bounds_;
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::unique_ptr<Cells>> cells_;
};

// name="value" with the value escaped as the text format wants (\\, \", \n).
std::string label_pair(const std::string& name, const std::string& value);

// Appends the family's # HELP/# TYPE lines and every sample of it.
void render_histograms(std::string& out, const char* name, const char* help, const Bounds& bounds,
                       const std::vector<HistogramSample>& samples);

}  // namespace queen::metrics
