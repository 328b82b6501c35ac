#pragma once
// The settings the broker reads from the environment (docs/configuration.md
// and the settings tables of docs/*.md). Their defaults and
// ranges are declared once, in the variable table (config/variables.cpp):
// no field here has a default of its own, a Config is made by load_config,
// and Config::defaults() is the one made from an empty environment. The
// option structs of the other modules (jobs, sweeper, mesh, spool, JWT rules,
// long polls) take their defaults from Config::defaults(), never a literal.
// The config module is the only place that reads the process environment;
// everything else receives a Config.
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config/variables.h"

namespace queen::config {

using EnvMap = std::map<std::string, std::string>;

struct ProcessConfig {
  std::string server_id;          // QUEEN_SERVER_ID, default: hostname
  std::string log_level;          // LOG_LEVEL: trace|debug|info|warn|error (at boot; a route changes it)
  std::string log_format;          // LOG_FORMAT: text|json, one line per event either way
  bool access_log{};               // ACCESS_LOG: one line per answered request (logger "access")
};

// The /metrics exposition (docs/operations-metrics.md).
struct MetricsConfig {
  int max_queues{};                              // METRICS_MAX_QUEUES: queues with series of their own
  std::int64_t refresh_interval_ms{};            // METRICS_REFRESH_INTERVAL_MS: queue depth and lag refresh
};

// The floor of HTTP_MAX_BODY_BYTES_IN_FLIGHT's default, max(this, MAX_BODY_BYTES).
inline constexpr std::int64_t kMinBodyBytesInFlight = 256LL << 20;

struct HttpConfig {
  std::string host;                          // HOST
  int port{};                                // PORT
  int min_threads{};                         // NUM_WORKERS: handler threads started at boot
  int max_threads{};                         // HTTP_MAX_THREADS: handler threads at most (parked polls hold none)
  int max_queued{};                          // HTTP_MAX_QUEUED: requests waiting for a handler thread (503 beyond)
  int keep_alive_timeout_ms{};               // HTTP_KEEPALIVE_TIMEOUT_MS: idle keep-alive connection hold
  std::int64_t max_body_bytes{};             // MAX_BODY_BYTES: 413 beyond
  int drain_timeout_ms{};                    // HTTP_DRAIN_TIMEOUT_MS: shutdown wait for in-flight requests
  // SHUTDOWN_GRACE_MS: after SIGTERM, readiness answers 503 while everything else is still served for this
  // long (a load balancer takes the endpoint out), then the drain starts.
  int shutdown_grace_ms{};
  int max_connections{};                     // HTTP_MAX_CONNECTIONS: open client connections (closed beyond)
  int max_header_bytes{};                    // HTTP_MAX_HEADER_BYTES: request line + headers (431 beyond)
  int max_header_count{};                    // HTTP_MAX_HEADERS: header fields (431 beyond)
  int max_url_bytes{};                       // HTTP_MAX_URL_BYTES: request target (414 beyond)
  int max_query_params{};                    // HTTP_MAX_QUERY_PARAMS: query parameters (400 beyond)
  int header_timeout_ms{};                   // HTTP_HEADER_TIMEOUT_MS: whole request head must arrive (408)
  int body_timeout_ms{};                     // HTTP_BODY_TIMEOUT_MS: whole body must arrive (408)
  int write_timeout_ms{};                    // HTTP_WRITE_TIMEOUT_MS: whole response must be taken (closed)
  // HTTP_MAX_BODY_BYTES_IN_FLIGHT: request-body bytes held by all requests together (503 beyond);
  // default max(256 MiB, MAX_BODY_BYTES), never below MAX_BODY_BYTES.
  std::int64_t max_body_bytes_in_flight{};
  // HTTP_CORS_ORIGINS: origins a browser page may call from (exact "scheme://host[:port]"), or the single
  // entry "*" for any; empty (the default) = no Access-Control-* header on any answer.
  std::vector<std::string> cors_origins;
};

struct DbConfig {
  std::vector<std::string> hosts;               // PG_HOST: a host, or a comma-separated list tried in order
  std::vector<int> ports;                       // PG_PORT: one port for every host, or one per host
  std::string name;                // PG_DB
  std::string user;                       // PG_USER (docs/procedures.md, Roles)
  std::string password;                   // PG_PASSWORD (masked in logs)
  bool use_ssl{};                     // PG_USE_SSL
  bool ssl_reject_unauthorized{};       // PG_SSL_REJECT_UNAUTHORIZED
  int pool_size{};                      // DB_POOL_SIZE (docs/configuration.md, "DB_POOL_SIZE")
  int connection_timeout_ms{};          // DB_CONNECTION_TIMEOUT: connect and pool-acquire bound
  int statement_timeout_ms{};           // DB_STATEMENT_TIMEOUT
  int lock_timeout_ms{};                // DB_LOCK_TIMEOUT
  int tcp_user_timeout_ms{};            // DB_TCP_USER_TIMEOUT_MS
  int keepalives_idle_s{};              // DB_KEEPALIVES_IDLE
  int keepalives_interval_s{};          // DB_KEEPALIVES_INTERVAL
  int keepalives_count{};               // DB_KEEPALIVES_COUNT
  // Settings every connection carries (`-c name=value`), e.g. the storage
  // quotas the database enforces (database_session_settings).
  std::vector<std::pair<std::string, std::string>> session_settings;
};

struct PopConfig {
  int default_timeout_ms{};                   // DEFAULT_TIMEOUT
  int default_batch_size{};                   // DEFAULT_BATCH_SIZE
  std::string default_subscription_mode;      // DEFAULT_SUBSCRIPTION_MODE ("" = all)
  int wait_initial_interval_ms{};             // POP_WAIT_INITIAL_INTERVAL_MS
  int wait_backoff_threshold{};               // POP_WAIT_BACKOFF_THRESHOLD
  double wait_backoff_multiplier{};           // POP_WAIT_BACKOFF_MULTIPLIER
  int wait_max_interval_ms{};                 // POP_WAIT_MAX_INTERVAL_MS
  int wait_recheck_budget_per_s{};            // POP_WAIT_RECHECK_BUDGET_PER_S: floor re-checks of all parked polls
  int max_batch_size{};                       // POP_MAX_BATCH_SIZE: larger `batch` values are capped
  int max_partitions{};                       // POP_MAX_PARTITIONS: larger `partitions` values are capped
  int max_timeout_ms{};                       // POP_MAX_TIMEOUT_MS: larger `timeout` values are capped
};

struct PushConfig {
  int combine_max_items{};            // PUSH_COMBINE_MAX_ITEMS: items per combined push_messages call
  std::int64_t combine_max_bytes{};             // PUSH_COMBINE_MAX_BYTES: item bytes per combined call (a larger request alone)
  // PUSH_MAX_CONCURRENT_CALLS: push_messages calls in flight per producer. Two, not more: fewer calls
  // carry more requests each (docs/combining.md, "How many calls at once").
  int max_concurrent_calls{};
  std::int64_t dedup_window_ms{};           // QUEEN_DEDUP_WINDOW_MS
  std::int64_t dedup_cache_mb{};            // QUEEN_DEDUP_CACHE_MB
};

// Ack and pop combining (docs/combining.md): concurrent requests share one call.
struct CombineConfig {
  int ack_max_items{};                // ACK_COMBINE_MAX_ITEMS: ack items per combined call
  std::int64_t ack_max_bytes{};             // ACK_COMBINE_MAX_BYTES: request bytes per combined call (a larger one alone)
  int ack_max_concurrent_calls{};     // ACK_MAX_CONCURRENT_CALLS: ack calls in flight
  int pop_max_messages{};             // POP_COMBINE_MAX_MESSAGES: sum of the batch sizes of one queen.pop_many call
  int pop_max_concurrent_calls{};     // POP_MAX_CONCURRENT_CALLS: pop calls in flight
};

// FILE_BUFFER_FSYNC: how durable a spool append is before the push is answered.
enum class FsyncMode {
  Off,    // leave flushing to the OS: a machine crash may lose the last appends
  Batch,  // fdatasync before append() returns: an acknowledged "buffered" survives a crash
};

struct SpoolConfig {
  std::string dir;                             // FILE_BUFFER_DIR
  int flush_ms{};                              // FILE_BUFFER_FLUSH_MS
  int max_batch{};                             // FILE_BUFFER_MAX_BATCH
  std::int64_t max_batch_bytes{};              // FILE_BUFFER_MAX_BATCH_BYTES: record bytes per replay call (a larger event alone)
  int poison_attempts{};                       // FILE_BUFFER_POISON_ATTEMPTS: suspect failures of a lone event before quarantine
  int events_per_file{};                       // FILE_BUFFER_EVENTS_PER_FILE
  FsyncMode fsync{};                           // FILE_BUFFER_FSYNC: off|batch
  int replay_lanes{};                          // FILE_BUFFER_REPLAY_LANES: partitions replayed at once
};

struct MeshConfig {
  int port{};                       // QUEEN_MESH_PORT (0 = no listener; required with peers)
  std::vector<std::string> peers;   // QUEEN_MESH_PEERS: comma-separated host:port
  std::string sync_secret;          // QUEEN_SYNC_SECRET (masked in logs; required with peers)
  int heartbeat_ms{};               // QUEEN_SYNC_HEARTBEAT_MS: mesh heartbeat period
  int dead_threshold_ms{};          // QUEEN_SYNC_DEAD_THRESHOLD_MS: a silent peer is reported dead after
  std::string host;                 // QUEEN_MESH_HOST: the listener's address ("" = HOST)
};

// Single-runner jobs (docs/operations-ha.md, "Single-runner jobs"), each elected per cycle by advisory lock.
struct JobsConfig {
  std::int64_t retention_interval_ms{};               // RETENTION_INTERVAL
  int retention_batch_size{};                         // RETENTION_BATCH_SIZE
  std::int64_t eviction_interval_ms{};                // EVICTION_INTERVAL
  int eviction_batch_size{};                          // EVICTION_BATCH_SIZE
  std::int64_t stats_reconcile_interval_ms{};         // STATS_RECONCILE_INTERVAL_MS
  std::int64_t table_statistics_interval_ms{};        // TABLE_STATISTICS_INTERVAL_MS
  // Statistics history (docs/operations-stats.md).
  int stats_history_retention_hours{};                  // STATS_HISTORY_RETENTION_HOURS: minute rows kept
  std::int64_t broker_stats_flush_interval_ms{};        // BROKER_STATS_FLUSH_INTERVAL_MS: per-broker figures
};

struct SweeperConfig {
  int lease_ms{};            // QUEEN_SWEEPER_LEASE_MS
  int max_sleep_ms{};        // QUEEN_SWEEPER_MAX_SLEEP_MS
};

struct SystemConfig {
  // SYSTEM_FLAG_REFRESH_MS: how often the maintenance flags are re-read from
  // the database, the floor under mesh flag broadcasts.
  int flag_refresh_ms{};
};

// Bounds on what one request may carry (docs/limits.md, "Request limits").
// Checked while a JSON body is parsed, before any deep tree exists; past any
// of them the answer is 400 {"error"} naming the limit and its variable.
// The longest queue, partition, consumer-group or KV key name, in characters:
// the database's queen.name_text domain (queen_internal.name_max_chars()) holds the same
// number, so NAME_MAX_CHARS can only lower it.
inline constexpr int kNameMaxChars = 255;

struct LimitsConfig {
  int json_max_depth{};                          // JSON_MAX_DEPTH: arrays/objects nested in a body (envelope included)
  std::int64_t json_max_string_bytes{};            // JSON_MAX_STRING_BYTES: any one string or key, in bytes
  int json_max_array_items{};                    // JSON_MAX_ARRAY_ITEMS: elements of any one array
  int json_max_object_keys{};                    // JSON_MAX_OBJECT_KEYS: keys of any one object
  int json_max_values{};                         // JSON_MAX_VALUES: values of a whole body (memory bound)
  int push_max_items{};                          // PUSH_MAX_ITEMS: items of one push (or one transaction)
  int name_max_chars{};                          // NAME_MAX_CHARS: queue, partition, group, key ...
  // QUEEN_LIST_MAX_PAYLOAD_BYTES: payload bytes one listing answer carries (DLQ, traces by name); past it
  // rows come with the payload null and "payloadOmitted": true (docs/limits.md, "Listings")
  std::int64_t list_max_payload_bytes{};
  // QUEEN_LIST_MAX_OFFSET: the largest `offset` of a paged listing (400 past it): an offset's rows are read and
  // skipped, so deep pages go by from/to instead (docs/limits.md, "Listings")
  int list_max_offset{};
  // Stream cycles and state reads (docs/streams.md, "Limits"): enforced by the stream procedures, which read
  // them as the session settings queen.stream_max_* (database_session_settings); past one the answer is 400 naming it.
  std::int64_t stream_max_value_bytes{};            // QUEEN_STREAM_MAX_VALUE_BYTES: one state value, as JSON text
  int stream_max_state_ops{};                       // QUEEN_STREAM_MAX_STATE_OPS: state operations of one cycle
  int stream_max_push_items{};                      // QUEEN_STREAM_MAX_PUSH_ITEMS: sink pushes of one cycle
  int stream_max_read_keys{};                       // QUEEN_STREAM_MAX_READ_KEYS: keys asked or rows read by one state read
};

// The admission arbiter (docs/flow-control.md): database slots per lane.
// Defaults derive from C = min(DB_POOL_SIZE, HTTP_MAX_THREADS), the most
// database calls this broker can have in flight anyway.
struct FlowLaneConfig {
  int slots{};       // QUEEN_FLOW_<LANE>_SLOTS: slots the lane may hold at once
  int queue{};       // QUEEN_FLOW_<LANE>_QUEUE: requests waiting for a slot (429 beyond)
  int wait_ms{};     // QUEEN_FLOW_<LANE>_WAIT_MS: longest wait for a slot (429 after)
};
struct FlowConfig {
  int slots{};           // QUEEN_FLOW_SLOTS: slots of all lanes together (default C)
  FlowLaneConfig push;   // QUEEN_FLOW_PUSH_*: push calls, transactions
  FlowLaneConfig pop;    // QUEEN_FLOW_POP_*: pop calls
  FlowLaneConfig ack;    // QUEEN_FLOW_ACK_*: ack calls, lease extensions
  FlowLaneConfig maint;  // QUEEN_FLOW_MAINT_*: spool replay, one slot per file
  // Database-backed reads; slots + queue at most HTTP_MAX_THREADS / 2, so
  // reads never hold more than half the handler threads.
  FlowLaneConfig read;   // QUEEN_FLOW_READ_*
  // QUEEN_READ_STATEMENT_TIMEOUT_MS: the statement timeout of every read call
  // (instead of DB_STATEMENT_TIMEOUT); 0: reads run under DB_STATEMENT_TIMEOUT.
  int read_statement_timeout_ms{};
};

// Per-tenant push quotas (docs/tenants.md). 0 = unlimited; a DBA's rows in
// queen.tenant_quotas override these per tenant when `overrides` is on.
// Storage quotas per tenant (docs/tenants.md, "Storage quotas"): on by
// default, 0 = unlimited. The database enforces all but dead_letters (the
// queen.tenant_usage triggers, reading the session settings every broker
// connection carries); the broker checks dead_letters on DLQ moves.
struct TenantStorageQuotas {
  std::int64_t kv_keys{};                 // QUEEN_TENANT_MAX_KV_KEYS: KV keys
  std::int64_t kv_bytes{};                // QUEEN_TENANT_MAX_KV_BYTES: KV key + value bytes
  std::int64_t traces{};                  // QUEEN_TENANT_MAX_TRACES: trace rows
  std::int64_t trace_bytes{};             // QUEEN_TENANT_MAX_TRACE_BYTES: trace data bytes
  std::int64_t dead_letters{};            // QUEEN_TENANT_MAX_DEAD_LETTERS: DLQ entries (checked on DLQ moves)
  std::int64_t queues{};                  // QUEEN_TENANT_MAX_QUEUES
  std::int64_t partitions{};              // QUEEN_TENANT_MAX_PARTITIONS
  std::int64_t consumer_groups{};         // QUEEN_TENANT_MAX_CONSUMER_GROUPS: registered (queue, group) pairs
  std::int64_t stream_state_bytes{};            // QUEEN_TENANT_MAX_STREAM_STATE_BYTES: stream state key + value bytes
};

struct TenantQuotaConfig {
  std::int64_t max_pending{};    // QUEEN_TENANT_MAX_PENDING: pending messages over a tenant's queues
  double push_rate{};            // QUEEN_TENANT_PUSH_RATE: messages per second per tenant, per broker process
  int push_burst{};              // QUEEN_TENANT_PUSH_BURST: token bucket size (0 = one second of push_rate)
  bool overrides{};              // QUEEN_TENANT_QUOTA_OVERRIDES: read queen.tenant_quotas
  int cache_ms{};                // QUEEN_TENANT_QUOTA_CACHE_MS: how long a tenant's overrides and pending count are reused
  TenantStorageQuotas storage;

