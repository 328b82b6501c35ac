#pragma once
// The catalogue of the database API: every procedure the broker calls is
// declared once, in QUEEN_CATALOGUE below, with its SQL name, its typed
// arguments and the shape of its result. From that one line come the
// prepared statement (its name and SQL text), the typed call (arity and
// argument types checked at compile time) and the decoding of its result.
// tests/integration/test_catalogue.py prepares every entry against a freshly
// deployed schema and checks it against pg_proc (CONTRIBUTING.md).
// The read routes that are one procedure call (the statistics views) are
// declared here too, with their GET path, access and query parameters: the
// HTTP layer registers them from QUEEN_CATALOGUE_VIEWS.
// This header has no libpqxx: the typed calls are in db/catalogue_calls.h.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tenant/tenant.h"

namespace pqxx {
class connection_base;
}

namespace queen::db {
// The decoders of the table results (db/row_decode.h).
class PushRowDecoder;
class PoppedMessageDecoder;
class AckRowDecoder;
template <typename Inner>
class CombinedRowDecoder;
class LeaseExtensionDecoder;
class DlqEntryDecoder;
class TenantQuotaStateDecoder;
class TenantQueueDecoder;
class PartitionSeekDecoder;
class KvEntryDecoder;
}  // namespace queen::db

namespace queen::db::catalogue {

// ------------------------------------------------------------ argument types
// Each says how its parameter is written in the statement ('#' is its number),
// the PostgreSQL type of the procedure's parameter it fills (as regtype
// prints it), and which C++ values it takes.

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {
  using value_type = T;
};
template <typename A>
using bare_t = std::remove_cv_t<std::remove_reference_t<A>>;
template <typename A>
inline constexpr bool is_text_v = std::is_same_v<bare_t<A>, std::string> ||
                                  std::is_same_v<bare_t<A>, std::optional<std::string>> ||
                                  std::is_same_v<std::decay_t<A>, const char*>;
template <typename A, typename V = bare_t<A>>
inline constexpr bool is_integer_v = std::is_integral_v<V> && !std::is_same_v<V, bool>;
template <typename V, bool = is_optional<V>::value>
struct optional_integer : std::false_type {};
template <typename V>
struct optional_integer<V, true> : std::bool_constant<is_integer_v<typename is_optional<V>::value_type>> {};
template <typename A>
inline constexpr bool is_optional_integer_v = optional_integer<bare_t<A>>::value;

#define QUEEN_CATALOGUE_ARG(Name, pattern_text, pg_text, accepts_expr) \
  struct Name {                                                        \
    static constexpr const char* pattern = pattern_text;               \
    static constexpr const char* pg_type = pg_text;                    \
    template <typename A>                                              \
    static constexpr bool accepts = accepts_expr;                      \
  };

QUEEN_CATALOGUE_ARG(Text, "$#::text", "text", is_text_v<A>)
QUEEN_CATALOGUE_ARG(Jsonb, "$#::jsonb", "jsonb", is_text_v<A>)
QUEEN_CATALOGUE_ARG(Uuid, "$#::uuid", "uuid", is_text_v<A>)
QUEEN_CATALOGUE_ARG(Int, "$#::int", "integer", is_integer_v<A> || is_optional_integer_v<A>)
QUEEN_CATALOGUE_ARG(Int8, "$#::int8", "bigint", is_integer_v<A> || is_optional_integer_v<A>)
QUEEN_CATALOGUE_ARG(Bool, "$#::bool", "boolean", (std::is_same_v<bare_t<A>, bool>))
// An ISO-8601 timestamp as text, parsed by PostgreSQL.
QUEEN_CATALOGUE_ARG(Timestamptz, "$#::timestamptz", "timestamp with time zone", is_text_v<A>)
// Epoch milliseconds (exact, no text timestamp parsing); null stays null.
QUEEN_CATALOGUE_ARG(EpochMs, "'epoch'::timestamptz + $#::int8 * interval '1 millisecond'", "timestamp with time zone",
                    is_integer_v<A> || is_optional_integer_v<A>)
QUEEN_CATALOGUE_ARG(IntervalMs, "$#::int8 * interval '1 millisecond'", "interval", is_integer_v<A>)
// A bigint[] literal ("{1,2,3}", to_bigint_array_literal).
QUEEN_CATALOGUE_ARG(Int8Array, "$#::bigint[]", "bigint[]", is_text_v<A>)
// A JSON array of strings, passed as text[].
QUEEN_CATALOGUE_ARG(TextArrayOfJson, "ARRAY(SELECT jsonb_array_elements_text($#::jsonb))", "text[]", is_text_v<A>)
// A procedure's p_tenant: only a Tenant, never a string (its name is passed,
// '' for the default tenant).
QUEEN_CATALOGUE_ARG(TenantName, "$#::text", "text", (std::is_same_v<bare_t<A>, Tenant>))

#undef QUEEN_CATALOGUE_ARG

// ------------------------------------------------------------- result shapes
// A scalar result is one column named "result" ('@' stands for the call):
// value_type is what the caller reads from it (first<P>, each<P>).

#define QUEEN_CATALOGUE_SCALAR(Name, select_text, pg_text, Value) \
  struct Name {                                                   \
    static constexpr bool rows = false;                           \
    static constexpr const char* select = select_text;            \
    static constexpr const char* returns = pg_text;               \
    using value_type = Value;                                     \
  };

// jsonb travels as text.
QUEEN_CATALOGUE_SCALAR(Json, "SELECT @::text AS result", "jsonb", std::string)
QUEEN_CATALOGUE_SCALAR(BoolValue, "SELECT @ AS result", "boolean", bool)
QUEEN_CATALOGUE_SCALAR(IntValue, "SELECT @ AS result", "integer", int)
QUEEN_CATALOGUE_SCALAR(Int8Value, "SELECT @ AS result", "bigint", std::int64_t)
QUEEN_CATALOGUE_SCALAR(TextValue, "SELECT @ AS result", "text", std::string)
QUEEN_CATALOGUE_SCALAR(UuidValue, "SELECT @::text AS result", "uuid", std::string)
// Timestamps leave the database as integer epoch microseconds, so the broker
// formats them without depending on DateStyle.
QUEEN_CATALOGUE_SCALAR(EpochUsValue, "SELECT (extract(epoch FROM @) * 1000000)::int8 AS result",
                       "timestamp with time zone", std::int64_t)
// Milliseconds from now until the returned instant, both from the database
// clock (broker clock skew cannot shift it).
QUEEN_CATALOGUE_SCALAR(MsUntilValue, "SELECT floor(extract(epoch FROM (@ - clock_timestamp())) * 1000)::int8 AS result",
                       "timestamp with time zone", std::int64_t)
QUEEN_CATALOGUE_SCALAR(Void, "SELECT @ AS result", "void", bool)
// A jsonb object whose payload is kept apart (the broker decrypts it, the
// HTTP layer splices it in as text): fields_json, payload, is_encrypted.
QUEEN_CATALOGUE_SCALAR(ObjectAndPayload,
                       "SELECT (r - 'payload')::text AS fields_json, (r -> 'payload')::text AS payload, "
                       "(r ->> 'isEncrypted')::bool AS is_encrypted FROM @ r WHERE r IS NOT NULL",
                       "jsonb", std::string)
// queen.traces_by_name: one row per trace (none: one row with a null trace),
// the envelope on every row, the message payload apart from the trace.
QUEEN_CATALOGUE_SCALAR(TracesAndPayloads,
                       "SELECT (r - 'traces')::text AS envelope_json, "
                       "(e.t - 'message_payload' - 'message_encrypted')::text AS fields_json, "
                       "(e.t -> 'message_payload')::text AS payload, "
                       "(e.t ->> 'message_encrypted')::bool AS is_encrypted "
                       "FROM @ r LEFT JOIN LATERAL jsonb_array_elements(r -> 'traces') WITH ORDINALITY AS e(t, ord) "
                       "ON true ORDER BY e.ord",
                       "jsonb", std::string)

#undef QUEEN_CATALOGUE_SCALAR

// A column of a set-returning procedure: its name in the procedure's result
// (`source`, of PostgreSQL type `pg_type`) and how the statement reads it.
enum class Read {
  AsIs,     // source AS source
  AsText,   // source::text AS name
  EpochUs,  // (extract(epoch from source) * 1000000)::int8 AS name
};
struct Column {
  const char* source;
  const char* pg_type;
  Read read;
  const char* name;  // the name the decoder reads
};

// Table results: the columns read, in order, and the decoder of a row.
struct PushRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {
      {"idx", "integer", Read::AsIs, "idx"},
      {"status", "text", Read::AsIs, "status"},
      {"message_id", "uuid", Read::AsText, "message_id"},
      {"transaction_id", "text", Read::AsIs, "transaction_id"},
      {"partition_id", "uuid", Read::AsText, "partition_id"},
      {"queue_name", "text", Read::AsIs, "queue_name"},
      {"partition_name", "text", Read::AsIs, "partition_name"},
      {"error", "text", Read::AsIs, "error"},
  };
  using decoder = PushRowDecoder;
};

