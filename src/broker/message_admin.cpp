// Broker use cases of message administration (docs/api-extensions.md): traces,
// the message list/detail/delete, queue clearing, partitions and the DLQ
// requeue/delete. Each is one procedure call (the reads through the Read
// lane, docs/flow-control.md); this file adds what the database cannot do: decrypting payloads and waking the pops of the queues
// that received requeued messages.
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "broker/broker.h"

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

std::set<std::string> queue_names(const nlohmann::json& result) {
  std::set<std::string> names;
  if (result.contains("queues") && result["queues"].is_array()) {
    for (const auto& q : result["queues"]) {
      if (q.is_string()) names.insert(q.get<std::string>());
    }
  }
  return names;
}

}  // namespace

std::optional<std::string> Broker::record_trace(const TraceRecord& trace) {
  try {
    return db_.record_trace(trace);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

std::string Broker::message_traces(const std::string& partition_id, const std::string& transaction_id,
                                   const Tenant& tenant) {
  try {
    return reads_.run([&] { return db_.message_traces(partition_id, transaction_id, tenant); });
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

db::TracesByName Broker::traces_by_name(const std::string& trace_name, int limit, int offset,
                                        const Tenant& tenant, std::int64_t max_payload_bytes) {
  db::TracesByName page;
  try {
    page = reads_.run([&] { return db_.traces_by_name(trace_name, limit, offset, tenant, max_payload_bytes); });
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  for (auto& trace : page.traces) open_in_place(encryption_, trace);
  return page;
}

std::string Broker::trace_names(int limit, int offset, const Tenant& tenant) {
  try {
    return reads_.run([&] { return db_.trace_names(limit, offset, tenant); });
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

std::string Broker::list_messages(const MessageListQuery& query) {
  try {
    return reads_.run([&] { return db_.list_messages(query); });
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

std::optional<db::ObjectWithPayload> Broker::get_message(const std::string& partition_id,
                                                         const std::string& transaction_id,
                                                         const Tenant& tenant) {
  std::optional<db::ObjectWithPayload> message;
  try {
    message = reads_.run([&] { return db_.get_message(partition_id, transaction_id, tenant); });
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  if (message) open_in_place(encryption_, *message);
  return message;
}

bool Broker::delete_message(const std::string& partition_id, const std::string& transaction_id,
                            const Tenant& tenant) {
  try {
    return db_.delete_message(partition_id, transaction_id, tenant);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

std::optional<std::int64_t> Broker::clear_queue(const std::string& queue, const std::optional<std::string>& partition,
                                                const Tenant& tenant) {
  std::optional<std::int64_t> deleted;
  try {
    deleted = db_.clear_queue(queue, partition, tenant);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  if (deleted) spdlog::info("queue {} cleared{}{}: {} message(s) deleted", queue, partition ? ", partition " : "",
                            partition.value_or(""), *deleted);
  return deleted;
}

std::string Broker::list_partitions(const std::optional<std::string>& queue, int limit, int offset,
                                    const Tenant& tenant) {
  try {
    return reads_.run([&] { return db_.list_partitions(queue, limit, offset, tenant); });
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

bool Broker::dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                                 const std::optional<std::string>& consumer_group,
                                 const std::optional<std::string>& error, const Tenant& tenant) {
  if (std::optional<QuotaRefusal> refusal = quotas_.admit_dead_letters(tenant, 1)) {
    throw BrokerError(ErrorKind::TooManyRequests, refusal->error, refusal->retry_after_s);
  }
  try {
    const bool moved = db_.dead_letter_message(partition_id, transaction_id, consumer_group, error, tenant);
    if (moved) quotas_.note_dead_lettered(tenant, 1);
    return moved;
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

int Broker::requeue_dead_letters(const DlqSelection& selection) {
  std::string result;
  try {
    result = db_.requeue_dead_letters(selection);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  const nlohmann::json body = nlohmann::json::parse(result);
  const std::set<std::string> queues = queue_names(body);
  if (!queues.empty()) after_push_committed(queues);
  return body.value("requeued", 0);
}

int Broker::delete_dead_letters(const DlqSelection& selection) {
  try {
    return db_.delete_dead_letters(selection);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

std::optional<std::string> Broker::retry_dead_message(const std::string& partition_id,
                                                      const std::string& transaction_id, const Tenant& tenant) {
  std::optional<std::string> result;
  try {
    result = db_.retry_dead_message(partition_id, transaction_id, tenant);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  if (!result) return std::nullopt;
  const nlohmann::json body = nlohmann::json::parse(*result);
  const std::set<std::string> queues = queue_names(body);
  if (!queues.empty()) after_push_committed(queues);
  return body.value("messageId", std::string());
}

}  // namespace queen::broker
