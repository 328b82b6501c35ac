#pragma once
// Queen's HTTP API, one feature per pair of files: <feature>_routes.cpp registers the feature's handlers on the
// router; <feature>_request.{h,cpp}, where the feature reads a body or query or renders an answer, holds that
// parsing and rendering as pure functions (every 400 of the feature is thrown there). A handler parses, calls one
// broker use case, and renders. The transport (../transport) serves whatever router this builds.
#include <atomic>

#include "broker/broker.h"
#include "config/config.h"
#include "http/transport/router.h"
#include "metrics/metrics.h"

namespace queen::broker {
class Cluster;
class ConsumerGroups;
class QueueDepthRefresher;
class Statistics;
}

namespace queen::http {

struct RouteContext {
  broker::Broker& broker;
  metrics::Metrics& metrics;
  const config::Config& config;
  // Mesh, sweeper, jobs and KV (null: a broker without them, e.g. in tests;
  // /health then shows the mesh disabled and the KV routes answer 503).
  broker::Cluster* cluster = nullptr;
  // Consumer-group administration (null: those routes answer 503).
  broker::ConsumerGroups* consumer_groups = nullptr;
  // The status, resources and analytics views (null: those routes answer 503).
  broker::Statistics* statistics = nullptr;
  // The queue depths and consumer lags of /metrics (null: none rendered).
  const broker::QueueDepthRefresher* queue_depths = nullptr;
  // Set on SIGTERM: readiness answers 503 from then on, while every other route is still served for
  // SHUTDOWN_GRACE_MS (null: never).
  const std::atomic<bool>* stopping = nullptr;
};

void register_health_routes(Router& router, const RouteContext& context);       // /health, /health/ready
void register_metrics_routes(Router& router, const RouteContext& context);      // /metrics, /metrics/{json,prometheus}
// GET /metrics answers with the text exposition when the Accept header names text/plain or
// application/openmetrics-text (what Prometheus-compatible scrapers send), with JSON otherwise.
bool wants_exposition_text(const std::string& accept);
void register_queue_routes(Router& router, const RouteContext& context);        // /api/v1/configure
void register_push_routes(Router& router, const RouteContext& context);         // /api/v1/push
void register_pop_routes(Router& router, const RouteContext& context);          // the three pop forms
void register_ack_routes(Router& router, const RouteContext& context);          // /api/v1/ack, /ack/batch
void register_lease_routes(Router& router, const RouteContext& context);        // /api/v1/lease/:id/extend
void register_maintenance_routes(Router& router, const RouteContext& context);  // /api/v1/system/maintenance*
void register_logging_routes(Router& router, const RouteContext& context);      // /api/v1/system/log-level
void register_buffer_routes(Router& router, const RouteContext& context);       // /api/v1/status/buffers
void register_kv_routes(Router& router, const RouteContext& context);           // /api/v1/kv/:key
void register_cluster_routes(Router& router, const RouteContext& context);      // /api/v1/system/shared-state
void register_transaction_routes(Router& router, const RouteContext& context);  // /api/v1/transaction
void register_dlq_routes(Router& router, const RouteContext& context);          // /api/v1/dlq
void register_stream_routes(Router& router, const RouteContext& context);       // /streams/v1/*
void register_resource_routes(Router& router, const RouteContext& context);     // /api/v1/resources/*
void register_consumer_group_routes(Router& router, const RouteContext& context);  // /api/v1/consumer-groups/*
// Statistics: POST /api/v1/stats/refresh, and every view of the procedure catalogue
// (db::views(): /api/v1/status*, /resources/*, /analytics/*).
void register_status_routes(Router& router, const RouteContext& context);
void register_view_routes(Router& router, const RouteContext& context);
void register_openapi_routes(Router& router, const RouteContext& context);      // /openapi.json
// Message administration (docs/api-extensions.md): traces, messages, partitions.
void register_trace_routes(Router& router, const RouteContext& context);      // /api/v1/traces*
void register_message_routes(Router& router, const RouteContext& context);    // /api/v1/messages*, queue clear
void register_partition_routes(Router& router, const RouteContext& context);  // /api/v1/resources/partitions
void register_dashboard_routes(Router& router, const RouteContext& context);    // /, /dashboard/*

// Every group above.
Router build_router(const RouteContext& context);

}  // namespace queen::http
