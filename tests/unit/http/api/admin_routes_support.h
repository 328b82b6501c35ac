#pragma once
// Shared by the transaction, stream, DLQ and queue-deletion route tests: a broker on
// an in-memory database stand-in, the three route groups behind a real
// Dispatcher (so error envelopes and status codes are the wire ones), and a
// ClusterHooks recorder for the after-commit announcements.
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/cluster_hooks.h"
#include "broker/maintenance_flags.h"
#include "db/db_error.h"
#include "http/api/routes.h"
#include "http/transport/dispatcher.h"
#include "http/transport/query.h"
#include "util/clock.h"
#include "../../fakes/procedures_fake.h"

namespace queen::test {

namespace cat = queen::db::catalogue;

// Serves the admin calls from canned answers; the hot-path calls are unused.
class AdminFakeDb : public queen::testing::ProceduresFake {
 public:
  // Failure injection for every admin call: empty = none.
  std::optional<db::DbError> failure;

  std::string transaction_result = R"({"transactionId":"t-1","success":true,"results":[]})";
  std::vector<std::string> transaction_calls;
  std::optional<std::string> last_producer_sub;
  std::string last_tenant;

  // The stream calls: canned answers, the documents they were given in call order.
  std::string register_result = R"({"success":true,"query_id":"q-1","name":"counts","fresh":true,"reset":false})";
  std::string state_result = R"({"success":true,"rows":[]})";
  std::string cycle_result = R"({"success":true,"push_results":[{"index":0,"status":"queued"}],"ack_result":null})";
  std::vector<std::string> stream_requests;

  using ProceduresFake::call;
  cat::Answer<cat::StreamRegisterQuery> call(cat::StreamRegisterQuery,
                                             const cat::Arguments<cat::StreamRegisterQuery>& args) override {
    const auto& [request_json, tenant] = args;
    return stream_answer(*request_json, tenant, register_result);
  }
  cat::Answer<cat::StreamStateGet> call(cat::StreamStateGet, const cat::Arguments<cat::StreamStateGet>& args) override {
    const auto& [request_json, tenant] = args;
    return stream_answer(*request_json, tenant, state_result);
  }
  cat::Answer<cat::StreamCycle> call(cat::StreamCycle, const cat::Arguments<cat::StreamCycle>& args) override {
    const auto& [cycle_json, producer_sub, tenant] = args;
    last_producer_sub = producer_sub;
    return stream_answer(*cycle_json, tenant, cycle_result);
  }

  db::DlqPage dlq_page;
  std::vector<db::DlqQuery> dlq_calls;

  bool queue_exists = true;
  std::vector<std::string> deleted_queues;

  cat::Answer<cat::RunTransaction> call(cat::RunTransaction, const cat::Arguments<cat::RunTransaction>& args) override {
    const auto& [ops_json, producer_sub, tenant] = args;
    transaction_calls.push_back(*ops_json);
    last_producer_sub = producer_sub;
    last_tenant = tenant.name();
    fail_if_asked();
    return transaction_result;
  }
  // What the hot-path calls were given (tenant pass-through tests).
  std::vector<db::PushOrigin> push_origins;
  std::string last_push_items;
  std::vector<std::string> call_tenants;  // configure, pop, ack, extend_lease, in call order

  // dlq_page, each entry a row carrying its total.
  cat::Answer<cat::ListDlq> call(cat::ListDlq, const cat::Arguments<cat::ListDlq>& args) override {
    const auto& [queue, group, partition, from_ms, to_ms, limit, offset, tenant, max_payload_bytes] = args;
    db::DlqQuery query(tenant);
    query.queue = queue;
    query.consumer_group = group;
    query.partition = partition;
    query.failed_from_ms = from_ms;
    query.failed_to_ms = to_ms;
    query.limit = limit.value_or(0);
    query.offset = offset.value_or(0);
    query.max_payload_bytes = max_payload_bytes.value_or(0);
    dlq_calls.push_back(query);
    fail_if_asked();
    std::vector<db::DlqRow> rows;
    for (const db::DlqEntry& entry : dlq_page.entries) rows.push_back({entry, dlq_page.total});
    return rows;
  }
  cat::Answer<cat::DeleteQueue> call(cat::DeleteQueue, const cat::Arguments<cat::DeleteQueue>& args) override {
    const auto& [queue, tenant] = args;
    deleted_queues.push_back(*queue);
    last_tenant = tenant.name();
    fail_if_asked();
    return queue_exists;
  }

