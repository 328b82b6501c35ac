#pragma once
// The catalogue of the database API: every procedure the broker calls is
// declared once, in QUEEN_CATALOGUE below, with its SQL name, its typed
// arguments and the shape of its result. From that one line come the
// prepared statement (its name and SQL text), the typed call (arity and
// argument types checked at compile time), the decoding of its result, the
// db::Procedures interface with its implementations (db/procedures.h) and
// the table of docs/procedures.md.
// tests/integration/test_catalogue.py prepares every entry against a freshly
// deployed schema and checks it against pg_proc (CONTRIBUTING.md).
// The read routes that are one procedure call (the statistics views) are
// declared here too, with their GET path, access and query parameters: the
// HTTP layer registers them from QUEEN_CATALOGUE_VIEWS.
// This header has no libpqxx: the typed calls are in db/catalogue_calls.h.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "db/consumer_groups_db.h"
#include "db/kv_db.h"
#include "db/procedure_types.h"
#include "tenant/tenant.h"

namespace pqxx {
class connection_base;
}

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

// `param` is the C++ type the generated Procedures::call takes for it (an
// empty optional is a SQL null).
using OptionalText = std::optional<std::string>;
using OptionalInt8 = std::optional<std::int64_t>;

#define QUEEN_CATALOGUE_ARG(Name, pattern_text, pg_text, Param, accepts_expr) \
  struct Name {                                                               \
    static constexpr const char* pattern = pattern_text;                      \
    static constexpr const char* pg_type = pg_text;                           \
    using param = Param;                                                      \
    template <typename A>                                                     \
    static constexpr bool accepts = accepts_expr;                             \
  };

QUEEN_CATALOGUE_ARG(Text, "$#::text", "text", OptionalText, is_text_v<A>)
QUEEN_CATALOGUE_ARG(Jsonb, "$#::jsonb", "jsonb", OptionalText, is_text_v<A>)
QUEEN_CATALOGUE_ARG(Uuid, "$#::uuid", "uuid", OptionalText, is_text_v<A>)
QUEEN_CATALOGUE_ARG(Int, "$#::int", "integer", std::optional<int>, is_integer_v<A> || is_optional_integer_v<A>)
QUEEN_CATALOGUE_ARG(Int8, "$#::int8", "bigint", OptionalInt8, is_integer_v<A> || is_optional_integer_v<A>)
QUEEN_CATALOGUE_ARG(Bool, "$#::bool", "boolean", bool, (std::is_same_v<bare_t<A>, bool>))
// An ISO-8601 timestamp as text, parsed by PostgreSQL.
QUEEN_CATALOGUE_ARG(Timestamptz, "$#::timestamptz", "timestamp with time zone", OptionalText, is_text_v<A>)
// Epoch milliseconds (exact, no text timestamp parsing); null stays null.
QUEEN_CATALOGUE_ARG(EpochMs, "'epoch'::timestamptz + $#::int8 * interval '1 millisecond'", "timestamp with time zone",
                    OptionalInt8, is_integer_v<A> || is_optional_integer_v<A>)
QUEEN_CATALOGUE_ARG(IntervalMs, "$#::int8 * interval '1 millisecond'", "interval", std::int64_t, is_integer_v<A>)
// A bigint[] literal ("{1,2,3}", to_bigint_array_literal).
QUEEN_CATALOGUE_ARG(Int8Array, "$#::bigint[]", "bigint[]", OptionalText, is_text_v<A>)
// A JSON array of strings, passed as text[].
QUEEN_CATALOGUE_ARG(TextArrayOfJson, "ARRAY(SELECT jsonb_array_elements_text($#::jsonb))", "text[]", OptionalText,
                    is_text_v<A>)
// A procedure's p_tenant: only a Tenant, never a string (its name is passed,
// '' for the default tenant).
QUEEN_CATALOGUE_ARG(TenantName, "$#::text", "text", Tenant, (std::is_same_v<bare_t<A>, Tenant>))

#undef QUEEN_CATALOGUE_ARG

// ------------------------------------------------------------- result shapes
// A scalar result is one column named "result" ('@' stands for the call):
// value_type is what the caller reads from it (first<P>, each<P>).

