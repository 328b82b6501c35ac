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

  std::string stream_register_query(const std::string& request_json, const Tenant& tenant) override {
    return stream_answer(request_json, tenant, register_result);
  }
  std::string stream_state_get(const std::string& request_json, const Tenant& tenant) override {
    return stream_answer(request_json, tenant, state_result);
  }
  std::string stream_cycle(const std::string& cycle_json, const db::PushOrigin& origin) override {
    last_producer_sub = origin.producer_sub;
    return stream_answer(cycle_json, origin.tenant, cycle_result);
  }

  db::DlqPage dlq_page;
  std::vector<db::DlqQuery> dlq_calls;

  bool queue_exists = true;
  std::vector<std::string> deleted_queues;

  std::string run_transaction(const std::string& ops_json, const db::PushOrigin& origin) override {
    transaction_calls.push_back(ops_json);
    last_producer_sub = origin.producer_sub;
    last_tenant = origin.tenant.name();
    fail_if_asked();
    return transaction_result;
  }
  // What the hot-path calls were given (tenant pass-through tests).
  std::vector<db::PushOrigin> push_origins;
  std::string last_push_items;
  std::vector<std::string> call_tenants;  // configure, pop, ack, extend_lease, in call order

  db::DlqPage list_dlq(const db::DlqQuery& query) override {
    dlq_calls.push_back(query);
    fail_if_asked();
    return dlq_page;
  }
  bool delete_queue(const std::string& queue, const Tenant& tenant) override {
    deleted_queues.push_back(queue);
    last_tenant = tenant.name();
    fail_if_asked();
    return queue_exists;
  }

  db::ConfiguredQueue configure_queue(const std::string&, const std::string&, const std::string&,
                                      const std::string&, const Tenant& tenant) override {
    call_tenants.push_back(tenant.name());
    return {};
  }
  std::vector<db::PushRow> push_messages(const std::string& items_json, const db::PushOrigin& origin) override {
    push_origins.push_back(origin);
    last_push_items = items_json;
    return {};
  }
  std::vector<db::PoppedMessage> pop_messages(const db::PopRequest& request) override {
    call_tenants.push_back(request.tenant.name());
    return {};
  }
  std::vector<db::AckRow> ack_messages(const std::string&, const std::optional<std::string>&,
                                       const Tenant& tenant) override {
    call_tenants.push_back(tenant.name());
    return {};
  }
  db::LeaseExtension extend_lease(const std::string&, int, const Tenant& tenant) override {
    call_tenants.push_back(tenant.name());
    return {};
  }
  bool set_system_flag(const std::string&, bool enabled) override { return enabled; }
  bool get_system_flag(const std::string&) override { return false; }
  std::chrono::microseconds ping() override { return std::chrono::microseconds(1); }
  db::PoolStats pool_stats() const override { return {}; }
  bool healthy() const override { return true; }

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
