#include "metrics/metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

namespace queen::metrics {

void RateMeter::add(std::uint64_t n, std::int64_t now_s) {
  Bucket& b = buckets_[static_cast<std::size_t>(now_s % kBuckets)];
  std::int64_t seen = b.second.load(std::memory_order_relaxed);
  if (seen != now_s) {
    if (b.second.compare_exchange_strong(seen, now_s, std::memory_order_relaxed)) {
      b.count.store(0, std::memory_order_relaxed);
    }
  }
  b.count.fetch_add(n, std::memory_order_relaxed);
}

double RateMeter::rate(std::int64_t now_s, int window_s) const {
  if (window_s <= 0) return 0.0;
  if (window_s >= kBuckets) window_s = kBuckets - 1;
  std::uint64_t total = 0;
  for (std::int64_t s = now_s - window_s; s < now_s; ++s) {
    if (s < 0) continue;
    const Bucket& b = buckets_[static_cast<std::size_t>(s % kBuckets)];
    if (b.second.load(std::memory_order_relaxed) == s) total += b.count.load(std::memory_order_relaxed);
  }
  return static_cast<double>(total) / window_s;
}

Metrics::Metrics() : started_(std::chrono::steady_clock::now()) {}

std::int64_t Metrics::now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Metrics::add_request_body_bytes_in_flight(std::int64_t delta) {
  request_body_bytes_in_flight_.fetch_add(delta, std::memory_order_relaxed);
}

void Metrics::record_request() {
  requests_.fetch_add(1, std::memory_order_relaxed);
  request_rate_.add(1, now_s());
}

std::string status_class(int status) {
  if (status < 100 || status > 599) return "5xx";
  return std::to_string(status / 100) + "xx";
}

std::string method_label(const std::string& method) {
  static const char* const kServed[] = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"};
  for (const char* served : kServed) {
    if (method == served) return method;
  }
  return "other";
}

void Metrics::record_http_answer(const std::string& route, const std::string& method, int status, double seconds) {
  const std::string route_method = label_pair("route", route) + "," + label_pair("method", method_label(method));
  http_durations_.observe(route_method + "," + label_pair("status_class", status_class(status)), seconds);
  std::lock_guard<std::mutex> lock(answers_mutex_);
  ++http_answers_[route_method + "," + label_pair("code", std::to_string(status))];
}

std::vector<std::pair<std::string, std::uint64_t>> Metrics::http_answers() const {
  std::lock_guard<std::mutex> lock(answers_mutex_);
  return {http_answers_.begin(), http_answers_.end()};
}

void Metrics::record_push(std::uint64_t accepted_items) {
  push_requests_.fetch_add(1, std::memory_order_relaxed);
  push_messages_.fetch_add(accepted_items, std::memory_order_relaxed);
  if (accepted_items) message_rate_.add(accepted_items, now_s());
}

void Metrics::record_pop(std::uint64_t messages) {
  pop_requests_.fetch_add(1, std::memory_order_relaxed);
  pop_messages_.fetch_add(messages, std::memory_order_relaxed);
  if (messages) message_rate_.add(messages, now_s());
}

void Metrics::record_ack(std::uint64_t succeeded, std::uint64_t failed) {
  ack_requests_.fetch_add(1, std::memory_order_relaxed);
  ack_messages_.fetch_add(succeeded + failed, std::memory_order_relaxed);
  ack_success_.fetch_add(succeeded, std::memory_order_relaxed);
  ack_failed_.fetch_add(failed, std::memory_order_relaxed);
}

void Metrics::record_db_error() { db_errors_.fetch_add(1, std::memory_order_relaxed); }

void Metrics::record_undecryptable(std::uint64_t messages) {
  undecryptable_messages_.fetch_add(messages, std::memory_order_relaxed);
}

Counters Metrics::counters() const {
  Counters c;
  c.requests = requests_.load(std::memory_order_relaxed);
  c.push_requests = push_requests_.load(std::memory_order_relaxed);
  c.push_messages = push_messages_.load(std::memory_order_relaxed);
  c.pop_requests = pop_requests_.load(std::memory_order_relaxed);
  c.pop_messages = pop_messages_.load(std::memory_order_relaxed);
  c.ack_requests = ack_requests_.load(std::memory_order_relaxed);
  c.ack_messages = ack_messages_.load(std::memory_order_relaxed);
  c.ack_success = ack_success_.load(std::memory_order_relaxed);
  c.ack_failed = ack_failed_.load(std::memory_order_relaxed);
  c.db_errors = db_errors_.load(std::memory_order_relaxed);
  c.undecryptable_messages = undecryptable_messages_.load(std::memory_order_relaxed);
  c.request_body_bytes_in_flight =
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, request_body_bytes_in_flight_.load(std::memory_order_relaxed)));
  return c;
}

