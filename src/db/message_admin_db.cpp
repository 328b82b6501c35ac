// Database: the message administration calls (docs/procedures.md, "Traces",
// "Message administration", "DLQ administration"). One procedure call each.
#include <pqxx/pqxx>

#include "db/database.h"
#include "db/row_decode.h"
#include "db/statements.h"
#include "util/assert.h"

namespace queen::db {

using namespace statement;

namespace {

std::string json_or(const pqxx::result& r, const char* fallback) {
  return first_value<std::string>(r, "result_json").value_or(fallback);
}

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
  return runner_.run("record_trace", [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(
        tx.exec_prepared(kRecordTrace, t.partition_id, t.transaction_id, t.data_json, t.trace_names_json,
                         t.event_type, t.consumer_group, t.worker_id, t.tenant),
        "trace_id");
  });
}

std::string Database::message_traces(const std::string& partition_id, const std::string& transaction_id,
                                     const std::string& tenant) {
  return runner_.run("message_traces_of", [&](pqxx::nontransaction& tx) {
    return json_or(tx.exec_prepared(kMessageTraces, partition_id, transaction_id, tenant), "{\"traces\":[]}");
  });
}

TracesByName Database::traces_by_name(const std::string& trace_name, int limit, int offset,
                                      const std::string& tenant, std::int64_t max_payload_bytes) {
  return runner_.run("traces_by_name", [&](pqxx::nontransaction& tx) {
    const pqxx::result r = tx.exec_prepared(kTracesByName, trace_name, limit, offset, tenant, max_payload_bytes);
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

std::string Database::trace_names(int limit, int offset, const std::string& tenant) {
  return runner_.run("trace_names", [&](pqxx::nontransaction& tx) {
    return json_or(tx.exec_prepared(kTraceNames, limit, offset, tenant), "{}");
  });
}

std::string Database::list_messages(const MessageListQuery& q) {
  QUEEN_ASSERT(q.limit >= 1 && q.offset >= 0, "the HTTP layer clamps limit and offset");
  return runner_.run("list_messages", [&](pqxx::nontransaction& tx) {
    return json_or(tx.exec_prepared(kListMessages, q.queue, q.partition, q.namespace_name, q.task, q.status,
                                    q.from_ms, q.to_ms, q.limit, q.offset, q.tenant),
                   "{}");
  });
}

std::optional<ObjectWithPayload> Database::get_message(const std::string& partition_id,
                                                       const std::string& transaction_id, const std::string& tenant) {
  return runner_.run("get_message", [&](pqxx::nontransaction& tx) -> std::optional<ObjectWithPayload> {
    const pqxx::result r = tx.exec_prepared(kGetMessage, partition_id, transaction_id, tenant);
    if (r.empty()) return std::nullopt;
    return object_with_payload(r, r[0]);
  });
}

bool Database::delete_message(const std::string& partition_id, const std::string& transaction_id,
                              const std::string& tenant) {
  return runner_.run("delete_message", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(tx.exec_prepared(kDeleteMessage, partition_id, transaction_id, tenant), "found")
        .value_or(false);
  });
}

std::optional<std::int64_t> Database::clear_queue(const std::string& queue, const std::optional<std::string>& partition,
                                                  const std::string& tenant) {
  return runner_.run("clear_queue", [&](pqxx::nontransaction& tx) {
    return first_value<std::int64_t>(tx.exec_prepared(kClearQueue, queue, partition, tenant), "deleted");
  });
}

std::string Database::list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                                      const std::string& tenant) {
  return runner_.run("list_partitions", [&](pqxx::nontransaction& tx) {
    return json_or(tx.exec_prepared(kListPartitions, queue, limit, offset, tenant), "{\"partitions\":[]}");
  });
}

bool Database::dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                                   const std::optional<std::string>& consumer_group,
                                   const std::optional<std::string>& error, const std::string& tenant) {
  return runner_.run("dead_letter_message", [&](pqxx::nontransaction& tx) {
    return first_value<bool>(
               tx.exec_prepared(kDeadLetterMessage, partition_id, transaction_id, consumer_group, error, tenant),
               "found")
        .value_or(false);
  });
}

std::string Database::requeue_dead_letters(const DlqSelection& s) {
  return runner_.run("requeue_dead_letters", [&](pqxx::nontransaction& tx) {
    return json_or(tx.exec_prepared(kRequeueDeadLetters, s.queue, s.consumer_group, s.partition, s.failed_from_ms,
                                    s.failed_to_ms, s.message_id, s.tenant),
                   "{\"requeued\":0,\"queues\":[]}");
  });
}

int Database::delete_dead_letters(const DlqSelection& s) {
  return runner_.run("delete_dead_letters", [&](pqxx::nontransaction& tx) {
    return first_value<int>(tx.exec_prepared(kDeleteDeadLetters, s.queue, s.consumer_group, s.partition,
                                             s.failed_from_ms, s.failed_to_ms, s.message_id, s.tenant),
                            "deleted")
        .value_or(0);
  });
}

std::optional<std::string> Database::retry_dead_message(const std::string& partition_id,
                                                        const std::string& transaction_id, const std::string& tenant) {
  return runner_.run("retry_dead_message", [&](pqxx::nontransaction& tx) {
    return first_value<std::string>(tx.exec_prepared(kRetryDeadMessage, partition_id, transaction_id, tenant),
                                    "result_json");
  });
}

}  // namespace queen::db
