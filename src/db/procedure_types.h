#pragma once
// The values of the database API (docs/procedures.md): the arguments the
// procedures take as structs and the rows they answer, as the catalogue
// (db/catalogue.h) decodes them. Plain structs: no libpqxx.
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/config.h"
#include "tenant/tenant.h"

namespace queen::db {

// The consumer group of queue mode (no group), as the procedures and the wire spell it.
inline constexpr const char* kQueueModeGroup = "__QUEUE_MODE__";

// Who pushes: the tenant whose queues receive the items and the producer subject stamped on the messages (the token's
// `sub`; none without authentication). One push_messages call has one origin.
struct PushOrigin {
  Tenant tenant;
  std::optional<std::string> producer_sub;
};

inline auto fields_of(const PushOrigin& o) {
  const auto& [tenant, producer_sub] = o;
  return std::tie(tenant, producer_sub);
}
inline bool operator==(const PushOrigin& a, const PushOrigin& b) { return fields_of(a) == fields_of(b); }
inline bool operator!=(const PushOrigin& a, const PushOrigin& b) { return !(a == b); }

struct ConfiguredQueue {
  std::string result_json;  // {"queueId","partitionId","namespace","task","options":{...}}
};

struct PushRow {
  int idx = 0;             // position in the items array of the call
  std::string status;      // queued | duplicate | failed
  std::optional<std::string> message_id;
  std::string transaction_id;
  std::optional<std::string> partition_id;
  std::string queue_name;
  std::string partition_name;
  std::optional<std::string> error;
  std::optional<std::int64_t> seq;  // queued by a store: the message's position in its partition
};

// One transaction id a partition holds (queen.dedup_keys): seq null for a
// dedup tombstone of a database upgraded from 1.1.0.
struct DedupKeyRow {
  std::optional<std::int64_t> seq;
  std::string transaction_id;
};

// The fields are in the order of queen.pop_messages' parameters (after
// pop_many's count), so a call passes fields_of(request) as they are.
struct PopRequest {
  explicit PopRequest(Tenant of) : tenant(std::move(of)) {}

  std::optional<std::string> queue;       // null: filter pop by namespace/task
  std::optional<std::string> partition;   // null: any partition of `queue`
  std::optional<std::string> consumer_group;  // null: queue mode
  int batch = config::Config::defaults().pop.default_batch_size;  // DEFAULT_BATCH_SIZE
  int partitions = 1;
  bool auto_ack = false;
  std::optional<std::string> subscription_mode;
  std::optional<std::string> subscription_from;
  std::optional<std::string> namespace_name;
  std::optional<std::string> task;
  Tenant tenant;                          // only this tenant's queues are seen
};

// Every field of a request, as a tuple of references. The structured binding
// names each field: a field added to the struct and not here fails to
// compile, so the equality below (by which the pop combiner merges requests)
// cannot miss one.
inline auto fields_of(const PopRequest& r) {
  const auto& [queue, partition, consumer_group, batch, partitions, auto_ack, subscription_mode, subscription_from,
               namespace_name, task, tenant] = r;
  return std::tie(queue, partition, consumer_group, batch, partitions, auto_ack, subscription_mode,
                  subscription_from, namespace_name, task, tenant);
}
inline bool operator==(const PopRequest& a, const PopRequest& b) { return fields_of(a) == fields_of(b); }
inline bool operator!=(const PopRequest& a, const PopRequest& b) { return !(a == b); }

struct PoppedMessage {
  std::optional<std::string> lease_id;  // null with autoAck
  std::string queue_name;
  std::string partition_name;
  std::string partition_id;
  std::string message_id;
  std::string transaction_id;
  std::optional<std::string> trace_id;
  std::string payload_json;
  std::optional<std::string> producer_sub;
  bool is_encrypted = false;
  std::int64_t created_at_us = 0;  // microseconds since the Unix epoch
  int retry_count = 0;
};

struct AckRow {
  int idx = 0;
  std::string transaction_id;
  bool success = false;
  std::optional<std::string> error;
  std::optional<std::string> queue_name;
  std::optional<std::string> partition_name;
  bool lease_released = false;
  bool dlq = false;
};

// A row of a combined call (queen.pop_many, queen.ack_many): which request of
// the call it answers (0-based), and the row the lone procedure would return.
template <class Row>
struct CombinedRow {
  int request_idx = 0;
  Row row;
};
using CombinedPopRow = CombinedRow<PoppedMessage>;
using CombinedAckRow = CombinedRow<AckRow>;  // row.idx: the item within its request

struct LeaseExtension {
  bool success = false;
  std::optional<std::int64_t> expires_at_us;
  std::optional<std::string> error;
};

// The dead letters a listing, a requeue or a delete is about (null = any).
struct DlqFilter {
  explicit DlqFilter(Tenant of) : tenant(std::move(of)) {}