// `answer` is what Procedures::call returns (empty: no row, or null).
#define QUEEN_CATALOGUE_SCALAR(Name, select_text, pg_text, Value) \
  struct Name {                                                   \
    static constexpr bool rows = false;                           \
    static constexpr const char* select = select_text;            \
    static constexpr const char* returns = pg_text;               \
    using value_type = Value;                                     \
    using answer = std::optional<Value>;                          \
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

#undef QUEEN_CATALOGUE_SCALAR

// The scalar results read otherwise (db/catalogue_calls.cpp, read_answer).
// A void procedure: the answer says the call returned its row.
struct Void {
  static constexpr bool rows = false;
  static constexpr const char* select = "SELECT @ AS result";
  static constexpr const char* returns = "void";
  using answer = bool;
};
// A jsonb object whose payload is kept apart (the broker decrypts it, the
// HTTP layer splices it in as text): fields_json, payload, is_encrypted.
struct ObjectAndPayload {
  static constexpr bool rows = false;
  static constexpr const char* select =
      "SELECT (r - 'payload')::text AS fields_json, (r -> 'payload')::text AS payload, "
      "(r ->> 'isEncrypted')::bool AS is_encrypted FROM @ r WHERE r IS NOT NULL";
  static constexpr const char* returns = "jsonb";
  using answer = std::optional<ObjectWithPayload>;
};
// queen.traces_by_name: one row per trace (none: one row with a null trace),
// the envelope on every row, the message payload apart from the trace.
struct TracesAndPayloads {
  static constexpr bool rows = false;
  static constexpr const char* select =
      "SELECT (r - 'traces')::text AS envelope_json, "
      "(e.t - 'message_payload' - 'message_encrypted')::text AS fields_json, "
      "(e.t -> 'message_payload')::text AS payload, "
      "(e.t ->> 'message_encrypted')::bool AS is_encrypted "
      "FROM @ r LEFT JOIN LATERAL jsonb_array_elements(r -> 'traces') WITH ORDINALITY AS e(t, ord) "
      "ON true ORDER BY e.ord";
  static constexpr const char* returns = "jsonb";
  using answer = TracesByName;
};

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

// What a SQL null in a column becomes in its member. An optional member is
// always empty (nullopt) then.
enum class OnNull {
  Empty,     // the member's empty value: nullopt, "", false, 0
  JsonNull,  // the JSON text "null" (a jsonb column read as text)
  Refused,   // a conversion error: the procedure never returns null there
};

// A column and the member of the row struct its value is decoded into
// (db/row_decode.h, RowDecoder).
template <typename Row, typename T>
struct Field {
  Column column;
  T Row::*member;
  OnNull on_null;
};
template <typename Row, typename T>
constexpr Field<Row, T> field(Column column, T Row::*member, OnNull on_null = OnNull::Empty) {
  return {column, member, on_null};
}

// The fields of another shape decoded into a member (a row within the row).
template <typename Row, typename Part, typename... Fields>
struct Nested {
  Part Row::*member;
  std::tuple<Fields...> fields;
};
template <typename Row, typename Part, typename... Fields>
constexpr Nested<Row, Part, Fields...> nested(Part Row::*member, const std::tuple<Fields...>& fields) {
  return {member, fields};
}

// How many columns a field, a nested shape or a tuple of them reads.
template <typename F>
struct columns_in;
template <typename Row, typename T>
struct columns_in<Field<Row, T>> : std::integral_constant<std::size_t, 1> {};
template <typename Row, typename Part, typename... Fields>
struct columns_in<Nested<Row, Part, Fields...>>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + columns_in<Fields>::value)> {};
template <typename... Fields>
struct columns_in<std::tuple<Fields...>>
    : std::integral_constant<std::size_t, (std::size_t{0} + ... + columns_in<Fields>::value)> {};
template <typename Shape>
inline constexpr std::size_t column_count_v = columns_in<std::decay_t<decltype(Shape::fields)>>::value;

template <typename Row, typename T>
constexpr void append_columns(const Field<Row, T>& f, Column* out, std::size_t& i) {
  out[i++] = f.column;
}
template <typename... Fields, std::size_t... I>
constexpr void append_columns(const std::tuple<Fields...>& fields, Column* out, std::size_t& i,
                              std::index_sequence<I...>) {
  (append_columns(std::get<I>(fields), out, i), ...);
}
template <typename Row, typename Part, typename... Fields>
constexpr void append_columns(const Nested<Row, Part, Fields...>& n, Column* out, std::size_t& i) {
  append_columns(n.fields, out, i, std::index_sequence_for<Fields...>{});
}

// The columns of a shape's fields, in order (nested shapes in place).
template <typename... Fields>
constexpr std::array<Column, columns_in<std::tuple<Fields...>>::value> columns_of(
    const std::tuple<Fields...>& fields) {
  std::array<Column, columns_in<std::tuple<Fields...>>::value> out{};
  std::size_t i = 0;
  append_columns(fields, out.data(), i, std::index_sequence_for<Fields...>{});
  return out;
}