#define QUEEN_POPPED_MESSAGE_COLUMNS                                                                        \
  {"lease_id", "uuid", Read::AsText, "lease_id"}, {"queue_name", "text", Read::AsIs, "queue_name"},           \
      {"partition_name", "text", Read::AsIs, "partition_name"},                                             \
      {"partition_id", "uuid", Read::AsText, "partition_id"},                                               \
      {"message_id", "uuid", Read::AsText, "message_id"},                                                   \
      {"transaction_id", "text", Read::AsIs, "transaction_id"}, {"trace_id", "uuid", Read::AsText, "trace_id"}, \
      {"payload", "jsonb", Read::AsText, "payload"}, {"producer_sub", "text", Read::AsIs, "producer_sub"},  \
      {"is_encrypted", "boolean", Read::AsIs, "is_encrypted"},                                              \
      {"created_at", "timestamp with time zone", Read::EpochUs, "created_at_us"},                          \
      {"retry_count", "integer", Read::AsIs, "retry_count"}
#define QUEEN_ACK_ROW_COLUMNS                                                                              \
  {"idx", "integer", Read::AsIs, "idx"}, {"transaction_id", "text", Read::AsIs, "transaction_id"},           \
      {"success", "boolean", Read::AsIs, "success"}, {"error", "text", Read::AsIs, "error"},               \
      {"queue_name", "text", Read::AsIs, "queue_name"}, {"partition_name", "text", Read::AsIs, "partition_name"}, \
      {"lease_released", "boolean", Read::AsIs, "lease_released"}, {"dlq", "boolean", Read::AsIs, "dlq"}

