#include "config/variables.h"

#include "config/config.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <string>

namespace queen::config {
namespace {

constexpr std::int64_t kMaxInt = 2147483647;
constexpr std::int64_t kYearMs = 365LL * 86400000;
// Byte bounds of combined and replayed calls: at most 128 MiB keeps a call far below what PostgreSQL takes in
// one message (1 GB) and in one jsonb value (256 MiB).
constexpr std::int64_t kMinCallBytes = 64LL << 10;
constexpr std::int64_t kMaxCallBytes = 128LL << 20;
constexpr std::int64_t kMaxQuota = 1LL << 50;

// What every kind of variable has.
Variable variable(std::string_view group, std::string_view name, VariableKind kind, std::string_view default_text,
                  std::string_view doc) {
  Variable v;
  v.group = group;
  v.name = name;
  v.kind = kind;
  v.default_text = default_text;
  v.doc = doc;
  return v;
}

Variable integer(std::string_view group, std::string_view name, std::string_view default_text, std::int64_t min,
                 std::int64_t max, std::string_view unit, std::string_view doc) {
  Variable v = variable(group, name, VariableKind::Integer, default_text, doc);
  v.min = min;
  v.max = max;
  v.unit = unit;
  return v;
}

Variable number(std::string_view group, std::string_view name, std::string_view default_text, std::int64_t min,
                std::int64_t max, std::string_view unit, std::string_view doc) {
  Variable v = integer(group, name, default_text, min, max, unit, doc);
  v.kind = VariableKind::Number;
  return v;
}

Variable boolean(std::string_view group, std::string_view name, std::string_view default_text, std::string_view doc) {
  return variable(group, name, VariableKind::Boolean, default_text, doc);
}

Variable text(std::string_view group, std::string_view name, std::string_view default_text, std::string_view values,
              std::string_view doc) {
  Variable v = variable(group, name, VariableKind::Text, default_text, doc);
  v.values = values;
  return v;
}

Variable secret(std::string_view group, std::string_view name, std::string_view values, std::string_view doc) {
  Variable v = text(group, name, "", values, doc);
  v.secret = true;
  return v;
}

Variable derived(Variable v) {
  v.derived = true;
  return v;
}

// One admission lane's three variables (docs/flow-control.md): its slots are a
// share of QUEEN_FLOW_SLOTS, its queue a share of HTTP_MAX_THREADS unless
// `queue_is_number`, its wait a number.
void add_flow_lane(std::vector<Variable>& t, std::string_view lane_slots, std::string_view lane_queue,
                   std::string_view lane_wait, std::string_view slots_default, std::string_view queue_default,
                   bool queue_is_number, std::string_view wait_default, std::string_view what) {
  constexpr std::string_view kFlow = "Flow control";
  t.push_back(derived(integer(kFlow, lane_slots, slots_default, 1, 10000, "", what)));
  const Variable queue = integer(kFlow, lane_queue, queue_default, 0, 1000000, "",
                                 "requests waiting for a slot of the lane (429 beyond)");
  t.push_back(queue_is_number ? queue : derived(queue));
  t.push_back(
      integer(kFlow, lane_wait, wait_default, 0, 3600000, "ms", "longest wait for a slot of the lane (429 after)"));
}

std::vector<Variable> build_table() {
  std::vector<Variable> t;
  constexpr std::string_view kProcess = "Process";
  t.push_back(derived(text(kProcess, "QUEEN_SERVER_ID", "the host name", "",
                           "this broker's name in logs, /health, the mesh and the statistics")));
  t.push_back(text(kProcess, "LOG_LEVEL", "info", "trace|debug|info|warn|error",
                   "log verbosity at boot (POST /api/v1/system/log-level changes it at run time, docs/operations-logs.md)"));
  t.push_back(text(kProcess, "LOG_FORMAT", "text", "text|json",
                   "one line per event: text, or one JSON object per line (docs/operations-logs.md)"));
  t.push_back(boolean(kProcess, "ACCESS_LOG", "false",
                      "one access-log line per answered request (method, route, status, duration, request id)"));
  t.push_back(integer(kProcess, "METRICS_MAX_QUEUES", "100", 0, 10000, "",
                      "queues with /metrics/prometheus series of their own (the deepest; the rest are summed under queue=\"_other\")"));
  t.push_back(integer(kProcess, "METRICS_REFRESH_INTERVAL_MS", "15000", 1000, 3600000, "ms",
                      "how often the queue depth and consumer lag of /metrics are re-read (one bounded query)"));

  constexpr std::string_view kHttp = "HTTP";
  t.push_back(text(kHttp, "HOST", "0.0.0.0", "", "address the HTTP listener binds"));
  t.push_back(integer(kHttp, "PORT", "6632", 1, 65535, "", "port of the HTTP listener (and of --healthcheck)"));
  t.push_back(integer(kHttp, "HTTP_MAX_THREADS", "64", 2, 16384, "",
                      "handler threads at most (a parked long poll holds none)"));
  t.push_back(integer(kHttp, "NUM_WORKERS", "10", 1, 16384, "",
                      "handler threads started at boot (at most HTTP_MAX_THREADS)"));
  t.push_back(integer(kHttp, "HTTP_MAX_QUEUED", "20000", 1, 1000000, "",
                      "requests waiting for a handler thread (503 beyond)"));
  t.push_back(integer(kHttp, "HTTP_KEEPALIVE_TIMEOUT_MS", "10000", 100, 3600000, "ms",
                      "how long an idle keep-alive connection is held"));
  t.push_back(integer(kHttp, "MAX_BODY_BYTES", "67108864", 1024, 4LL << 30, "bytes", "largest request body (413 beyond)"));
  t.push_back(integer(kHttp, "HTTP_DRAIN_TIMEOUT_MS", "30000", 0, 3600000, "ms",
                      "at shutdown, how long in-flight requests may take before connections are closed"));
  t.push_back(integer(kHttp, "SHUTDOWN_GRACE_MS", "0", 0, 3600000, "ms",
                      "on SIGTERM, readiness answers 503 and the broker keeps serving this long before it drains"));
  t.push_back(integer(kHttp, "HTTP_MAX_CONNECTIONS", "20000", 1, 1000000, "",
                      "open client connections (closed beyond)"));
  t.push_back(integer(kHttp, "HTTP_MAX_HEADER_BYTES", "16384", 1024, 1 << 20, "bytes",
                      "request line and headers (431 beyond)"));
  t.push_back(integer(kHttp, "HTTP_MAX_HEADERS", "100", 8, 10000, "", "header fields of a request (431 beyond)"));
  t.push_back(integer(kHttp, "HTTP_MAX_URL_BYTES", "8192", 256, 1 << 20, "bytes", "request target (414 beyond)"));
  t.push_back(integer(kHttp, "HTTP_MAX_QUERY_PARAMS", "64", 1, 10000, "", "query parameters (400 beyond)"));
  t.push_back(integer(kHttp, "HTTP_HEADER_TIMEOUT_MS", "10000", 100, 3600000, "ms",
                      "the whole request head must arrive within this (408)"));
  t.push_back(integer(kHttp, "HTTP_BODY_TIMEOUT_MS", "60000", 100, 3600000, "ms",
                      "the whole body must arrive within this (408)"));
  t.push_back(integer(kHttp, "HTTP_WRITE_TIMEOUT_MS", "30000", 100, 3600000, "ms",
                      "the whole response must be taken within this (connection closed)"));
  static const std::string in_flight_default = "max(" + std::to_string(kMinBodyBytesInFlight) + ", MAX_BODY_BYTES)";
  t.push_back(derived(integer(kHttp, "HTTP_MAX_BODY_BYTES_IN_FLIGHT", in_flight_default, 1024,
                              1LL << 40, "bytes",
                              "request-body bytes held by all requests together (503 beyond); >= MAX_BODY_BYTES")));
  t.push_back(text(kHttp, "HTTP_CORS_ORIGINS", "", "comma-separated scheme://host[:port], or *",
                   "origins a browser page may call from (empty: no Access-Control-* headers)"));

  constexpr std::string_view kDb = "Database";
  t.push_back(text(kDb, "PG_HOST", "localhost", "comma-separated hosts",
                   "PostgreSQL host, or a primary and its standbys tried in order (the one taking writes wins)"));
  t.push_back(text(kDb, "PG_PORT", "5432", "one port, or one per PG_HOST entry", "PostgreSQL port(s)"));
  t.push_back(text(kDb, "PG_DB", "postgres", "", "database holding the queen schema"));
  t.push_back(text(kDb, "PG_USER", "queen_broker", "",
                   "role the broker connects as: queen_broker, or a login granted it (docs/procedures.md, Roles)"));
  Variable password = secret(kDb, "PG_PASSWORD", "", "password of PG_USER (may be set to empty)");
  password.default_text = "queen_broker";
  t.push_back(password);
  t.push_back(boolean(kDb, "PG_USE_SSL", "false",
                      "TLS to PostgreSQL: true is sslmode=verify-full (require if PG_SSL_REJECT_UNAUTHORIZED=false), false disable"));
  t.push_back(boolean(kDb, "PG_SSL_REJECT_UNAUTHORIZED", "true",
                      "with PG_USE_SSL: verify the server's certificate and host name (libpq's root.crt or PGSSLROOTCERT)"));
  t.push_back(integer(kDb, "DB_POOL_SIZE", "25", 1, 10000, "",
                      "connections of this broker's pool (three brokers fit stock max_connections=100)"));
  t.push_back(integer(kDb, "DB_CONNECTION_TIMEOUT", "2000", 100, 600000, "ms",
                      "bound on connecting and on waiting for a pooled connection"));
  t.push_back(integer(kDb, "DB_STATEMENT_TIMEOUT", "30000", 0, kMaxInt, "ms",
                      "statement_timeout of every connection (0: none)"));
  t.push_back(integer(kDb, "DB_LOCK_TIMEOUT", "10000", 0, kMaxInt, "ms", "lock_timeout of every connection (0: none)"));
  t.push_back(integer(kDb, "DB_TCP_USER_TIMEOUT_MS", "30000", 0, kMaxInt, "ms",
                      "unacknowledged data on a connection for this long breaks it (0: the kernel's default)"));
  t.push_back(integer(kDb, "DB_KEEPALIVES_IDLE", "60", 1, 86400, "s", "TCP keepalive: idle time before the first probe"));
  t.push_back(integer(kDb, "DB_KEEPALIVES_INTERVAL", "10", 1, 86400, "s", "TCP keepalive: time between probes"));
  t.push_back(integer(kDb, "DB_KEEPALIVES_COUNT", "3", 1, 1000, "", "TCP keepalive: lost probes before the connection is dead"));
  t.push_back(integer(kDb, "SYSTEM_FLAG_REFRESH_MS", "2000", 100, 3600000, "ms",
                      "how often the maintenance flags are re-read from the database"));

  constexpr std::string_view kPop = "Pop";
  t.push_back(integer(kPop, "DEFAULT_TIMEOUT", "30000", 0, kMaxInt, "ms", "long-poll timeout of a pop that names none"));
  t.push_back(integer(kPop, "DEFAULT_BATCH_SIZE", "1", 1, 1000000, "", "batch of a pop that names none"));
  t.push_back(text(kPop, "DEFAULT_SUBSCRIPTION_MODE", "", "empty (all) or a subscription mode",
                   "subscription mode of a consumer group that names none"));
  t.push_back(integer(kPop, "POP_WAIT_INITIAL_INTERVAL_MS", "100", 1, 3600000, "ms",
                      "first re-check interval of a parked long poll"));
  t.push_back(integer(kPop, "POP_WAIT_BACKOFF_THRESHOLD", "3", 0, 1000000, "",
                      "empty re-checks before the interval grows"));
  t.push_back(number(kPop, "POP_WAIT_BACKOFF_MULTIPLIER", "2", 1, 1000, "", "growth factor of the re-check interval"));
  t.push_back(integer(kPop, "POP_WAIT_MAX_INTERVAL_MS", "1000", 1, 3600000, "ms",
                      "largest re-check interval (>= POP_WAIT_INITIAL_INTERVAL_MS)"));
  t.push_back(integer(kPop, "POP_WAIT_RECHECK_BUDGET_PER_S", "500", 0, 1000000, "1/s",
                      "floor re-checks of all parked polls together per second"));
  t.push_back(integer(kPop, "POP_MAX_BATCH_SIZE", "10000", 1, 1000000, "", "larger batch values are capped to this"));
  t.push_back(integer(kPop, "POP_MAX_PARTITIONS", "100", 1, 100000, "", "larger partitions values are capped to this"));
  t.push_back(integer(kPop, "POP_MAX_TIMEOUT_MS", "3600000", 0, kMaxInt, "ms", "larger timeout values are capped to this"));

  constexpr std::string_view kPush = "Push, ack and pop combining";
  t.push_back(integer(kPush, "PUSH_COMBINE_MAX_ITEMS", "1000", 1, 1000000, "", "items per combined push_messages call"));
  t.push_back(integer(kPush, "PUSH_COMBINE_MAX_BYTES", "16777216", kMinCallBytes, kMaxCallBytes, "bytes",
                      "item bytes per combined push call (a larger request goes alone)"));
  t.push_back(integer(kPush, "PUSH_MAX_CONCURRENT_CALLS", "2", 1, 10000, "", "push calls in flight per producer"));
  t.push_back(integer(kPush, "QUEEN_DEDUP_WINDOW_MS", "86400000", 0, kYearMs, "ms",
                      "how long after its push a transaction id makes a later push of it to its partition a duplicate"));
  t.push_back(integer(kPush, "QUEEN_DEDUP_CACHE_MB", "64", 0, 65536, "MiB",
                      "transaction ids this broker holds to spare pushes the dedup scan (0: every push scans)"));
  t.push_back(integer(kPush, "ACK_COMBINE_MAX_ITEMS", "100", 1, 1000000, "", "ack items per combined call"));
  t.push_back(integer(kPush, "ACK_COMBINE_MAX_BYTES", "16777216", kMinCallBytes, kMaxCallBytes, "bytes",
                      "request bytes per combined ack call (a larger one goes alone)"));
  t.push_back(integer(kPush, "ACK_MAX_CONCURRENT_CALLS", "4", 1, 10000, "", "ack calls in flight"));
  t.push_back(integer(kPush, "POP_COMBINE_MAX_MESSAGES", "100", 1, 1000, "",
                      "sum of the batch sizes of one combined pop call"));
  t.push_back(integer(kPush, "POP_MAX_CONCURRENT_CALLS", "4", 1, 10000, "", "pop calls in flight"));

  constexpr std::string_view kSpool = "Spool (file buffer)";
  t.push_back(text(kSpool, "FILE_BUFFER_DIR", "/var/lib/queen/buffers", "a writable directory",
                   "where pushes are spooled while PostgreSQL is unreachable"));
  t.push_back(integer(kSpool, "FILE_BUFFER_FLUSH_MS", "100", 1, 3600000, "ms", "replay cycle period"));
  t.push_back(integer(kSpool, "FILE_BUFFER_MAX_BATCH", "100", 1, 1000000, "", "events per replay transaction"));
  t.push_back(integer(kSpool, "FILE_BUFFER_MAX_BATCH_BYTES", "16777216", kMinCallBytes, kMaxCallBytes, "bytes",
                      "record bytes per replay call (a larger event goes alone)"));
  t.push_back(integer(kSpool, "FILE_BUFFER_POISON_ATTEMPTS", "5", 1, 1000, "",
                      "failures of a lone event before it is quarantined"));
  t.push_back(integer(kSpool, "FILE_BUFFER_EVENTS_PER_FILE", "10000", 1, 100000000, "", "events before a new spool file"));
  t.push_back(text(kSpool, "FILE_BUFFER_FSYNC", "off", "off|batch", "fsync the spool after each batch of appends"));
  t.push_back(integer(kSpool, "FILE_BUFFER_REPLAY_LANES", "4", 1, 64, "", "partitions replayed at once"));

  constexpr std::string_view kMesh = "Mesh and sweeper";
  t.push_back(integer(kMesh, "QUEEN_MESH_PORT", "0", 0, 65535, "", "mesh listener port (0: none; required with peers)"));
  t.push_back(text(kMesh, "QUEEN_MESH_PEERS", "", "comma-separated host:port", "the other brokers' mesh addresses"));
  t.push_back(text(kMesh, "QUEEN_MESH_HOST", "", "", "address the mesh listener binds (empty: HOST)"));
  t.push_back(secret(kMesh, "QUEEN_SYNC_SECRET", "", "shared key authenticating mesh frames (required with peers)"));
  t.push_back(integer(kMesh, "QUEEN_SYNC_HEARTBEAT_MS", "1000", 10, 3600000, "ms", "mesh heartbeat period"));
  t.push_back(integer(kMesh, "QUEEN_SYNC_DEAD_THRESHOLD_MS", "5000", 20, 86400000, "ms",
                      "a silent peer is reported dead after this (> QUEEN_SYNC_HEARTBEAT_MS)"));
  t.push_back(integer(kMesh, "QUEEN_SWEEPER_LEASE_MS", "30000", 1, kMaxInt, "ms",
                      "lease of a sweeper claim (it fires elsewhere once this expires)"));
  t.push_back(integer(kMesh, "QUEEN_SWEEPER_MAX_SLEEP_MS", "1000", 1, kMaxInt, "ms", "longest sweeper sleep"));

  constexpr std::string_view kJobs = "Background jobs";
  t.push_back(integer(kJobs, "RETENTION_INTERVAL", "300000", 100, kYearMs, "ms", "retention job period"));
  t.push_back(integer(kJobs, "RETENTION_BATCH_SIZE", "1000", 1, 1000000, "", "rows per retention step"));
  t.push_back(integer(kJobs, "EVICTION_INTERVAL", "60000", 100, kYearMs, "ms", "eviction job period"));
  t.push_back(integer(kJobs, "EVICTION_BATCH_SIZE", "1000", 1, 1000000, "", "rows per eviction step"));
  t.push_back(integer(kJobs, "STATS_RECONCILE_INTERVAL_MS", "60000", 100, kYearMs, "ms",
                      "statistics reconciliation period"));
  t.push_back(integer(kJobs, "TABLE_STATISTICS_INTERVAL_MS", "5000", 100, kYearMs, "ms",
                      "how often tables that outgrew their planner statistics are analyzed"));
  t.push_back(integer(kJobs, "STATS_HISTORY_RETENTION_HOURS", "168", 1, 24 * 3660, "h", "minute statistics rows kept"));
  t.push_back(integer(kJobs, "BROKER_STATS_FLUSH_INTERVAL_MS", "60000", 100, 3600000, "ms",
                      "how often this broker's per-minute figures are written"));

  constexpr std::string_view kLimits = "Request limits";
  t.push_back(integer(kLimits, "JSON_MAX_DEPTH", "64", 8, 1000, "", "arrays and objects nested in a body (400 beyond)"));
  t.push_back(integer(kLimits, "JSON_MAX_STRING_BYTES", "8388608", 4096, (1LL << 28) - 1, "bytes",
                      "any one string or key of a body"));
  t.push_back(integer(kLimits, "JSON_MAX_ARRAY_ITEMS", "50000", 16, 100000000, "", "elements of any one array"));
  t.push_back(integer(kLimits, "JSON_MAX_OBJECT_KEYS", "10000", 16, 100000000, "", "keys of any one object"));
  t.push_back(integer(kLimits, "JSON_MAX_VALUES", "1000000", 1000, kMaxInt, "", "values of a whole body"));
  t.push_back(integer(kLimits, "PUSH_MAX_ITEMS", "10000", 1, 10000000, "", "items of one push or transaction"));
  t.push_back(integer(kLimits, "NAME_MAX_CHARS", "255", 1, kNameMaxChars, "characters",
                      "longest queue, partition, consumer-group or KV key name"));
  t.push_back(integer(kLimits, "QUEEN_LIST_MAX_PAYLOAD_BYTES", "4194304", 0, 1LL << 30, "bytes",
                      "payload bytes one listing answer carries (later rows come without payload)"));
  t.push_back(integer(kLimits, "QUEEN_LIST_MAX_OFFSET", "10000", 0, 100000000, "", "largest offset of a paged listing"));
  t.push_back(integer(kLimits, "QUEEN_STREAM_MAX_VALUE_BYTES", "1048576", 0, 1LL << 30, "bytes",
                      "one stream state value, as JSON text (0: unlimited)"));
  t.push_back(integer(kLimits, "QUEEN_STREAM_MAX_STATE_OPS", "10000", 0, 10000000, "",
                      "state operations of one stream cycle (0: unlimited)"));
  t.push_back(integer(kLimits, "QUEEN_STREAM_MAX_PUSH_ITEMS", "10000", 0, 10000000, "",
                      "sink pushes of one stream cycle (0: unlimited)"));
  t.push_back(integer(kLimits, "QUEEN_STREAM_MAX_READ_KEYS", "10000", 0, 10000000, "",
                      "keys asked or rows answered by one stream state read (0: unlimited)"));

  constexpr std::string_view kTenants = "Tenant quotas";
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_PENDING", "0", 0, kMaxQuota, "messages",
                      "pending messages over a tenant's queues (0: unlimited)"));
  t.push_back(number(kTenants, "QUEEN_TENANT_PUSH_RATE", "0", 0, 1000000000, "1/s",
                     "messages per second per tenant and broker (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_PUSH_BURST", "0", 0, kMaxInt, "messages",
                      "token bucket size (0: one second of QUEEN_TENANT_PUSH_RATE)"));
  t.push_back(boolean(kTenants, "QUEEN_TENANT_QUOTA_OVERRIDES", "false", "read per-tenant overrides from queen.tenant_quotas"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_QUOTA_CACHE_MS", "1000", 10, 3600000, "ms",
                      "how long a tenant's overrides and pending count are reused"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_KV_KEYS", "100000", 0, kMaxQuota, "", "KV keys per tenant (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_KV_BYTES", "1073741824", 0, kMaxQuota, "bytes",
                      "KV key and value bytes per tenant (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_TRACES", "1000000", 0, kMaxQuota, "", "trace rows per tenant (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_TRACE_BYTES", "1073741824", 0, kMaxQuota, "bytes",
                      "trace data bytes per tenant (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_DEAD_LETTERS", "1000000", 0, kMaxQuota, "",
                      "DLQ entries per tenant, checked on DLQ moves (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_QUEUES", "10000", 0, kMaxQuota, "", "queues per tenant (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_PARTITIONS", "1000000", 0, kMaxQuota, "",
                      "partitions per tenant (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_CONSUMER_GROUPS", "10000", 0, kMaxQuota, "",
                      "registered (queue, group) pairs per tenant (0: unlimited)"));
  t.push_back(integer(kTenants, "QUEEN_TENANT_MAX_STREAM_STATE_BYTES", "1073741824", 0, kMaxQuota, "bytes",
                      "stream state key and value bytes per tenant (0: unlimited)"));

  constexpr std::string_view kFlow = "Flow control";
  t.push_back(derived(integer(kFlow, "QUEEN_FLOW_SLOTS", "C = min(DB_POOL_SIZE, HTTP_MAX_THREADS)", 1, 10000, "",
                              "database slots of all lanes together (<= DB_POOL_SIZE)")));
  add_flow_lane(t, "QUEEN_FLOW_PUSH_SLOTS", "QUEEN_FLOW_PUSH_QUEUE", "QUEEN_FLOW_PUSH_WAIT_MS", "3/4 of QUEEN_FLOW_SLOTS",
                "HTTP_MAX_THREADS", false, "10000", "slots of the Push lane (push calls, transactions)");
  add_flow_lane(t, "QUEEN_FLOW_POP_SLOTS", "QUEEN_FLOW_POP_QUEUE", "QUEEN_FLOW_POP_WAIT_MS", "3/4 of QUEEN_FLOW_SLOTS",
                "HTTP_MAX_THREADS", false, "2000", "slots of the Pop lane (pop calls)");
  add_flow_lane(t, "QUEEN_FLOW_ACK_SLOTS", "QUEEN_FLOW_ACK_QUEUE", "QUEEN_FLOW_ACK_WAIT_MS", "1/2 of QUEEN_FLOW_SLOTS",
                "HTTP_MAX_THREADS", false, "10000", "slots of the Ack lane (ack calls, lease extensions)");
  add_flow_lane(t, "QUEEN_FLOW_MAINT_SLOTS", "QUEEN_FLOW_MAINT_QUEUE", "QUEEN_FLOW_MAINT_WAIT_MS",
                "1/16 of QUEEN_FLOW_SLOTS", "4", true, "1000", "slots of the Maint lane (spool replay, one per file)");
  add_flow_lane(t, "QUEEN_FLOW_READ_SLOTS", "QUEEN_FLOW_READ_QUEUE", "QUEEN_FLOW_READ_WAIT_MS", "1/8 of QUEEN_FLOW_SLOTS",
                "HTTP_MAX_THREADS / 4", false, "2000",
                "slots of the Read lane (slots + queue <= HTTP_MAX_THREADS / 2)");
  t.push_back(integer(kFlow, "QUEEN_READ_STATEMENT_TIMEOUT_MS", "5000", 0, 3600000, "ms",
                      "statement timeout of every read call (0: DB_STATEMENT_TIMEOUT)"));

  constexpr std::string_view kJwt = "Authentication (JWT)";
  t.push_back(boolean(kJwt, "JWT_ENABLED", "false", "require a bearer token on every route but JWT_SKIP_PATHS"));
  t.push_back(text(kJwt, "JWT_ALGORITHM", "HS256", "HS256|RS256|EdDSA|auto", "accepted token signature algorithm"));
  t.push_back(secret(kJwt, "JWT_SECRET", "", "HS256 key"));
  t.push_back(secret(kJwt, "JWT_PUBLIC_KEY", "PEM, RSA or Ed25519", "public key for RS256/EdDSA"));
  t.push_back(secret(kJwt, "JWT_JWKS_URL", "an http(s) URL", "JWKS document for RS256/EdDSA (may carry credentials)"));
  t.push_back(text(kJwt, "JWT_ISSUER", "", "", "expected iss (empty: not checked)"));
  t.push_back(text(kJwt, "JWT_AUDIENCE", "", "", "expected in aud (empty: not checked)"));
  t.push_back(integer(kJwt, "JWT_CLOCK_SKEW", "30", 0, 86400, "s", "tolerance on exp and nbf"));
  t.push_back(text(kJwt, "JWT_SKIP_PATHS", "/health,/metrics/prometheus,/metrics,/", "comma-separated paths",
                   "routes open without a token"));
  t.push_back(integer(kJwt, "JWT_JWKS_REFRESH_INTERVAL", "3600", 1, 86400 * 7, "s", "JWKS re-fetch period"));
  t.push_back(integer(kJwt, "JWT_JWKS_TIMEOUT_MS", "5000", 100, 600000, "ms", "JWKS fetch timeout"));
  t.push_back(text(kJwt, "JWT_ROLES_CLAIM", "role", "", "claim holding one role (a string)"));
  t.push_back(text(kJwt, "JWT_ROLES_ARRAY_CLAIM", "roles", "", "claim holding roles (an array)"));
  t.push_back(text(kJwt, "JWT_ROLE_ADMIN", "admin", "", "role name granting everything"));
  t.push_back(text(kJwt, "JWT_ROLE_READ_WRITE", "read-write", "", "role name granting reads and writes"));
  t.push_back(text(kJwt, "JWT_ROLE_READ_ONLY", "read-only", "", "role name granting reads"));
  t.push_back(text(kJwt, "JWT_TENANT_CLAIM", "tenant", "", "claim naming the caller's tenant"));

  constexpr std::string_view kEncryption = "Payload encryption";
  t.push_back(secret(kEncryption, "QUEEN_ENCRYPTION_KEY", "64 hex characters",
                     "key of queues with encryptionEnabled (empty: none can be encrypted)"));
  t.push_back(secret(kEncryption, "QUEEN_ENCRYPTION_KEY_PREVIOUS", "64 hex characters",
                     "decrypts only: the key before a rotation"));
  t.push_back(integer(kEncryption, "QUEEN_ENCRYPTION_REFRESH_MS", "10000", 100, 3600000, "ms",
                      "how often the list of encrypted queues is re-read"));
  return t;
}

// Pipes inside a Markdown table cell.
std::string cell(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

// Optimal string alignment distance, case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = upper(a[i - 1]) == upper(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && upper(a[i - 1]) == upper(b[j - 2]) && upper(a[i - 2]) == upper(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> build_prefixes() {
  std::map<std::string_view, std::vector<std::string_view>> by_first_word;
  for (const Variable& v : variables()) {
    const auto underscore = v.name.find('_');
    if (underscore != std::string_view::npos) by_first_word[v.name.substr(0, underscore + 1)].push_back(v.name);
  }
  std::vector<std::string> prefixes;
  for (const auto& [first_word, names] : by_first_word) {
    if (names.size() < 2) continue;
    std::string_view common = names.front();
    for (const std::string_view name : names) {
      std::size_t n = 0;
      while (n < common.size() && n < name.size() && common[n] == name[n]) ++n;
      common = common.substr(0, n);
    }
    prefixes.emplace_back(common.substr(0, common.rfind('_') + 1));
  }
  return prefixes;
}

std::string shown_default(const Variable& v) {
  if (v.secret && v.default_text.empty()) return "(unset)";
  if (v.default_text.empty()) return "(empty)";
  return std::string(v.default_text);
}

}  // namespace

