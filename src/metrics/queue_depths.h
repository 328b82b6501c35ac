#pragma once
// The queue figures of the /metrics exposition (docs/operations-metrics.md):
// queue depth (pending, leased, dead letters) and consumer lag, as the last
// background read of queen.metrics_snapshot left them. A scrape renders the
// copy held in memory: it never reaches the database.
#include <cstdint>
#include <string>
#include <vector>

#include "tenant/tenant.h"

namespace queen::metrics {

// The label value of what METRICS_MAX_QUEUES leaves out, summed.
inline constexpr const char* kOtherQueues = "_other";

struct QueueFigures {
  std::uint64_t pending = 0, leased = 0, dead_letters = 0;
  std::uint64_t lag_seconds = 0;  // age of the oldest message the slowest group has not consumed
};

struct QueueDepth : QueueFigures {
  Tenant tenant;
  std::string queue;
};

struct GroupLag {
  Tenant tenant;
  std::string queue, group;
  std::uint64_t lag_messages = 0, lag_seconds = 0;
};

struct QueueDepths {
  std::vector<QueueDepth> queues;  // the METRICS_MAX_QUEUES deepest
  QueueFigures other;              // the rest, summed (lag: the largest), of every tenant
  std::uint64_t other_queues = 0;  // how many queues `other` sums
  std::vector<GroupLag> groups;    // per (queue, group) of `queues`
  std::uint64_t stats_age_seconds = 0;  // age of the stalest statistics row read
};

// queen.metrics_snapshot's object. Throws std::invalid_argument on another shape.
QueueDepths parse_queue_depths(const std::string& snapshot_json);

// The series of `depths`, read at `refreshed_at_seconds` (Unix time; 0: never read, then only
// the refresh timestamp is rendered).
std::string render_queue_depths(const QueueDepths& depths, double refreshed_at_seconds);

}  // namespace queen::metrics