  // False: no quota can apply, the push path does no quota work at all.
  bool enabled() const { return max_pending > 0 || push_rate > 0 || overrides; }
};

// JWT bearer authentication (docs/auth.md). Off by default: every route open.
struct JwtConfig {
  bool enabled{};                             // JWT_ENABLED
  std::string algorithm;                      // JWT_ALGORITHM: HS256|RS256|EdDSA|auto
  std::string secret;                         // JWT_SECRET: HS256 key (masked in logs)
  std::string public_key_pem;                 // JWT_PUBLIC_KEY: PEM, RSA or Ed25519
  std::string jwks_url;                       // JWT_JWKS_URL: JWKS document for RS256/EdDSA
  std::string issuer;                         // JWT_ISSUER: expected `iss` ("" = not checked)
  std::string audience;                       // JWT_AUDIENCE: expected in `aud` ("" = not checked)
  int clock_skew_s{};                         // JWT_CLOCK_SKEW: tolerance on exp/nbf
  std::vector<std::string> skip_paths;        // JWT_SKIP_PATHS
  int jwks_refresh_interval_s{};              // JWT_JWKS_REFRESH_INTERVAL
  int jwks_timeout_ms{};                      // JWT_JWKS_TIMEOUT_MS
  std::string roles_claim;                    // JWT_ROLES_CLAIM: a string claim
  std::string roles_array_claim;              // JWT_ROLES_ARRAY_CLAIM: an array claim
  std::string role_admin;                     // JWT_ROLE_ADMIN
  std::string role_read_write;                // JWT_ROLE_READ_WRITE
  std::string role_read_only;                 // JWT_ROLE_READ_ONLY
  std::string tenant_claim;                   // JWT_TENANT_CLAIM
};

struct Config {
  ProcessConfig process;
  HttpConfig http;
  DbConfig db;
  PopConfig pop;
  PushConfig push;
  CombineConfig combine;
  SpoolConfig spool;
  MeshConfig mesh;
  SweeperConfig sweeper;
  JobsConfig jobs;
  SystemConfig system;
  LimitsConfig limits;
  TenantQuotaConfig tenant_quotas;
  JwtConfig jwt;
  FlowConfig flow;
  MetricsConfig metrics;
  // Payload encryption (docs/encryption.md). Both keys are masked in logs.
  std::string encryption_key;           // QUEEN_ENCRYPTION_KEY: 64 hex characters
  std::string encryption_key_previous;  // QUEEN_ENCRYPTION_KEY_PREVIOUS: decrypts only (after a rotation)
  // QUEEN_ENCRYPTION_REFRESH_MS: how often the list of encryptionEnabled queues is re-read.
  int encryption_refresh_ms{};