const std::vector<Variable>& variables() {
  static const std::vector<Variable> table = build_table();
  return table;
}

const Variable* find_variable(std::string_view name) {
  const std::vector<Variable>& table = variables();
  const auto it = std::find_if(table.begin(), table.end(), [name](const Variable& v) { return v.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::string range_text(const Variable& v) {
  switch (v.kind) {
    case VariableKind::Integer:
    case VariableKind::Number: return "[" + std::to_string(v.min) + ", " + std::to_string(v.max) + "]";
    case VariableKind::Boolean: return "true|false|1|0";
    case VariableKind::Text: return v.values.empty() ? "any" : std::string(v.values);
  }
  return "any";
}

const std::vector<std::string>& variable_prefixes() {
  static const std::vector<std::string> prefixes = build_prefixes();
  return prefixes;
}

ClosestVariable closest_variable(std::string_view name, std::string_view head) {
  ClosestVariable closest;
  for (const Variable& v : variables()) {
    if (v.name.substr(0, head.size()) != head) continue;
    const std::size_t distance = edit_distance(name, v.name);
    if (closest.variable == nullptr || distance < closest.distance) closest = {&v, distance};
  }
  return closest;
}

const std::vector<std::string_view>& reference_only_patterns() {
  // The reference server's UDP sync and cache tuning (the mesh replaces them) and its engine tuning.
  static const std::vector<std::string_view> patterns = {
      "QUEEN_UDP_PEERS", "QUEEN_UDP_NOTIFY_PORT", "QUEEN_SYNC_ENABLED", "QUEEN_SYNC_RECV_BUFFER_MB",
      "QUEEN_CACHE_PARTITION_MAX", "QUEEN_CACHE_PARTITION_TTL_MS", "QUEEN_CACHE_REFRESH_INTERVAL_MS",
      "RESPONSE_TIMER_INTERVAL_MS", "RESPONSE_BATCH_SIZE", "RESPONSE_BATCH_MAX", "QUEEN_CONCURRENCY_MODE",
      "DB_THREAD_POOL_SERVICE_THREADS", "QUEUE_BACKOFF_CLEANUP_THRESHOLD", "LIBQUEEN_INFLIGHT_DEADLINE_MS",
      "SIDECAR_*", "QUEEN_VEGAS_*", "PARTITION_LOOKUP_RECONCILE_*", "QUEEN_*_PREFERRED_BATCH_SIZE",
      "QUEEN_*_MAX_HOLD_MS", "QUEEN_*_MAX_BATCH_SIZE", "QUEEN_*_MAX_CONCURRENT"};
  return patterns;
}

bool is_reference_only_variable(const std::string& name) {
  for (const std::string_view pattern : reference_only_patterns()) {
    const auto star = pattern.find('*');
    if (star == std::string_view::npos) {
      if (name == pattern) return true;
      continue;
    }
    const std::string_view head = pattern.substr(0, star);
    const std::string_view tail = pattern.substr(star + 1);
    // The star stands for at least one character.
    if (name.size() > head.size() + tail.size() && name.compare(0, head.size(), head) == 0 &&
        name.compare(name.size() - tail.size(), tail.size(), tail) == 0) {
      return true;
    }
  }
  return false;
}

std::string render_help() {
  std::ostringstream s;
  s << "usage: queen-broker [--help | --version | --check-config | --healthcheck | --catalogue]\n"
       "\n"
       "Without a flag the broker starts; it is configured by the environment variables below.\n"
       "  --help          this text\n"
       "  --version       the version, then exit\n"
       "  --check-config  read the environment, print the effective configuration (secrets masked),\n"
       "                  exit 0 if it is valid and 2 if not; starts nothing\n"
       "  --healthcheck   GET /health/ready of the broker on 127.0.0.1:$PORT; exit 0 if it answers 200, else 1\n"
       "  --catalogue     print the procedure catalogue (every SQL procedure the broker calls) as JSON\n";
  std::string_view group;
  for (const Variable& v : variables()) {
    if (v.group != group) {
      group = v.group;
      s << "\n" << group << ":\n";
    }
    s << "  " << v.name << "  default " << shown_default(v) << "  range " << range_text(v);
    if (!v.unit.empty()) s << "  unit " << v.unit;
    s << "\n      " << v.doc << "\n";
  }
  s << "\nAccepted and ignored (settings of the reference server): ";
  const auto& patterns = reference_only_patterns();
  for (std::size_t i = 0; i < patterns.size(); ++i) s << (i ? ", " : "") << patterns[i];
  s << "\n";
  return s.str();
}

std::string render_reference_markdown() {
  std::ostringstream s;
  std::string_view group;
  for (const Variable& v : variables()) {
    if (v.group != group) {
      group = v.group;
      s << "\n### " << group << "\n\n"
        << "| Variable | Default | Range | Unit | What it does |\n"
        << "|---|---|---|---|---|\n";
    }
    s << "| `" << v.name << "` | " << cell(shown_default(v)) << " | " << cell(range_text(v)) << " | "
      << (v.unit.empty() ? "" : std::string(v.unit)) << " | " << cell(v.doc) << (v.secret ? " (masked)" : "")
      << " |\n";
  }
  s << "\n### Accepted and ignored\n\n"
    << "Settings of the reference Queen server that mean nothing here (its UDP sync and cache, which the mesh\n"
    << "replaces, and its engine tuning). A deployment may set them; the broker accepts them without a warning\n"
    << "and lists them at `LOG_LEVEL=debug` (`*` is any text):\n\n";
  for (const std::string_view pattern : reference_only_patterns()) s << "- `" << pattern << "`\n";
  return s.str();
}

}  // namespace queen::config