  cat::Answer<cat::ConfigureQueue> call(cat::ConfigureQueue, const cat::Arguments<cat::ConfigureQueue>& args) override {
    call_tenants.push_back(std::get<4>(args).name());
    return std::nullopt;
  }
  cat::Answer<cat::PushWithDedup> call(cat::PushWithDedup, const cat::Arguments<cat::PushWithDedup>& args) override {
    const auto& [items_json, producer_sub, tenant, dedup] = args;
    push_origins.push_back({tenant, producer_sub});
    last_push_items = *items_json;
    return {};
  }
  cat::Answer<cat::PopMessages> call(cat::PopMessages, const cat::Arguments<cat::PopMessages>& args) override {
    call_tenants.push_back(std::get<10>(args).name());
    return {};
  }
  cat::Answer<cat::AckMessages> call(cat::AckMessages, const cat::Arguments<cat::AckMessages>& args) override {
    call_tenants.push_back(std::get<2>(args).name());
    return {};
  }
  cat::Answer<cat::ExtendLease> call(cat::ExtendLease, const cat::Arguments<cat::ExtendLease>& args) override {
    call_tenants.push_back(std::get<2>(args).name());
    return {db::LeaseExtension{}};
  }
  std::chrono::microseconds ping() override { return std::chrono::microseconds(1); }

 private:
  void fail_if_asked() {
    if (failure) throw *failure;
  }
  std::string stream_answer(const std::string& request_json, const Tenant& tenant, const std::string& result) {
    stream_requests.push_back(request_json);
    last_tenant = tenant.name();
    fail_if_asked();
    return result;
  }
};

class RecordingClusterHooks : public broker::ClusterHooks {
 public:
  std::vector<std::set<std::string>> pushes;
  int timers = 0;
  std::vector<std::string> configured;

  void push_committed(const std::set<std::string>& queues) override { pushes.push_back(queues); }
  void timers_scheduled() override { ++timers; }
  void maintenance_changed(broker::MaintenanceKind, bool) override {}
  void queue_configured(const std::string& queue) override { configured.push_back(queue); }
};

struct AdminRoutesFixture {
  config::Config config = config::Config::defaults();
  AdminFakeDb db;
  wake::PopWaiters waiters{util::real_clock()};
  metrics::Metrics metrics;
  RecordingClusterHooks cluster;
  broker::MaintenanceFlags flags{db, waiters, nullptr, std::chrono::milliseconds(config.system.flag_refresh_ms)};
  broker::Broker broker{config, db, waiters, metrics, flags, nullptr, &cluster};
  http::Dispatcher dispatcher{make_router(), metrics};

  http::Router make_router() {
    http::Router router;
    const http::RouteContext context{broker, metrics, config};
    http::register_transaction_routes(router, context);
    http::register_stream_routes(router, context);
    http::register_dlq_routes(router, context);
    http::register_resource_routes(router, context);
    http::register_push_routes(router, context);
    http::register_ack_routes(router, context);
    http::register_lease_routes(router, context);
    http::register_queue_routes(router, context);
    return router;
  }

  http::Response call(const std::string& method, const std::string& path, const std::string& body = "",
                      const std::string& query = "", const auth::Principal& principal = auth::Principal::anonymous()) {
    http::Request request;
    request.method = method;
    request.path = path;
    request.body = body;
    request.query = http::parse_query_string(query);
    request.principal = principal;
    return dispatcher.dispatch(request);
  }
};

}  // namespace queen::test
