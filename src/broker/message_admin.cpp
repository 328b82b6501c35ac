#include "broker/message_admin.h"

#include <spdlog/spdlog.h>

#include "broker/broker_error.h"

namespace queen::broker {
namespace {

// An encrypted payload opened in place; one that cannot be opened stays as
// stored (an envelope), like a DLQ entry (docs/encryption.md).
void open_in_place(const PayloadEncryption& encryption, db::ObjectWithPayload& object) {
  if (!object.is_encrypted) return;
  if (std::optional<std::string> plain = encryption.open_payload(object.payload_json)) {
    object.payload_json = std::move(*plain);
  } else {
    spdlog::debug("encryption: a message payload is shown as stored: it cannot be decrypted here");
  }
}

}  // namespace

std::optional<std::string> MessageAdmin::record_trace(const TraceRecord& trace) {
  return translating_db_failures(metrics_, [&] { return db_.record_trace(trace); });
}

std::string MessageAdmin::message_traces(const std::string& partition_id, const std::string& transaction_id,
                                         const Tenant& tenant) {
  return read([&] { return db_.message_traces(partition_id, transaction_id, tenant); });
}

db::TracesByName MessageAdmin::traces_by_name(const std::string& trace_name, int limit, int offset,
                                              const Tenant& tenant, std::int64_t max_payload_bytes) {
  db::TracesByName page =
      read([&] { return db_.traces_by_name(trace_name, limit, offset, tenant, max_payload_bytes); });
  for (auto& trace : page.traces) open_in_place(encryption_, trace);
  return page;
}

std::string MessageAdmin::trace_names(int limit, int offset, const Tenant& tenant) {
  return read([&] { return db_.trace_names(limit, offset, tenant); });
}

std::string MessageAdmin::list_messages(const MessageListQuery& query) {
  return read([&] { return db_.list_messages(query); });
}

std::optional<db::ObjectWithPayload> MessageAdmin::get_message(const std::string& partition_id,
                                                               const std::string& transaction_id,
                                                               const Tenant& tenant) {
  std::optional<db::ObjectWithPayload> message =
      read([&] { return db_.get_message(partition_id, transaction_id, tenant); });
  if (message) open_in_place(encryption_, *message);
  return message;
}

bool MessageAdmin::delete_message(const std::string& partition_id, const std::string& transaction_id,
                                  const Tenant& tenant) {
  return translating_db_failures(metrics_, [&] { return db_.delete_message(partition_id, transaction_id, tenant); });
}

std::optional<std::int64_t> MessageAdmin::clear_queue(const std::string& queue,
                                                      const std::optional<std::string>& partition,
                                                      const Tenant& tenant) {
  const std::optional<std::int64_t> deleted =
      translating_db_failures(metrics_, [&] { return db_.clear_queue(queue, partition, tenant); });
  if (deleted) spdlog::info("queue {} cleared{}{}: {} message(s) deleted", queue, partition ? ", partition " : "",
                            partition.value_or(""), *deleted);
  return deleted;
}

std::string MessageAdmin::list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                                          const Tenant& tenant) {
  return read([&] { return db_.list_partitions(queue, limit, offset, tenant); });
}

}  // namespace queen::broker