struct PoppedRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {QUEEN_POPPED_MESSAGE_COLUMNS};
  using decoder = PoppedMessageDecoder;
};
struct CombinedPoppedRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {{"request_idx", "integer", Read::AsIs, "request_idx"},
                                       QUEEN_POPPED_MESSAGE_COLUMNS};
  using decoder = CombinedRowDecoder<PoppedMessageDecoder>;
};
struct AckRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {QUEEN_ACK_ROW_COLUMNS};
  using decoder = AckRowDecoder;
};
struct CombinedAckRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {{"request_idx", "integer", Read::AsIs, "request_idx"}, QUEEN_ACK_ROW_COLUMNS};
  using decoder = CombinedRowDecoder<AckRowDecoder>;
};
#undef QUEEN_POPPED_MESSAGE_COLUMNS
#undef QUEEN_ACK_ROW_COLUMNS

struct LeaseRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {
      {"success", "boolean", Read::AsIs, "success"},
      {"expires_at", "timestamp with time zone", Read::EpochUs, "expires_at_us"},
      {"error", "text", Read::AsIs, "error"},
  };
  using decoder = LeaseExtensionDecoder;
};
struct DlqRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {
      {"message_id", "uuid", Read::AsText, "message_id"},
      {"transaction_id", "text", Read::AsIs, "transaction_id"},
      {"partition_id", "uuid", Read::AsText, "partition_id"},
      {"queue_name", "text", Read::AsIs, "queue_name"},
      {"partition_name", "text", Read::AsIs, "partition_name"},
      {"consumer_group", "text", Read::AsIs, "consumer_group"},
      {"error_message", "text", Read::AsIs, "error_message"},
      {"retry_count", "integer", Read::AsIs, "retry_count"},
      {"payload", "jsonb", Read::AsText, "payload"},
      {"payload_omitted", "boolean", Read::AsIs, "payload_omitted"},
      {"is_encrypted", "boolean", Read::AsIs, "is_encrypted"},
      {"producer_sub", "text", Read::AsIs, "producer_sub"},
      {"trace_id", "uuid", Read::AsText, "trace_id"},
      {"created_at", "timestamp with time zone", Read::EpochUs, "created_at_us"},
      {"failed_at", "timestamp with time zone", Read::EpochUs, "failed_at_us"},
      {"total", "bigint", Read::AsIs, "total"},
  };
  using decoder = DlqEntryDecoder;
};
struct QuotaRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {
      {"max_pending", "bigint", Read::AsIs, "max_pending"},
      {"push_rate", "double precision", Read::AsIs, "push_rate"},
      {"push_burst", "integer", Read::AsIs, "push_burst"},
      {"pending", "bigint", Read::AsIs, "pending"},
      {"max_dead_letters", "bigint", Read::AsIs, "max_dead_letters"},
      {"dead_letters", "bigint", Read::AsIs, "dead_letters"},
      {"counted_at", "timestamp with time zone", Read::EpochUs, "counted_at_us"},
  };
  using decoder = TenantQuotaStateDecoder;
};
struct TenantQueueRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {
      {"tenant", "text", Read::AsIs, "tenant"},
      {"queue_name", "text", Read::AsIs, "queue_name"},
  };
  using decoder = TenantQueueDecoder;
};
struct PartitionSeekRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {
      {"partition_found", "boolean", Read::AsIs, "partition_found"},
      {"cursor_moved_to", "timestamp with time zone", Read::EpochUs, "cursor_moved_to_us"},
  };
  using decoder = PartitionSeekDecoder;
};
struct KvRows {
  static constexpr bool rows = true;
  static constexpr Column columns[] = {
      {"value", "jsonb", Read::AsText, "value_json"},
      {"expires_at", "timestamp with time zone", Read::EpochUs, "expires_at_us"},
  };
  using decoder = KvEntryDecoder;
};