double Metrics::uptime_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

double Metrics::request_rate() const { return request_rate_.rate(now_s()); }
double Metrics::message_rate() const { return message_rate_.rate(now_s()); }

ProcessStats read_process_stats() {
  ProcessStats s;
  // /proc/self/statm: size resident ... in pages.
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size_pages = 0, resident_pages = 0;
  if (statm >> size_pages >> resident_pages) {
    const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    s.virtual_bytes = size_pages * page;
    s.resident_bytes = resident_pages * page;
  }
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    s.cpu_user_us = static_cast<std::uint64_t>(usage.ru_utime.tv_sec) * 1000000 + usage.ru_utime.tv_usec;
    s.cpu_system_us = static_cast<std::uint64_t>(usage.ru_stime.tv_sec) * 1000000 + usage.ru_stime.tv_usec;
  }
  if (DIR* fds = opendir("/proc/self/fd")) {
    std::uint64_t entries = 0;
    while (const dirent* entry = readdir(fds)) {
      if (entry->d_name[0] != '.') ++entries;
    }
    closedir(fds);
    s.open_fds = entries > 0 ? entries - 1 : 0;  // less the descriptor of the listing itself
  }
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) s.max_fds = static_cast<std::uint64_t>(files.rlim_cur);
  s.start_time_seconds = process_start_time_seconds();
  return s;
}

