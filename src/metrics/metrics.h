#pragma once
// In-process counters of the broker and their two renderings (JSON fields
// for GET /metrics are assembled by the http layer from a MetricsSnapshot;
// the Prometheus text exposition is rendered here). Never touches the
// database: /metrics/prometheus must answer while PostgreSQL is down.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/histogram.h"

namespace queen::metrics {

// Events per second over a sliding window of whole seconds, lock-free on the
// recording side. Counts racing with a bucket rollover may be lost, which is
// acceptable for a rate.
class RateMeter {
 public:
  void add(std::uint64_t n, std::int64_t now_s);
  // Average per second over the `window_s` complete seconds before `now_s`.
  double rate(std::int64_t now_s, int window_s = 10) const;

 private:
  static constexpr int kBuckets = 64;
  struct Bucket {
    std::atomic<std::int64_t> second{-1};
    std::atomic<std::uint64_t> count{0};
  };
  std::array<Bucket, kBuckets> buckets_;
};

struct Counters {
  std::uint64_t requests = 0;
  std::uint64_t push_requests = 0;
  std::uint64_t push_messages = 0;   // items accepted (queued/duplicate/buffered)
  std::uint64_t pop_requests = 0;
  std::uint64_t pop_messages = 0;
  std::uint64_t ack_requests = 0;
  std::uint64_t ack_messages = 0;
  std::uint64_t ack_success = 0;
  std::uint64_t ack_failed = 0;
  std::uint64_t db_errors = 0;
  std::uint64_t undecryptable_messages = 0;  // popped messages that failed decryption (sent to the DLQ)
  std::uint64_t request_body_bytes_in_flight = 0;  // a gauge: HTTP_MAX_BODY_BYTES_IN_FLIGHT reservations held
};

class Metrics {
 public:
  Metrics();

  void record_request();
  // One answered request (docs/operations-metrics.md): `route` is the matched route template
  // ("unmatched" when none), `method` one of the HTTP methods the broker serves ("other" otherwise).
  void record_http_answer(const std::string& route, const std::string& method, int status, double seconds);
  void record_push(std::uint64_t accepted_items);
  void record_pop(std::uint64_t messages);
  void record_ack(std::uint64_t succeeded, std::uint64_t failed);
  void record_db_error();
  void record_undecryptable(std::uint64_t messages);
  // The HTTP body budget's reservations taken (+) and returned (-).
  void add_request_body_bytes_in_flight(std::int64_t delta);

  Counters counters() const;
  double uptime_seconds() const;
  double request_rate() const;
  double message_rate() const;  // pushed + popped messages per second

  // queen_http_request_duration_seconds{route,method,status_class} and the answers by code.
  const HistogramFamily& http_durations() const { return http_durations_; }
  std::vector<std::pair<std::string, std::uint64_t>> http_answers() const;  // {labels, count}, sorted
  // queen_db_call_duration_seconds{procedure}: filled by the database's procedure runner.
  HistogramFamily& db_call_durations() { return db_call_durations_; }
  const HistogramFamily& db_call_durations() const { return db_call_durations_; }

 private:
  static std::int64_t now_s();

  const std::chrono::steady_clock::time_point started_;
  std::atomic<std::uint64_t> requests_{0}, push_requests_{0}, push_messages_{0}, pop_requests_{0},
      pop_messages_{0}, ack_requests_{0}, ack_messages_{0}, ack_success_{0}, ack_failed_{0}, db_errors_{0},
      undecryptable_messages_{0};
  std::atomic<std::int64_t> request_body_bytes_in_flight_{0};
  RateMeter request_rate_;
  RateMeter message_rate_;
  HistogramFamily http_durations_{request_duration_bounds()};
  HistogramFamily db_call_durations_{db_call_duration_bounds()};
  mutable std::mutex answers_mutex_;
  std::map<std::string, std::uint64_t> http_answers_;  // labels route,method,code -> count
};

// Process resource usage from /proc and getrusage.
struct ProcessStats {
  std::uint64_t resident_bytes = 0;
  std::uint64_t virtual_bytes = 0;
  std::uint64_t cpu_user_us = 0;
  std::uint64_t cpu_system_us = 0;
  std::uint64_t open_fds = 0;
  std::uint64_t max_fds = 0;          // the soft RLIMIT_NOFILE
  double start_time_seconds = 0;      // since the Unix epoch (0: unknown)
};
ProcessStats read_process_stats();
// When this process started, in seconds since the Unix epoch (0: unknown). Read once.
double process_start_time_seconds();

// One lane of the admission arbiter (docs/flow-control.md), sampled when rendering.
struct AdmissionLane {
  std::string lane;  // push, pop, ack, maint
  int slots = 0;     // the lane's cap
  int in_use = 0;
  int waiting = 0;
  std::uint64_t granted = 0;
  std::uint64_t rejected_queue_full = 0;
  std::uint64_t rejected_timeout = 0;
  // Wait for a granted slot: cumulative counts by upper bound in seconds (+Inf is wait_count).
  std::vector<std::pair<double, std::uint64_t>> wait_buckets;
  double wait_seconds_sum = 0;
  std::uint64_t wait_count = 0;
};

// A combiner's counters (docs/combining.md): database calls made, and
// requests that shared a call with another.
struct CombinedCalls {
  std::uint64_t calls = 0;
  std::uint64_t combined_requests = 0;
};

// Gauges owned by other modules, sampled when rendering.
struct Gauges {
  int db_pool_size = 0;
  int db_pool_idle = 0;
  int db_pool_active = 0;
  int db_pool_waiting = 0;
  std::uint64_t spool_pending = 0;
  std::uint64_t spool_failed = 0;
  bool spool_db_healthy = true;
  bool spool_fallback = false;  // the spool is in the per-user fallback directory
  bool maintenance = false;
  bool pop_maintenance = false;
  std::size_t parked_pops = 0;
  std::vector<AdmissionLane> admission;  // empty: no arbiter
  CombinedCalls push_combining;
  CombinedCalls ack_combining;
  CombinedCalls pop_combining;
};

// queen_build_info{version="<version>"} 1 (the version is a release number: nothing to escape).
std::string render_build_info(std::string_view version);

// The standard process_* series of the Prometheus client libraries.
std::string render_process(const ProcessStats& process);

// Prometheus text exposition format 0.0.4: counters, gauges, request and database call histograms.
std::string render_prometheus(const Metrics& metrics, const Gauges& gauges, const ProcessStats& process);

// The class of an HTTP status for labels: "2xx" .. "5xx".
std::string status_class(int status);
// The method as a label: one the broker serves, or "other".
std::string method_label(const std::string& method);

}  // namespace queen::metrics