// ---------------------------------------------------------------- the entries
// X(Id, "function", Result, Arguments...): queen.<function> taking the
// arguments in order. The prepared statement is named "queen_<function>".
// Every statement runs as one autocommit statement: one round trip, the
// procedure is the unit of atomicity.
#define QUEEN_CATALOGUE(X)                                                                                        \
  /* The request path (Database). */                                                                             \
  X(ConfigureQueue, "configure_queue", Json, Text, Text, Text, Jsonb, TenantName)                                \
  X(PushMessages, "push_messages", PushRows, Jsonb, Text, TenantName)                                            \
  X(PopMessages, "pop_messages", PoppedRows, Text, Text, Text, Int, Int, Bool, Text, Text, Text, Text,           \
    TenantName)                                                                                                  \
  X(AckMessages, "ack_messages", AckRows, Jsonb, Text, TenantName)                                               \
  X(PopMany, "pop_many", CombinedPoppedRows, Int, Text, Text, Text, Int, Int, Bool, Text, Text, Text, Text,      \
    TenantName)                                                                                                  \
  X(AckMany, "ack_many", CombinedAckRows, Jsonb, TenantName)                                                     \
  X(ExtendLease, "extend_lease", LeaseRows, Uuid, Int, TenantName)                                               \
  X(SetSystemFlag, "set_system_flag", BoolValue, Text, Bool)                                                     \
  X(GetSystemFlag, "get_system_flag", BoolValue, Text)                                                           \
  X(SchemaVersion, "schema_version", TextValue)                                                                 \
  X(RunTransaction, "run_transaction", Json, Jsonb, Text, TenantName)                                            \
  /* Stream queries (docs/streams.md): register, read a shard, commit a cycle. */                                 \
  X(StreamRegisterQuery, "stream_register_query", Json, Jsonb, TenantName)                                       \
  X(StreamStateGet, "stream_state_get", Json, Jsonb, TenantName)                                                 \
  X(StreamCycle, "stream_cycle", Json, Jsonb, Text, TenantName)                                                  \
  X(ListDlq, "list_dlq", DlqRows, Text, Text, Text, EpochMs, EpochMs, Int, Int, TenantName, Int8)                \
  X(DeleteQueue, "delete_queue", BoolValue, Text, TenantName)                                                    \
  X(QuotaStateOfTenant, "tenant_quota_state", QuotaRows, TenantName)                                               \
  X(EncryptedQueueNames, "encrypted_queue_names", TenantQueueRows)                                               \
  X(DeadLetterUndecryptable, "dead_letter_undecryptable", IntValue, Jsonb, Text, TenantName)                     \
  /* Timers (TimersDb, timer_queue_names): claim and fire are separate statements, */                             \
  /* hence separate transactions, as the timer protocol requires. */                                              \
  X(ClaimDueTimers, "claim_due_timers", Int8Value, Text, Int, Int)                                               \
  X(FireTimers, "fire_timers", IntValue, Text, Int8Array)                                                        \
  X(NextTimerDue, "next_timer_due", MsUntilValue)                                                                \
  X(TimerQueueNames, "timer_queue_names", TextValue, Int8Array)                                                  \
  /* Consumer-group administration (ConsumerGroupsDb). */                                                         \
  X(ListConsumerGroups, "list_consumer_groups", Json, TenantName)                                                \
  X(LaggingConsumerGroups, "lagging_consumer_groups", Json, Int8, TenantName)                                    \
  X(ConsumerGroupDetail, "consumer_group_detail", Json, Text, TenantName)                                        \
  X(DeleteConsumerGroup, "delete_consumer_group", IntValue, Text, Text, Bool, TenantName)                        \
  X(SetSubscriptionStart, "set_subscription_start", IntValue, Text, Timestamptz, TenantName)                     \
  X(SeekConsumerGroup, "seek_consumer_group", IntValue, Text, Text, Bool, Timestamptz, TenantName)               \
  X(SeekPartitionToEnd, "seek_partition_to_end", PartitionSeekRows, Text, Text, Text, TenantName)                \
  /* KV (KvDb). */                                                                                               \
  X(KvSet, "kv_set", EpochUsValue, Text, Jsonb, Int8, TenantName)                                                \
  X(KvGet, "kv_get", KvRows, Text, TenantName)                                                                   \
  X(KvDelete, "kv_delete", BoolValue, Text, TenantName)                                                          \
  X(KvPruneExpired, "kv_prune_expired", IntValue, Int)                                                           \
  /* Jobs (JobsDb). */                                                                                           \
  X(TryBeginJobCycle, "try_begin_job_cycle", BoolValue, Text, Int8, Text)                                        \
  X(FinishJobCycle, "finish_job_cycle", BoolValue, Text, Text, Jsonb)                                            \
  X(ApplyRetention, "apply_retention", IntValue, Int, IntervalMs)                                                \
  X(ExpireMessages, "expire_messages", IntValue, Int)                                                            \
  X(ReconcileStats, "reconcile_stats", IntValue, Int, Int8)                                                      \
  X(PruneStatsHistory, "prune_stats_history", IntValue, Int, Int)                                                \
  /* Statistics (StatsDb, docs/operations-stats.md). */                                                          \
  X(RefreshStats, "refresh_stats", Json, Int, Int)                                                               \
  X(RecordBrokerMinute, "record_broker_minute", Void, Text, Jsonb)                                               \
  X(MetricsSnapshot, "metrics_snapshot", Json, Int)                                                              \
  /* Message administration (message_admin_db.cpp). */                                                          \
  X(RecordTrace, "record_trace", UuidValue, Uuid, Text, Jsonb, TextArrayOfJson, Text, Text, Text, TenantName)    \
  X(MessageTracesOf, "message_traces_of", Json, Uuid, Text, TenantName)                                          \
  X(TracesNamed, "traces_by_name", TracesAndPayloads, Text, Int, Int, TenantName, Int8)                         \
  X(TraceNames, "trace_names", Json, Int, Int, TenantName)                                                       \
  X(ListMessages, "list_messages", Json, Text, Text, Text, Text, Text, EpochMs, EpochMs, Int, Int, TenantName)   \
  X(GetMessage, "get_message", ObjectAndPayload, Uuid, Text, TenantName)                                         \
  X(DeleteMessage, "delete_message", BoolValue, Uuid, Text, TenantName)                                          \
  X(ClearQueue, "clear_queue", Int8Value, Text, Text, TenantName)                                                \
  X(ListPartitions, "list_partitions", Json, Text, Int, Int, TenantName)                                         \
  X(DeadLetterMessage, "dead_letter_message", BoolValue, Uuid, Text, Text, Text, TenantName)                     \
  X(RequeueDeadLetters, "requeue_dead_letters", Json, Text, Text, Text, EpochMs, EpochMs, Uuid, TenantName)      \
  X(DeleteDeadLetters, "delete_dead_letters", IntValue, Text, Text, Text, EpochMs, EpochMs, Uuid, TenantName)    \
  X(RetryDeadMessage, "retry_dead_message", Json, Uuid, Text, TenantName)