double process_start_time_seconds() {
  // /proc/self/stat field 22 is the start in clock ticks after boot; /proc/stat's btime is the boot.
  static const double start = [] {
    std::ifstream stat_file("/proc/self/stat");
    std::string text((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    const std::size_t close = text.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos) return 0.0;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    unsigned long long ticks = 0;
    for (int i = 3; i <= 22 && fields >> field; ++i) {
      if (i == 22) ticks = std::stoull(field);
    }
    std::ifstream proc_stat("/proc/stat");
    std::string key;
    unsigned long long boot = 0;
    while (proc_stat >> key) {
      if (key == "btime") {
        proc_stat >> boot;
        break;
      }
    }
    const long hz = sysconf(_SC_CLK_TCK);
    if (boot == 0 || hz <= 0) return 0.0;
    return static_cast<double>(boot) + static_cast<double>(ticks) / static_cast<double>(hz);
  }();
  return start;
}

namespace {

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

std::string num(std::uint64_t v) { return std::to_string(v); }
std::string decimal(double v, int places) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", places, v);
  return buf;
}
std::string num(double v) { return decimal(v, 3); }

// One line of a family: `name{labels} value`, or `name value` without labels.
void sample(std::string& out, const std::string& name, const std::string& labels, const std::string& value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  out += value;
  out += '\n';
}

// A family of one unlabelled sample.
void series(std::string& out, const char* name, const char* type, const char* help, const std::string& value) {
  family(out, name, type, help);
  sample(out, name, "", value);
}

std::string lane_label(const AdmissionLane& lane) { return "lane=\"" + lane.lane + "\""; }

std::string seconds(double v) { return decimal(v, 6); }

// One labelled sample per operation of the push, ack and pop combiners (docs/combining.md).
void combining_series(std::string& out, const Gauges& g) {
  const std::pair<const char*, const CombinedCalls*> operations[] = {
      {"push", &g.push_combining}, {"ack", &g.ack_combining}, {"pop", &g.pop_combining}};
  family(out, "queen_combined_calls_total", "counter", "Database calls made by the push, ack and pop combiners.");
  for (const auto& [operation, counts] : operations) {
    sample(out, "queen_combined_calls_total", "operation=\"" + std::string(operation) + "\"", num(counts->calls));
  }
  family(out, "queen_combined_requests_total", "counter", "Requests that shared a database call with another.");
  for (const auto& [operation, counts] : operations) {
    sample(out, "queen_combined_requests_total", "operation=\"" + std::string(operation) + "\"",
           num(counts->combined_requests));
  }
}

// The admission arbiter's lanes (docs/flow-control.md).
void render_admission(std::string& out, const std::vector<AdmissionLane>& lanes) {
  if (lanes.empty()) return;
  family(out, "queen_flow_slots", "gauge", "Database slots a lane of the admission arbiter may hold at once.");
  for (const auto& l : lanes) sample(out, "queen_flow_slots", lane_label(l), num(static_cast<std::uint64_t>(l.slots)));
  family(out, "queen_flow_slots_in_use", "gauge", "Database slots a lane holds now (occupancy).");
  for (const auto& l : lanes) {
    sample(out, "queen_flow_slots_in_use", lane_label(l), num(static_cast<std::uint64_t>(l.in_use)));
  }
  family(out, "queen_flow_waiting", "gauge", "Requests of a lane waiting for a database slot now.");
  for (const auto& l : lanes) {
    sample(out, "queen_flow_waiting", lane_label(l), num(static_cast<std::uint64_t>(l.waiting)));
  }
  family(out, "queen_flow_granted_total", "counter", "Database slots granted to a lane.");
  for (const auto& l : lanes) sample(out, "queen_flow_granted_total", lane_label(l), num(l.granted));
  family(out, "queen_flow_rejected_total", "counter",
         "Requests of a lane refused (429): its wait queue was full, or no slot came within its wait bound.");
  for (const auto& l : lanes) {
    sample(out, "queen_flow_rejected_total", lane_label(l) + ",reason=\"queue_full\"", num(l.rejected_queue_full));
    sample(out, "queen_flow_rejected_total", lane_label(l) + ",reason=\"timeout\"", num(l.rejected_timeout));
  }
  family(out, "queen_flow_wait_seconds", "histogram", "Time a granted database slot was waited for.");
  for (const auto& l : lanes) {
    for (const auto& [bound, count] : l.wait_buckets) {
      sample(out, "queen_flow_wait_seconds_bucket", lane_label(l) + ",le=\"" + seconds(bound) + "\"", num(count));
    }
    sample(out, "queen_flow_wait_seconds_bucket", lane_label(l) + ",le=\"+Inf\"", num(l.wait_count));
    sample(out, "queen_flow_wait_seconds_sum", lane_label(l), seconds(l.wait_seconds_sum));
    sample(out, "queen_flow_wait_seconds_count", lane_label(l), num(l.wait_count));
  }
}

}  // namespace

std::string render_build_info(std::string_view version) {
  std::string out;
  family(out, "queen_build_info", "gauge", "Always 1; the version label is the broker's release.");
  sample(out, "queen_build_info", "version=\"" + std::string(version) + "\"", "1");
  return out;
}

std::string render_process(const ProcessStats& p) {
  std::string out;
  series(out, "process_cpu_seconds_total", "counter", "User and system CPU time of the process, in seconds.",
         seconds(static_cast<double>(p.cpu_user_us + p.cpu_system_us) / 1e6));
  series(out, "process_resident_memory_bytes", "gauge", "Resident memory of the process, in bytes.",
         num(p.resident_bytes));
  series(out, "process_virtual_memory_bytes", "gauge", "Virtual memory of the process, in bytes.",
         num(p.virtual_bytes));
  series(out, "process_open_fds", "gauge", "Open file descriptors of the process.", num(p.open_fds));
  series(out, "process_max_fds", "gauge", "Open file descriptors the process may hold (soft RLIMIT_NOFILE).",
         num(p.max_fds));
  series(out, "process_start_time_seconds", "gauge", "Start of the process, in seconds since the Unix epoch.",
         decimal(p.start_time_seconds, 2));
  return out;
}

