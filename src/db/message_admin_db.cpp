// Database: the message administration calls (docs/procedures.md, "Traces",
// "Message administration", "DLQ administration"). One procedure call each.
#include <pqxx/pqxx>

#include "db/database.h"
#include "db/catalogue_calls.h"
#include "db/row_decode.h"
#include "util/assert.h"

namespace queen::db {

using namespace catalogue;

namespace {

// Columns fields_json, payload (JSON text, null = JSON null) and is_encrypted.
ObjectWithPayload object_with_payload(const pqxx::result& r, const pqxx::row& row) {
  ObjectWithPayload out;
  out.fields_json = row[column_number(r, "fields_json")].as<std::string>();
  out.payload_json = optional_text(row[column_number(r, "payload")]).value_or("null");
  const pqxx::field encrypted = row[column_number(r, "is_encrypted")];
  out.is_encrypted = !encrypted.is_null() && encrypted.as<bool>();
  return out;
}

}  // namespace

std::optional<std::string> Database::record_trace(const TraceRecord& t) {
  return call_first<RecordTrace>(runner_, t.partition_id, t.transaction_id, t.data_json, t.trace_names_json,
                                  t.event_type, t.consumer_group, t.worker_id, t.tenant);
}

std::string Database::message_traces(const std::string& partition_id, const std::string& transaction_id,
                                     const Tenant& tenant) {
  return call_first<MessageTracesOf>(runner_, partition_id, transaction_id, tenant).value_or("{\"traces\":[]}");
}

TracesByName Database::traces_by_name(const std::string& trace_name, int limit, int offset,
                                      const Tenant& tenant, std::int64_t max_payload_bytes) {
  return runner_.run("traces_by_name", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = exec<TracesNamed>(tx, trace_name, limit, offset, tenant, max_payload_bytes);
    const ColumnNumber envelope = column_number(r, "envelope_json");
    const ColumnNumber fields = column_number(r, "fields_json");
    TracesByName out;
    out.traces.reserve(r.size());
    for (const auto& row : r) {
      out.envelope_json = row[envelope].as<std::string>();
      if (row[fields].is_null()) continue;  // the one row of an empty page
      out.traces.push_back(object_with_payload(r, row));
    }
    return out;
  });
}

std::string Database::trace_names(int limit, int offset, const Tenant& tenant) {
  return call_first<TraceNames>(runner_, limit, offset, tenant).value_or("{}");
}

std::string Database::list_messages(const MessageListQuery& q) {
  QUEEN_ASSERT(q.limit >= 1 && q.offset >= 0, "the HTTP layer clamps limit and offset");
  return call_first<ListMessages>(runner_, q.queue, q.partition, q.namespace_name, q.task, q.status, q.from_ms,
                                   q.to_ms, q.limit, q.offset, q.tenant)
      .value_or("{}");
}

std::optional<ObjectWithPayload> Database::get_message(const std::string& partition_id,
                                                       const std::string& transaction_id, const Tenant& tenant) {
  return runner_.run("get_message", [&](pqxx::nontransaction& tx) -> std::optional<ObjectWithPayload> {
    const pqxx::result r = exec<GetMessage>(tx, partition_id, transaction_id, tenant);
    if (r.empty()) return std::nullopt;
    return object_with_payload(r, r[0]);
  });
}

bool Database::delete_message(const std::string& partition_id, const std::string& transaction_id,
                              const Tenant& tenant) {
  return call_first<DeleteMessage>(runner_, partition_id, transaction_id, tenant).value_or(false);
}

std::optional<std::int64_t> Database::clear_queue(const std::string& queue, const std::optional<std::string>& partition,
                                                  const Tenant& tenant) {
  return call_first<ClearQueue>(runner_, queue, partition, tenant);
}

std::string Database::list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                                      const Tenant& tenant) {
  return call_first<ListPartitions>(runner_, queue, limit, offset, tenant).value_or("{\"partitions\":[]}");
}

bool Database::dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                                   const std::optional<std::string>& consumer_group,
                                   const std::optional<std::string>& error, const Tenant& tenant) {
  return call_first<DeadLetterMessage>(runner_, partition_id, transaction_id,
                                        consumer_group.value_or(kQueueModeGroup),
                                        error.value_or("Moved to the DLQ by an operator"), tenant)
      .value_or(false);
}

std::string Database::requeue_dead_letters(const DlqSelection& s) {
  return call_first<RequeueDeadLetters>(runner_, s.queue, s.consumer_group, s.partition, s.failed_from_ms,
                                         s.failed_to_ms, s.message_id, s.tenant)
      .value_or("{\"requeued\":0,\"queues\":[]}");
}

int Database::delete_dead_letters(const DlqSelection& s) {
  return call_first<DeleteDeadLetters>(runner_, s.queue, s.consumer_group, s.partition, s.failed_from_ms,
                                        s.failed_to_ms, s.message_id, s.tenant)
      .value_or(0);
}

std::optional<std::string> Database::retry_dead_message(const std::string& partition_id,
                                                        const std::string& transaction_id, const Tenant& tenant) {
  return call_first<RetryDeadMessage>(runner_, partition_id, transaction_id, tenant);
}

}  // namespace queen::db