// Who may call a view route (the HTTP layer maps it to auth::AccessLevel).
enum class ViewAccess {
  ReadOnly,  // any authenticated client, for its own tenant
  Operator,  // the cell's figures (every broker's, the database's), not one tenant's
};

// The statistics views (stats_views.sql): each is a procedure
// (tenant text, params jsonb) -> jsonb answering one GET route.
// V(Id, "function", "GET path", access, "query parameters", page size, queue in path):
// - query parameters: comma-separated names read from the query string into
//   params (from/to become fromMs/toMs; see http::stats_params_json);
// - page size: > 0 pages with limit (this default) and offset; 0: no paging;
// - queue in path: :queue names the queue (unknown to the tenant: 404).
#define QUEEN_CATALOGUE_VIEWS(V)                                                                                     \
  V(ResourcesOverview, "resources_overview", "/api/v1/resources/overview", ReadOnly, "", 0, false)                   \
  V(ResourcesQueues, "resources_queues", "/api/v1/resources/queues", ReadOnly, "namespace,task,search", 100, false)  \
  V(ResourcesQueue, "resources_queue", "/api/v1/resources/queues/:queue", ReadOnly, "", 100, true)                   \
  V(ResourcesNamespaces, "resources_namespaces", "/api/v1/resources/namespaces", ReadOnly, "", 0, false)             \
  V(ResourcesTasks, "resources_tasks", "/api/v1/resources/tasks", ReadOnly, "", 0, false)                            \
  V(StatusOverview, "status_overview", "/api/v1/status", ReadOnly, "from,to,queue,namespace,task", 0, false)         \
  V(StatusQueues, "status_queues", "/api/v1/status/queues", ReadOnly, "from,to,namespace,task", 100, false)          \
  /* Go adds includePartitions=true: partitions are always included. */                                              \
  V(StatusQueue, "status_queue", "/api/v1/status/queues/:queue", ReadOnly, "", 100, true)                            \
  V(StatusQueueMessages, "status_queue_messages", "/api/v1/status/queues/:queue/messages", ReadOnly, "", 50, true)   \
  V(StatusAnalytics, "status_analytics", "/api/v1/status/analytics", ReadOnly,                                       \
    "from,to,queue,namespace,task,interval", 0, false)                                                              \
  V(AnalyticsSystemMetrics, "analytics_system_metrics", "/api/v1/analytics/system-metrics", Operator,                \
    "from,to,hostname,workerId", 0, false)                                                                          \
  V(AnalyticsWorkerMetrics, "analytics_worker_metrics", "/api/v1/analytics/worker-metrics", Operator,                \
    "from,to,hostname,workerId", 0, false)                                                                          \
  V(AnalyticsPostgresStats, "analytics_postgres_stats", "/api/v1/analytics/postgres-stats", Operator, "", 0, false)  \
  V(AnalyticsQueueLag, "analytics_queue_lag", "/api/v1/analytics/queue-lag", ReadOnly, "from,to,queue", 0, false)    \
  V(AnalyticsQueueOps, "analytics_queue_ops", "/api/v1/analytics/queue-ops", ReadOnly, "from,to,queue", 0, false)    \
  V(AnalyticsParkedReplicas, "analytics_parked_replicas", "/api/v1/analytics/queue-parked-replicas", Operator,       \
    "from,to,queue", 0, false)                                                                                      \
  V(AnalyticsRetention, "analytics_retention", "/api/v1/analytics/retention", ReadOnly, "from,to,queue", 0, false)