std::string render_prometheus(const Metrics& metrics, const Gauges& g, const ProcessStats& p) {
  const Counters c = metrics.counters();
  std::string out;
  out.reserve(16384);
  series(out, "queen_uptime_seconds", "gauge", "Seconds since the broker process started.",
         num(metrics.uptime_seconds()));
  series(out, "queen_file_buffer_pending", "gauge", "Spooled push events not yet replayed.", num(g.spool_pending));
  series(out, "queen_file_buffer_failed", "gauge", "Spooled events in quarantined files.", num(g.spool_failed));
  series(out, "queen_file_buffer_db_healthy", "gauge", "1 if the spool drain considers the database healthy.",
         num(std::uint64_t{g.spool_db_healthy}));
  series(out, "queen_file_buffer_fallback", "gauge",
         "1 while the spool is in the per-user fallback directory because FILE_BUFFER_DIR is not usable.",
         num(std::uint64_t{g.spool_fallback}));
  series(out, "queen_maintenance_mode_enabled", "gauge", "1 while push maintenance mode is on.",
         num(std::uint64_t{g.maintenance}));
  series(out, "queen_pop_maintenance_mode_enabled", "gauge", "1 while pop maintenance mode is on.",
         num(std::uint64_t{g.pop_maintenance}));
  series(out, "queen_db_pool_size", "gauge", "Configured database connection pool size.",
         num(static_cast<std::uint64_t>(g.db_pool_size)));
  series(out, "queen_db_pool_idle", "gauge", "Open database connections not in use.",
         num(static_cast<std::uint64_t>(g.db_pool_idle)));
  series(out, "queen_db_pool_active", "gauge", "Database connections lent to requests.",
         num(static_cast<std::uint64_t>(g.db_pool_active)));
  series(out, "queen_db_pool_waiting", "gauge", "Requests waiting for a database connection.",
         num(static_cast<std::uint64_t>(g.db_pool_waiting)));
  series(out, "queen_parked_pops", "gauge", "Long polls parked waiting for messages.", num(g.parked_pops));
  combining_series(out, g);
  out += render_process(p);
  family(out, "queen_http_requests_total", "counter",
         "HTTP requests answered by this broker, by route template, method and status code.");
  for (const auto& [labels, count] : metrics.http_answers()) sample(out, "queen_http_requests_total", labels, num(count));
  render_histograms(out, "queen_http_request_duration_seconds",
                    "Time from a request's head to its answer, by route template, method and status class.",
                    metrics.http_durations().bounds(), metrics.http_durations().samples());
  render_histograms(out, "queen_db_call_duration_seconds",
                    "Time a database procedure call spent on its connection (each attempt), by procedure.",
                    metrics.db_call_durations().bounds(), metrics.db_call_durations().samples());
  series(out, "queen_push_requests_total", "counter", "Push requests served by this broker.", num(c.push_requests));
  series(out, "queen_push_messages_total", "counter", "Push items accepted by this broker.", num(c.push_messages));
  series(out, "queen_pop_requests_total", "counter", "Pop requests served by this broker.", num(c.pop_requests));
  series(out, "queen_pop_messages_total", "counter", "Messages delivered by this broker.", num(c.pop_messages));
  series(out, "queen_ack_requests_total", "counter", "Ack requests served by this broker.", num(c.ack_requests));
  out += "# HELP queen_ack_messages_total Ack items processed by this broker, by outcome.\n";
  out += "# TYPE queen_ack_messages_total counter\n";
  out += "queen_ack_messages_total{result=\"success\"} " + num(c.ack_success) + "\n";
  out += "queen_ack_messages_total{result=\"failed\"} " + num(c.ack_failed) + "\n";
  series(out, "queen_db_errors_total", "counter", "Failed database calls of this broker.", num(c.db_errors));
  series(out, "queen_undecryptable_messages_total", "counter",
         "Popped messages that failed decryption (tampered, unknown key) and went to the DLQ.",
         num(c.undecryptable_messages));
  series(out, "queen_http_request_body_bytes_in_flight", "gauge",
         "Request-body bytes held by requests in flight (HTTP_MAX_BODY_BYTES_IN_FLIGHT).",
         num(c.request_body_bytes_in_flight));
  render_admission(out, g.admission);
  return out;
}

}  // namespace queen::metrics