  Tenant tenant;  // only this tenant's dead letters
  std::optional<std::string> queue;
  std::optional<std::string> consumer_group;  // kQueueModeGroup selects queue-mode entries
  std::optional<std::string> partition;
  std::optional<std::int64_t> failed_from_ms;  // failed_at >= this (epoch ms), inclusive
  std::optional<std::int64_t> failed_to_ms;    // failed_at <= this (epoch ms), inclusive
};

// queen.list_dlq: the filter and a page.
struct DlqQuery : DlqFilter {
  using DlqFilter::DlqFilter;

  int limit = 100;  // >= 1
  int offset = 0;   // >= 0
  // Payload bytes of the page (later rows: payload omitted): QUEEN_LIST_MAX_PAYLOAD_BYTES.
  std::int64_t max_payload_bytes = config::Config::defaults().limits.list_max_payload_bytes;
};

struct DlqEntry {
  std::string message_id;
  std::string transaction_id;
  std::string partition_id;
  std::string queue_name;
  std::string partition_name;
  std::string consumer_group;
  std::optional<std::string> error_message;
  int retry_count = 0;
  std::string payload_json;  // as stored (an encryption envelope when is_encrypted); null when omitted
  bool payload_omitted = false;  // past the page's payload byte budget
  bool is_encrypted = false;
  std::optional<std::string> producer_sub;
  std::optional<std::string> trace_id;
  std::int64_t created_at_us = 0;  // the message's creation, microseconds since the Unix epoch
  std::int64_t failed_at_us = 0;
};

// A row of queen.list_dlq: an entry and the total every row repeats.
struct DlqRow {
  DlqEntry entry;
  std::int64_t total = 0;
};

struct DlqPage {
  std::vector<DlqEntry> entries;  // newest failure first
  std::int64_t total = 0;         // matching entries before paging
};

// --- Message administration: traces, messages, DLQ requeue/delete
// (docs/procedures.md "Traces", "Message administration", "DLQ administration").

// queen.record_trace arguments. data_json: any JSON value; trace_names_json: a JSON array of names.
struct TraceRecord {
  explicit TraceRecord(Tenant of) : tenant(std::move(of)) {}

  Tenant tenant;
  std::string partition_id;  // canonical UUID text
  std::string transaction_id;
  std::string data_json;
  std::string trace_names_json = "[]";
  std::string event_type = "info";
  std::string consumer_group = kQueueModeGroup;
  std::optional<std::string> worker_id;
};

// queen.list_messages filters (null = any; from/to default to the last hour).
struct MessageListQuery {
  explicit MessageListQuery(Tenant of) : tenant(std::move(of)) {}

  Tenant tenant;
  std::optional<std::string> queue;
  std::optional<std::string> partition;
  std::optional<std::string> namespace_name;
  std::optional<std::string> task;
  std::optional<std::string> status;      // pending | processing | completed | dead_letter
  std::optional<std::int64_t> from_ms;    // created_at >= this (epoch ms)
  std::optional<std::int64_t> to_ms;      // created_at <= this (epoch ms)
  int limit = 200;                        // >= 1
  int offset = 0;                         // >= 0
};

// The DLQ entries a requeue or delete acts on: the listing's filter, or one dead message.
struct DlqSelection : DlqFilter {
  using DlqFilter::DlqFilter;

  std::optional<std::string> message_id;  // canonical UUID text
};

// A JSON object (fields_json, without `payload_key`) and a payload kept apart
// from it, as stored: the broker decrypts it, the HTTP layer splices it in as
// text (never re-parsed, docs/limits.md).
struct ObjectWithPayload {
  std::string fields_json;   // a JSON object
  std::string payload_json;  // JSON text; an encryption envelope when is_encrypted
  bool is_encrypted = false;
};

// queen.traces_by_name, each trace's message payload apart.
struct TracesByName {
  std::string envelope_json;  // {"total", "pagination"}
  std::vector<ObjectWithPayload> traces;  // newest first; payload = message_payload
};

// A queue as the tenant that owns it sees it.
struct TenantQueue {
  Tenant tenant = Tenant::default_tenant();  // a decoded row sets it (RowDecoder makes rows before filling them)
  std::string queue;
};

// queen.tenant_quota_state: a DBA's overrides (empty = the broker default)
// and the tenant's pending messages and dead letters as the statistics
// reconciler counted them.
struct TenantQuotaState {
  std::optional<std::int64_t> max_pending;
  std::optional<double> push_rate;
  std::optional<int> push_burst;
  std::optional<std::int64_t> max_dead_letters;
  std::int64_t pending = 0;
  std::int64_t dead_letters = 0;
  std::optional<std::int64_t> counted_at_us;  // newest stats refresh among the tenant's queues
};

struct PoolStats {
  int size = 0;     // configured maximum
  int open = 0;     // connections open or being opened
  int idle = 0;     // open and free
  int in_use = 0;   // lent to a caller
  int waiting = 0;  // callers waiting for a connection
};

}  // namespace queen::db
