#include "metrics/queue_depths.h"

#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "metrics/histogram.h"

namespace queen::metrics {
namespace {

std::uint64_t count_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return 0;
  if (!it->is_number()) throw std::invalid_argument(std::string("metrics snapshot: ") + key + " is not a number");
  const auto value = it->get<std::int64_t>();
  return value < 0 ? 0 : static_cast<std::uint64_t>(value);
}

std::string text_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) {
    throw std::invalid_argument(std::string("metrics snapshot: ") + key + " is not a string");
  }
  return it->get<std::string>();
}

QueueFigures figures_of(const nlohmann::json& q) {
  QueueFigures d;
  d.pending = count_of(q, "pending");
  d.leased = count_of(q, "leased");
  d.dead_letters = count_of(q, "deadLetters");
  d.lag_seconds = count_of(q, "lagSeconds");
  return d;
}

std::string queue_labels(const Tenant& tenant, const std::string& queue) {
  return label_pair("tenant", tenant.name()) + "," + label_pair("queue", queue);
}

// The aggregate's labels: no tenant's (an empty label, as the default tenant's).
std::string other_queue_labels() { return label_pair("tenant", "") + "," + label_pair("queue", kOtherQueues); }

void gauge(std::string& out, const char* name, const char* help) {
  out += std::string("# HELP ") + name + ' ' + help + "\n# TYPE " + name + " gauge\n";
}

void sample(std::string& out, const char* name, const std::string& labels, std::uint64_t value) {
  out += std::string(name) + '{' + labels + "} " + std::to_string(value) + '\n';
}

// One family over every queue, the aggregate last.
template <typename Field>
void queue_family(std::string& out, const QueueDepths& d, const char* name, const char* help, Field field) {
  gauge(out, name, help);
  for (const QueueDepth& q : d.queues) sample(out, name, queue_labels(q.tenant, q.queue), field(q));
  if (d.other_queues > 0) sample(out, name, other_queue_labels(), field(d.other));
}

}  // namespace

QueueDepths parse_queue_depths(const std::string& snapshot_json) {
  const nlohmann::json snapshot = nlohmann::json::parse(snapshot_json, nullptr, false);
  if (!snapshot.is_object()) throw std::invalid_argument("metrics snapshot: not a JSON object");
  QueueDepths depths;
  for (const auto& q : snapshot.value("queues", nlohmann::json::array())) {
    depths.queues.push_back(QueueDepth{figures_of(q), Tenant(text_of(q, "tenant")), text_of(q, "queue")});
  }
  if (const auto other = snapshot.find("other"); other != snapshot.end() && other->is_object()) {
    depths.other = figures_of(*other);
    depths.other_queues = count_of(*other, "queues");
  }
  for (const auto& g : snapshot.value("groups", nlohmann::json::array())) {
    depths.groups.push_back(GroupLag{Tenant(text_of(g, "tenant")), text_of(g, "queue"), text_of(g, "group"),
                                     count_of(g, "lagMessages"), count_of(g, "lagSeconds")});
  }
  depths.stats_age_seconds = count_of(snapshot, "statsAgeSeconds");
  return depths;
}

std::string render_queue_depths(const QueueDepths& d, double refreshed_at_seconds) {
  std::string out;
  char stamp[48];
  std::snprintf(stamp, sizeof stamp, "%.3f", refreshed_at_seconds);
  gauge(out, "queen_queue_depth_refreshed_timestamp_seconds",
        "When this broker last read the queue figures below (Unix time; 0: not yet).");
  out += std::string("queen_queue_depth_refreshed_timestamp_seconds ") + stamp + '\n';
  if (refreshed_at_seconds <= 0) return out;
  gauge(out, "queen_queue_stats_age_seconds",
        "Age of the stalest queue statistics row behind the queue figures (STATS_RECONCILE_INTERVAL_MS).");
  out += "queen_queue_stats_age_seconds " + std::to_string(d.stats_age_seconds) + '\n';
  queue_family(out, d, "queen_queue_pending_messages", "Messages not yet consumed by the slowest consumer group.",
               [](const QueueFigures& q) { return q.pending; });
  queue_family(out, d, "queen_queue_leased_messages", "Messages handed out under a live lease, not acked yet.",
               [](const QueueFigures& q) { return q.leased; });
  queue_family(out, d, "queen_queue_dead_letter_messages", "Messages in the dead-letter queue.",
               [](const QueueFigures& q) { return q.dead_letters; });
  queue_family(out, d, "queen_queue_lag_seconds",
               "Age of the oldest message the slowest consumer group has not consumed, in seconds.",
               [](const QueueFigures& q) { return q.lag_seconds; });
  gauge(out, "queen_consumer_group_lag_messages", "Messages after a consumer group's cursors, per queue.");
  for (const GroupLag& g : d.groups) {
    sample(out, "queen_consumer_group_lag_messages", queue_labels(g.tenant, g.queue) + "," + label_pair("group", g.group),
           g.lag_messages);
  }
  const std::string other_group = other_queue_labels() + "," + label_pair("group", kOtherQueues);
  if (d.other_queues > 0) sample(out, "queen_consumer_group_lag_messages", other_group, d.other.pending);
  gauge(out, "queen_consumer_group_lag_seconds",
        "Age of the oldest message a consumer group has not consumed, per queue, in seconds.");
  for (const GroupLag& g : d.groups) {
    sample(out, "queen_consumer_group_lag_seconds", queue_labels(g.tenant, g.queue) + "," + label_pair("group", g.group),
           g.lag_seconds);
  }
  if (d.other_queues > 0) sample(out, "queen_consumer_group_lag_seconds", other_group, d.other.lag_seconds);
  return out;
}

}  // namespace queen::metrics
