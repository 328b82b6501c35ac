#pragma once
// Complete fakes of the KV, consumer-group and statistics procedures for the
// use-case tests: each records its arguments and answers what the test set,
// or fails with `failure` when one is set.
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/admission.h"
#include "broker/cluster_hooks.h"
#include "db/consumer_groups_db.h"
#include "db/db_error.h"
#include "db/kv_db.h"
#include "db/stats_db.h"
#include "flow/arbiter.h"
#include "util/clock.h"

namespace queen::testing {

// A Read lane with room for every test call, without a statement timeout of its own.
struct OpenReadGate {
  static flow::FlowLimits limits() {
    flow::FlowLimits l;
    l.total_slots = 4;
    for (const flow::Lane each : flow::kWakeOrder) l[each] = flow::LaneLimits{4, 4, std::chrono::seconds(10)};
    return l;
  }
  flow::Arbiter arbiter{limits(), util::real_clock()};
  broker::ReadGate reads{arbiter, std::chrono::milliseconds(0)};
};

class FailingFake {
 public:
  std::optional<db::DbError> failure;

 protected:
  void fail_if_set() const {
    if (failure) throw *failure;
  }
};

class KvFake : public db::KvProcedures, public FailingFake {
 public:
  struct Set {
    std::string key, value_json;
    std::optional<std::int64_t> ttl_ms;
    std::string tenant;
  };
  std::vector<Set> sets;
  std::vector<std::string> reads_of;  // "tenant/key"
  std::optional<db::KvEntry> stored;
  std::optional<std::int64_t> expires_at_us;
  bool removed = false;

  std::optional<std::int64_t> set(const std::string& key, const std::string& value_json,
                                  std::optional<std::int64_t> ttl_ms, const Tenant& tenant) override {
    fail_if_set();
    sets.push_back({key, value_json, ttl_ms, tenant.name()});
    return expires_at_us;
  }
  std::optional<db::KvEntry> get(const std::string& key, const Tenant& tenant) override {
    fail_if_set();
    reads_of.push_back(tenant.name() + "/" + key);
    return stored;
  }
  bool remove(const std::string& key, const Tenant& tenant) override {
    fail_if_set();
    reads_of.push_back(tenant.name() + "/" + key);
    return removed;
  }
  int prune_expired(int limit) override {
    fail_if_set();
    return limit;
  }
};

class ConsumerGroupsFake : public db::ConsumerGroupProcedures, public FailingFake {
 public:
  std::vector<std::string> calls;  // "procedure tenant"
  std::string listing = "[]";
  int rows = 0;  // what remove, set_subscription_start and seek answer
  db::PartitionSeek partition_seek;

  std::string list(const Tenant& tenant) override { return answer("list " + tenant.name(), listing); }
  std::string lagging(std::int64_t min_lag_seconds, const Tenant& tenant) override {
    return answer("lagging " + std::to_string(min_lag_seconds) + " " + tenant.name(), listing);
  }
  std::string detail(const std::string& group, const Tenant& tenant) override {
    return answer("detail " + group + " " + tenant.name(), listing);
  }
  int remove(const std::string& group, const std::optional<std::string>& queue, bool, const Tenant& tenant) override {
    return answer("remove " + group + " " + queue.value_or("*") + " " + tenant.name(), rows);
  }
  int set_subscription_start(const std::string& group, const std::string& start_at,
                             const Tenant& tenant) override {
    return answer("set_subscription_start " + group + " " + start_at + " " + tenant.name(), rows);
  }
  int seek(const std::string& group, const std::string& queue, bool to_end, const std::optional<std::string>&,
           const Tenant& tenant) override {
    return answer("seek " + group + " " + queue + (to_end ? " end " : " at ") + tenant.name(), rows);
  }
  db::PartitionSeek seek_partition_to_end(const std::string& group, const std::string& queue,
                                          const std::string& partition, const Tenant& tenant) override {
    return answer("seek_partition_to_end " + group + " " + queue + " " + partition + " " + tenant.name(), partition_seek);
  }

 private:
  template <typename T>
  T answer(std::string call, T value) {
    fail_if_set();
    calls.push_back(std::move(call));
    return value;
  }
};

class StatsFake : public db::StatsProcedures, public FailingFake {
 public:
  struct ViewCall {
    std::string function;
    std::string tenant, params_json;
  };
  std::vector<ViewCall> views;
  std::optional<std::string> body = std::string("{}");
  std::vector<std::pair<int, int>> refreshes;
  std::vector<std::pair<std::string, std::string>> minutes;

  std::optional<std::string> view(const db::View& view, const Tenant& tenant,
                                  const std::string& params_json) override {
    fail_if_set();
    views.push_back({view.function, tenant.name(), params_json});
    return body;
  }
  std::string refresh(int max_queues, int budget_ms) override {
    fail_if_set();
    refreshes.emplace_back(max_queues, budget_ms);
    return "{\"refreshed\":0}";
  }
  void record_broker_minute(const std::string& server_id, const std::string& figures_json) override {
    fail_if_set();
    minutes.emplace_back(server_id, figures_json);
  }
  std::string snapshot = "{\"queues\":[],\"groups\":[]}";
  std::vector<int> snapshots;  // max_queues of each metrics_snapshot call
  std::string metrics_snapshot(int max_queues) override {
    fail_if_set();
    snapshots.push_back(max_queues);
    return snapshot;
  }
};

class RecordingClusterHooks : public broker::ClusterHooks {
 public:
  std::vector<std::set<std::string>> committed;
  void push_committed(const std::set<std::string>& queues) override { committed.push_back(queues); }
  void timers_scheduled() override {}
  void maintenance_changed(broker::MaintenanceKind, bool) override {}
  void queue_configured(const std::string&) override {}
};

}  // namespace queen::testing