template <typename Result, typename... Args>
struct Signature {
  using result = Result;
  static constexpr std::size_t arity = sizeof...(Args);
  static constexpr const char* patterns[arity + 1] = {Args::pattern..., nullptr};
  static constexpr const char* pg_types[arity + 1] = {Args::pg_type..., nullptr};
  template <typename... A>
  static constexpr bool accepts = sizeof...(A) == arity && (Args::template accepts<A> && ...);
};

#define QUEEN_CATALOGUE_DECLARE(Id, fn, ...)                    \
  struct Id : Signature<__VA_ARGS__> {                          \
    static constexpr const char* function = fn;                 \
    static constexpr const char* statement = "queen_" fn;       \
  };
QUEEN_CATALOGUE(QUEEN_CATALOGUE_DECLARE)
#define QUEEN_CATALOGUE_DECLARE_VIEW(Id, fn, ...) QUEEN_CATALOGUE_DECLARE(Id, fn, Json, TenantName, Jsonb)
QUEEN_CATALOGUE_VIEWS(QUEEN_CATALOGUE_DECLARE_VIEW)
#undef QUEEN_CATALOGUE_DECLARE_VIEW
#undef QUEEN_CATALOGUE_DECLARE

// What the export and the registration read of an entry.
struct Entry {
  const char* function;
  const char* statement;
  const char* const* patterns;  // null-terminated
  const char* const* pg_types;  // null-terminated
  bool rows;
  const char* select;   // scalar results: the SELECT with '@' for the call
  const char* returns;  // scalar results: the procedure's return type
  const Column* columns;  // table results
  std::size_t column_count;
};

