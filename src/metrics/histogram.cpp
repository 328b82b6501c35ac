#include "metrics/histogram.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace queen::metrics {

const Bounds& request_duration_bounds() {
  static const Bounds bounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return bounds;
}

const Bounds& db_call_duration_bounds() {
  static const Bounds bounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  return bounds;
}

HistogramFamily::HistogramFamily(Bounds bounds) : bounds_(std::move(bounds)) {}

HistogramFamily::Cells& HistogramFamily::cells(const std::string& labels) {
  {
    std::shared_lock<std::shared_mutex> read(mutex_);
    if (auto it = cells_.find(labels); it != cells_.end()) return *it->second;
  }
  std::unique_lock<std::shared_mutex> write(mutex_);
  auto& slot = cells_[labels];
  if (!slot) slot = std::make_unique<Cells>(bounds_.size());
  return *slot;
}

void HistogramFamily::observe(const std::string& labels, double seconds) {
  if (seconds < 0) seconds = 0;
  Cells& c = cells(labels);
  const auto bucket = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), seconds) -
                                               bounds_.begin());
  if (bucket < c.buckets.size()) c.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  c.sum_ns.fetch_add(static_cast<std::uint64_t>(seconds * 1e9), std::memory_order_relaxed);
  c.count.fetch_add(1, std::memory_order_relaxed);
}

std::vector<HistogramSample> HistogramFamily::samples() const {
  std::shared_lock<std::shared_mutex> read(mutex_);
  std::vector<HistogramSample> out;
  out.reserve(cells_.size());
  for (const auto& [labels, c] : cells_) {
    HistogramSample s;
    s.labels = labels;
    std::uint64_t running = 0;
    for (const auto& b : c->buckets) {
      running += b.load(std::memory_order_relaxed);
      s.cumulative.push_back(running);
    }
    // Read after the buckets: a racing observation then shows in the count, never in a bucket alone.
    s.count = std::max(running, c->count.load(std::memory_order_relaxed));
    s.sum_seconds = static_cast<double>(c->sum_ns.load(std::memory_order_relaxed)) / 1e9;
    out.push_back(std::move(s));
  }
  return out;
}

std::string label_pair(const std::string& name, const std::string& value) {
  std::string out = name + "=\"";
  for (const char ch : value) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

namespace {

std::string bound_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

void render_histograms(std::string& out, const char* name, const char* help, const Bounds& bounds,
                       const std::vector<HistogramSample>& samples) {
  out += std::string("# HELP ") + name + ' ' + help + "\n# TYPE " + name + " histogram\n";
  for (const auto& s : samples) {
    const std::string prefix = s.labels.empty() ? "" : s.labels + ",";
    for (std::size_t i = 0; i < bounds.size() && i < s.cumulative.size(); ++i) {
      out += std::string(name) + "_bucket{" + prefix + "le=\"" + bound_text(bounds[i]) + "\"} " +
             std::to_string(s.cumulative[i]) + '\n';
    }
    out += std::string(name) + "_bucket{" + prefix + "le=\"+Inf\"} " + std::to_string(s.count) + '\n';
    char sum[48];
    std::snprintf(sum, sizeof sum, "%.6f", s.sum_seconds);
    const std::string braces = s.labels.empty() ? "" : "{" + s.labels + "}";
    out += std::string(name) + "_sum" + braces + ' ' + sum + '\n';
    out += std::string(name) + "_count" + braces + ' ' + std::to_string(s.count) + '\n';
  }
}

}  // namespace queen::metrics
