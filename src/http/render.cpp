#include "http/render.h"

#include <set>

#include "util/json_text.h"
#include "util/time_format.h"

namespace queen::http {

using util::append_json_key;
using util::append_json_string;
using util::append_json_string_or_null;

namespace {

void append_bool(std::string& out, bool value) { out += value ? "true" : "false"; }

}  // namespace

std::string render_push_results(const std::vector<broker::PushItemResult>& results) {
  std::string out;
  out.reserve(results.size() * 420 + 2);
  out += '[';
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (i) out += ',';
    out += "{\"index\":";
    out += std::to_string(r.index);
    out += ",\"status\":";
    append_json_string(out, broker::to_string(r.status));
    out += ",\"transaction_id\":";
    append_json_string(out, r.transaction_id);
    out += ",\"transactionId\":";
    append_json_string(out, r.transaction_id);
    out += ",\"message_id\":";
    append_json_string_or_null(out, r.message_id);
    out += ",\"messageId\":";
    append_json_string_or_null(out, r.message_id);
    out += ",\"partition_id\":";
    append_json_string_or_null(out, r.partition_id);
    out += ",\"partitionId\":";
    append_json_string_or_null(out, r.partition_id);
    out += ",\"trace_id\":";
    append_json_string_or_null(out, r.trace_id);
    out += ",\"traceId\":";
    append_json_string_or_null(out, r.trace_id);
    out += ",\"queueName\":";
    append_json_string(out, r.queue);
    out += ",\"queue\":";
    append_json_string(out, r.queue);
    out += ",\"partition\":";
    append_json_string(out, r.partition);
    out += ",\"error\":";
    append_json_string_or_null(out, r.error);
    out += '}';
  }
  out += ']';
  return out;
}

std::string render_pop(const broker::PopOutcome& outcome) {
  const auto& messages = outcome.messages;
  std::string out;
  std::size_t payload_bytes = 0;
  for (const auto& m : messages) payload_bytes += m.payload_json.size();
  out.reserve(payload_bytes + messages.size() * 520 + 300);

  const db::PoppedMessage* first = messages.empty() ? nullptr : &messages.front();
  // With autoAck there is no lease: Queen's wire format has "" (top level and per message).
  const std::string lease_id = first && first->lease_id ? *first->lease_id : std::string();
  std::set<std::string> partitions;
  for (const auto& m : messages) partitions.insert(m.partition_id);

  out += "{\"success\":true,\"queue\":";
  append_json_string(out, first ? first->queue_name : std::string());
  out += ",\"partition\":";
  append_json_string(out, first ? first->partition_name : std::string());
  out += ",\"partitionId\":";
  append_json_string(out, first ? first->partition_id : std::string());
  out += ",\"leaseId\":";
  append_json_string(out, lease_id);
  out += ",\"consumerGroup\":";
  append_json_string(out, outcome.consumer_group);
  out += ",\"partitionsClaimed\":";
  out += std::to_string(partitions.size());
  out += ",\"messages\":[";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto& m = messages[i];
    if (i) out += ',';
    out += "{\"id\":";
    append_json_string(out, m.message_id);
    out += ",\"transactionId\":";
    append_json_string(out, m.transaction_id);
    out += ",\"traceId\":";
    append_json_string_or_null(out, m.trace_id);
    // Decrypted by the broker before rendering (docs/encryption.md).
    out += ",\"data\":";
    out += m.payload_json;
    out += ",\"producerSub\":";
    append_json_string_or_null(out, m.producer_sub);
    out += ",\"createdAt\":";
    append_json_string(out, util::format_iso8601_micros(m.created_at_us));
    out += ",\"partitionId\":";
    append_json_string(out, m.partition_id);
    out += ",\"partition\":";
    append_json_string(out, m.partition_name);
    out += ",\"leaseId\":";
    append_json_string(out, m.lease_id.value_or(std::string()));
    out += ",\"consumerGroup\":";
    append_json_string(out, outcome.consumer_group);
    out += ",\"queue\":";
    append_json_string(out, m.queue_name);
    out += ",\"retryCount\":";
    out += std::to_string(m.retry_count);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string render_ack_results(const std::vector<broker::AckResult>& results) {
  std::string out = "[";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (i) out += ',';
    out += "{\"index\":";
    out += std::to_string(r.idx);
    out += ",\"transactionId\":";
    append_json_string(out, r.transaction_id);
    out += ",\"success\":";
    append_bool(out, r.success);
    out += ",\"error\":";
    append_json_string_or_null(out, r.error);
    out += ",\"queueName\":";
    append_json_string_or_null(out, r.queue_name);
    out += ",\"partitionName\":";
    append_json_string_or_null(out, r.partition_name);
    out += ",\"leaseReleased\":";
    append_bool(out, r.lease_released);
    out += ",\"dlq\":";
    append_bool(out, r.dlq);
    out += '}';
  }
  out += ']';
  return out;
}

std::string render_lease_extension(const std::string& lease_id, const broker::LeaseExtension& extension) {
  std::optional<std::string> expires;
  if (extension.success && extension.expires_at_us) expires = util::format_iso8601_millis(*extension.expires_at_us);
  std::string out = "{";
  append_json_key(out, "leaseId");
  append_json_string(out, lease_id);
  out += ",\"success\":";
  append_bool(out, extension.success);
  out += ",\"newExpiresAt\":";
  append_json_string_or_null(out, expires);
  out += ",\"expiresAt\":";
  append_json_string_or_null(out, expires);
  out += ",\"error\":";
  append_json_string_or_null(out, extension.success ? std::nullopt : extension.error);
  out += '}';
  return out;
}

}  // namespace queen::http