// Every entry, in catalogue order (the views last).
const std::vector<Entry>& entries();

// One view route, as its catalogue line declares it.
struct View {
  const char* function;   // queen.<function>(tenant, params)
  const char* statement;  // its prepared statement
  const char* path;       // GET path (":queue" when the queue is in the path)
  ViewAccess access;
  std::vector<std::string> parameters;  // the query parameters read
  int page_size;                        // > 0: limit/offset paging with this default
  bool queue_in_path;
};

// Every view, in catalogue order.
const std::vector<View>& views();

// The SQL text of an entry's prepared statement.
std::string statement_sql(const Entry& entry);

// The functions of schema queen_internal: the helpers only other procedures
// (or triggers) call. No role but their owner may execute them.
const std::vector<const char*>& sql_helpers();

// API procedures of schema queen that no entry names: a DBA calls them
// (queen_admin), the broker never does, so queen_broker may not execute them.
const std::vector<const char*>& sql_admin_procedures();

// The catalogue as JSON (queen-broker --catalogue), for the conformance test:
// {"entries": [{function, statement, sql, args, returns, columns}], "helpers": [...],
//  "admin_procedures": [...]}.
std::string to_json();

}  // namespace queen::db::catalogue

namespace queen::db {

using catalogue::View;
using catalogue::ViewAccess;
using catalogue::views;

// The statement of Procedures::ping (no procedure: one trivial round trip).
inline constexpr const char* kPingStatement = "queen_ping";

// Registers every catalogue statement on `connection` (libpqxx prepares each
// one on its first use, so this costs no round trip).
void register_statements(pqxx::connection_base& connection);

}  // namespace queen::db