constexpr bool same_text(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

template <typename T>
struct unwrap_optional {
  using type = T;
};
template <typename T>
struct unwrap_optional<std::optional<T>> {
  using type = T;
};

// Whether a member of type T holds what the statement reads of column `c`,
// and the column is read under the name the decoder looks for.
template <typename T>
constexpr bool member_fits(const Column& c) {
  using V = typename unwrap_optional<T>::type;
  if (c.read == Read::EpochUs) return std::is_same_v<V, std::int64_t>;
  if (c.read == Read::AsText) return std::is_same_v<V, std::string>;
  if (!same_text(c.source, c.name)) return false;  // AsIs keeps the source name
  if (same_text(c.pg_type, "integer")) return std::is_same_v<V, int>;
  if (same_text(c.pg_type, "bigint")) return std::is_same_v<V, std::int64_t>;
  if (same_text(c.pg_type, "boolean")) return std::is_same_v<V, bool>;
  if (same_text(c.pg_type, "double precision")) return std::is_same_v<V, double>;
  if (same_text(c.pg_type, "text")) return std::is_same_v<V, std::string> || std::is_same_v<V, Tenant>;
  return false;  // a type no member reads yet: add it here and in RowDecoder
}

template <typename Row, typename T>
constexpr bool fields_fit(const Field<Row, T>& f) {
  return member_fits<T>(f.column) && (f.on_null != OnNull::JsonNull || std::is_same_v<T, std::string>) &&
         (f.on_null == OnNull::Empty || !is_optional<T>::value);
}
template <typename... Fields, std::size_t... I>
constexpr bool fields_fit(const std::tuple<Fields...>& fields, std::index_sequence<I...>) {
  return (fields_fit(std::get<I>(fields)) && ...);
}
template <typename Row, typename Part, typename... Fields>
constexpr bool fields_fit(const Nested<Row, Part, Fields...>& n) {
  return fields_fit(n.fields, std::index_sequence_for<Fields...>{});
}
// Whether every field of a shape fits its column (checked for every entry).
template <typename... Fields>
constexpr bool fields_fit(const std::tuple<Fields...>& fields) {
  return fields_fit(fields, std::index_sequence_for<Fields...>{});
}

// Table results: the fields read, in order, each a column and the member of
// Row it fills. RowDecoder<Shape> (db/row_decode.h) decodes them; no shape has
// a decoder of its own.
struct PushRows {
  static constexpr bool rows = true;
  using Row = PushRow;
  static constexpr auto fields = std::make_tuple(
      field({"idx", "integer", Read::AsIs, "idx"}, &Row::idx, OnNull::Refused),
      field({"status", "text", Read::AsIs, "status"}, &Row::status),
      field({"message_id", "uuid", Read::AsText, "message_id"}, &Row::message_id),
      field({"transaction_id", "text", Read::AsIs, "transaction_id"}, &Row::transaction_id),
      field({"partition_id", "uuid", Read::AsText, "partition_id"}, &Row::partition_id),
      field({"queue_name", "text", Read::AsIs, "queue_name"}, &Row::queue_name),
      field({"partition_name", "text", Read::AsIs, "partition_name"}, &Row::partition_name),
      field({"error", "text", Read::AsIs, "error"}, &Row::error),
      field({"seq", "bigint", Read::AsIs, "seq"}, &Row::seq));
};
struct DedupKeyRows {
  static constexpr bool rows = true;
  using Row = DedupKeyRow;
  static constexpr auto fields =
      std::make_tuple(field({"seq", "bigint", Read::AsIs, "seq"}, &Row::seq),
                      field({"transaction_id", "text", Read::AsIs, "transaction_id"}, &Row::transaction_id,
                            OnNull::Refused));
};
struct PoppedRows {
  static constexpr bool rows = true;
  using Row = PoppedMessage;
  static constexpr auto fields = std::make_tuple(
      field({"lease_id", "uuid", Read::AsText, "lease_id"}, &Row::lease_id),
      field({"queue_name", "text", Read::AsIs, "queue_name"}, &Row::queue_name),
      field({"partition_name", "text", Read::AsIs, "partition_name"}, &Row::partition_name),
      field({"partition_id", "uuid", Read::AsText, "partition_id"}, &Row::partition_id),
      field({"message_id", "uuid", Read::AsText, "message_id"}, &Row::message_id),
      field({"transaction_id", "text", Read::AsIs, "transaction_id"}, &Row::transaction_id),
      field({"trace_id", "uuid", Read::AsText, "trace_id"}, &Row::trace_id),
      field({"payload", "text", Read::AsIs, "payload"}, &Row::payload_json, OnNull::JsonNull),
      field({"producer_sub", "text", Read::AsIs, "producer_sub"}, &Row::producer_sub),
      field({"is_encrypted", "boolean", Read::AsIs, "is_encrypted"}, &Row::is_encrypted),
      field({"created_at", "timestamp with time zone", Read::EpochUs, "created_at_us"}, &Row::created_at_us),
      field({"retry_count", "integer", Read::AsIs, "retry_count"}, &Row::retry_count));
};
struct AckRows {
  static constexpr bool rows = true;
  using Row = AckRow;
  static constexpr auto fields = std::make_tuple(
      field({"idx", "integer", Read::AsIs, "idx"}, &Row::idx, OnNull::Refused),
      field({"transaction_id", "text", Read::AsIs, "transaction_id"}, &Row::transaction_id),
      field({"success", "boolean", Read::AsIs, "success"}, &Row::success),
      field({"error", "text", Read::AsIs, "error"}, &Row::error),
      field({"queue_name", "text", Read::AsIs, "queue_name"}, &Row::queue_name),
      field({"partition_name", "text", Read::AsIs, "partition_name"}, &Row::partition_name),
      field({"lease_released", "boolean", Read::AsIs, "lease_released"}, &Row::lease_released),
      field({"dlq", "boolean", Read::AsIs, "dlq"}, &Row::dlq));
};
// queen.pop_many and queen.ack_many: the lone procedure's row and the request
// it answers, first.
template <typename Inner>
struct CombinedRows {
  static constexpr bool rows = true;
  using Row = CombinedRow<typename Inner::Row>;
  static constexpr auto fields =
      std::make_tuple(field({"request_idx", "integer", Read::AsIs, "request_idx"}, &Row::request_idx, OnNull::Refused),
                      nested(&Row::row, Inner::fields));
};
using CombinedPoppedRows = CombinedRows<PoppedRows>;
using CombinedAckRows = CombinedRows<AckRows>;

struct LeaseRows {
  static constexpr bool rows = true;
  using Row = LeaseExtension;
  static constexpr auto fields = std::make_tuple(
      field({"success", "boolean", Read::AsIs, "success"}, &Row::success),
      field({"expires_at", "timestamp with time zone", Read::EpochUs, "expires_at_us"}, &Row::expires_at_us),
      field({"error", "text", Read::AsIs, "error"}, &Row::error));
};
// queen.list_dlq: an entry per row, and the total every row repeats.
struct DlqRows {
  static constexpr bool rows = true;
  using Row = DlqRow;
  static constexpr auto fields = std::make_tuple(
      nested(&Row::entry,
             std::make_tuple(
                 field({"message_id", "uuid", Read::AsText, "message_id"}, &DlqEntry::message_id),
                 field({"transaction_id", "text", Read::AsIs, "transaction_id"}, &DlqEntry::transaction_id),
                 field({"partition_id", "uuid", Read::AsText, "partition_id"}, &DlqEntry::partition_id),
                 field({"queue_name", "text", Read::AsIs, "queue_name"}, &DlqEntry::queue_name),
                 field({"partition_name", "text", Read::AsIs, "partition_name"}, &DlqEntry::partition_name),
                 field({"consumer_group", "text", Read::AsIs, "consumer_group"}, &DlqEntry::consumer_group),
                 field({"error_message", "text", Read::AsIs, "error_message"}, &DlqEntry::error_message),
                 field({"retry_count", "integer", Read::AsIs, "retry_count"}, &DlqEntry::retry_count),
                 field({"payload", "jsonb", Read::AsText, "payload"}, &DlqEntry::payload_json, OnNull::JsonNull),
                 field({"payload_omitted", "boolean", Read::AsIs, "payload_omitted"}, &DlqEntry::payload_omitted),
                 field({"is_encrypted", "boolean", Read::AsIs, "is_encrypted"}, &DlqEntry::is_encrypted),
                 field({"producer_sub", "text", Read::AsIs, "producer_sub"}, &DlqEntry::producer_sub),
                 field({"trace_id", "uuid", Read::AsText, "trace_id"}, &DlqEntry::trace_id),
                 field({"created_at", "timestamp with time zone", Read::EpochUs, "created_at_us"},
                       &DlqEntry::created_at_us),
                 field({"failed_at", "timestamp with time zone", Read::EpochUs, "failed_at_us"},
                       &DlqEntry::failed_at_us))),
      field({"total", "bigint", Read::AsIs, "total"}, &Row::total, OnNull::Refused));
};
struct QuotaRows {
  static constexpr bool rows = true;
  using Row = TenantQuotaState;
  static constexpr auto fields = std::make_tuple(
      field({"max_pending", "bigint", Read::AsIs, "max_pending"}, &Row::max_pending),
      field({"push_rate", "double precision", Read::AsIs, "push_rate"}, &Row::push_rate),
      field({"push_burst", "integer", Read::AsIs, "push_burst"}, &Row::push_burst),
      field({"pending", "bigint", Read::AsIs, "pending"}, &Row::pending),
      field({"max_dead_letters", "bigint", Read::AsIs, "max_dead_letters"}, &Row::max_dead_letters),
      field({"dead_letters", "bigint", Read::AsIs, "dead_letters"}, &Row::dead_letters),
      field({"counted_at", "timestamp with time zone", Read::EpochUs, "counted_at_us"}, &Row::counted_at_us));
};
struct TenantQueueRows {
  static constexpr bool rows = true;
  using Row = TenantQueue;
  static constexpr auto fields =
      std::make_tuple(field({"tenant", "text", Read::AsIs, "tenant"}, &Row::tenant),
                      field({"queue_name", "text", Read::AsIs, "queue_name"}, &Row::queue, OnNull::Refused));
};
struct PartitionSeekRows {
  static constexpr bool rows = true;
  using Row = PartitionSeek;
  static constexpr auto fields = std::make_tuple(
      field({"partition_found", "boolean", Read::AsIs, "partition_found"}, &Row::partition_found),
      field({"cursor_moved_to", "timestamp with time zone", Read::EpochUs, "cursor_moved_to_us"},
            &Row::cursor_moved_to_us));
};
struct KvRows {
  static constexpr bool rows = true;
  using Row = KvEntry;
  static constexpr auto fields = std::make_tuple(
      field({"value", "jsonb", Read::AsText, "value_json"}, &Row::value_json, OnNull::JsonNull),
      field({"expires_at", "timestamp with time zone", Read::EpochUs, "expires_at_us"}, &Row::expires_at_us));
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
  X(PushWithDedup, "push_with_dedup", PushRows, Jsonb, Text, TenantName, Jsonb)                                  \
  X(DedupKeys, "dedup_keys", DedupKeyRows, Uuid, Int8, Int8, Int, TenantName)                                    \
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
  X(AnalyzeGrownTables, "analyze_grown_tables", Json, Int8)                                                      \
  /* Statistics (StatsDb, docs/operations-stats.md). */                                                          \
  X(RefreshStats, "refresh_stats", Json, Int, Int)                                                               \
  X(RecordBrokerMinute, "record_broker_minute", Void, Text, Jsonb)                                               \
  X(MetricsSnapshot, "metrics_snapshot", Json, Int)                                                              \
  /* Message administration (docs/procedures.md). */                                                              \
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
  V(AnalyticsRetention, "analytics_retention", "/api/v1/analytics/retention", ReadOnly, "from,to,queue", 0, false)  \
  V(AnalyticsDeadLetterErrors, "analytics_dead_letter_errors", "/api/v1/analytics/dead-letter-errors", ReadOnly,     \
    "from,to,queue", 50, false)

template <typename Result, typename... Args>
struct Signature {
  using result = Result;
  using arguments = std::tuple<typename Args::param...>;
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

// What Procedures::call answers for entry P: a table result's rows, a scalar
// result's `answer`.
template <typename R, bool = R::rows>
struct answer_of {
  using type = std::vector<typename R::Row>;
};
template <typename R>
struct answer_of<R, false> {
  using type = typename R::answer;
};
template <typename P>
using Answer = typename answer_of<typename P::result>::type;
// What Procedures::call takes for entry P: each argument's `param`, in order.
template <typename P>
using Arguments = typename P::arguments;

// What the export and the registration read of an entry.
struct Entry {
  const char* name;  // the C++ name of the entry (call<name>)
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

// API procedures of schema queen that no entry names: a DBA calls them
// (queen_admin), the broker never does, so queen_broker may not execute them.
const std::vector<const char*>& sql_admin_procedures();

// The table of docs/procedures.md ("Every procedure the broker calls"):
// each entry's function, C++ name, arguments, result and, for a view, its
// route and access, as Markdown (tests/unit/db/catalogue_doc_test.cpp).
std::string procedures_markdown();

// The catalogue as JSON (queen-broker --catalogue), for the conformance test:
// {"entries": [{function, statement, sql, args, returns, columns}], "views": [...],
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