  // Every setting at its default: load_config of an empty environment (the
  // server id is "queen"), made once.
  static const Config& defaults();
};

// A value that does not parse, lies outside its range or breaks a rule between variables stops the boot.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One variable as read: its effective value (unmasked) and whether the environment set it.
struct Setting {
  const Variable* variable = nullptr;
  std::string value;  // the effective value; for a refused variable, the value given
  bool from_environment = false;
  bool set_empty = false;  // set to "", which is read as unset (the default applies)
  bool refused = false;    // the value given does not parse or is out of range
};

struct LoadedConfig {
  Config config;
  std::vector<Setting> settings;  // every variable of the table, in its order
  // One line per refused variable, unknown near-miss name and broken rule between variables; a boot
  // with any refuses to start. A refused variable's field holds its default.
  std::vector<std::string> errors;
  // Variables named by an error: what is derived from them (the mesh options, the JWT keys) is not checked.
  std::set<std::string> refused;
  // Unknown names with one of our prefixes, not close to any variable: printed and logged, not fatal.
  std::vector<std::string> warnings;
  // Reference-server variables that are set but mean nothing here (UDP sync,
  // cache and engine tuning): accepted without a warning, listed for a debug line.
  std::vector<std::string> ignored;
};

// Pure: builds the configuration from an environment map. `hostname` is the
// default of QUEEN_SERVER_ID. Every problem is in `errors`; nothing is thrown.
LoadedConfig read_config(const EnvMap& env, const std::string& hostname);

// read_config, throwing ConfigError ("invalid configuration:" and one line per error) when any.
LoadedConfig load_config(const EnvMap& env, const std::string& hostname);

// The process environment and host name (the only impure part of this module).
EnvMap read_process_environment();
std::string read_hostname();

// One `config: <group> k=v ...` line per group (http, db, pop, push, spool,
// mesh, process, limits, jwt, flow), secrets masked.
std::vector<std::string> describe_config(const Config& config);

// One `NAME=value` line per variable (secrets masked: "***" when set), marked
// "(default)" where the environment did not set it ("(default: set empty)" where it set ""),
// "(refused)" where its value was refused: the output of --check-config.
std::vector<std::string> describe_settings(const std::vector<Setting>& settings);

// Every session setting a broker's connections carry: the storage quotas, the stream bounds and
// queen.dedup_window_ms (QUEEN_DEDUP_WINDOW_MS).
std::vector<std::pair<std::string, std::string>> database_session_settings(const Config& config);

const char* to_string(FsyncMode mode) noexcept;

}  // namespace queen::config
