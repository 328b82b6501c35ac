#include "http/api/pop_request.h"

#include <algorithm>
#include <set>

#include "http/api/consumer_groups_request.h"
#include "http/transport/input_limits.h"
#include "http/transport/query.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace queen::http {

using util::append_json_string;
using util::append_json_string_or_null;

broker::PopCommand parse_pop_request(PopForm form, const Request& request, const config::PopConfig& pop,
                                     const config::LimitsConfig& limits) {
  broker::PopCommand command{db::PopRequest(request.principal.tenant), false, 0};
  db::PopRequest& q = command.query;
  if (form == PopForm::Filter) {
    q.namespace_name = query_name(request.query, "namespace", limits);
    q.task = query_name(request.query, "task", limits);
    if (!q.namespace_name && !q.task) throw HttpError(400, "namespace or task is required");
  } else {
    q.queue = request.param("queue");
    if (q.queue->empty()) throw HttpError(400, "queue is required");
    check_name(*q.queue, "queue", limits);
    if (form == PopForm::Specific) {
      q.partition = request.param("partition");
      if (q.partition->empty()) throw HttpError(400, "partition is required");
      check_name(*q.partition, "partition", limits);
    }
  }
  const std::int64_t batch = query_int(request.query, "batch", pop.default_batch_size);
  q.batch = static_cast<int>(std::clamp<std::int64_t>(batch, 1, pop.max_batch_size));
  if (form == PopForm::Specific) {
    q.partitions = 1;  // silently 1 on the specific-partition path
  } else {
    q.partitions = static_cast<int>(std::clamp<std::int64_t>(query_int(request.query, "partitions", 1), 1,
                                                             pop.max_partitions));
  }
  q.consumer_group = named_consumer_group(query_name(request.query, "consumerGroup", limits));
  q.auto_ack = query_bool(request.query, "autoAck", false);
  q.subscription_mode = query_name(request.query, "subscriptionMode", limits);
  if (!q.subscription_mode && !pop.default_subscription_mode.empty()) {
    q.subscription_mode = pop.default_subscription_mode;
  }
  q.subscription_from = query_name(request.query, "subscriptionFrom", limits);
  command.wait = query_bool(request.query, "wait", false);
  command.timeout_ms = std::clamp<std::int64_t>(query_int(request.query, "timeout", pop.default_timeout_ms), 0,
                                                pop.max_timeout_ms);
  return command;
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

}  // namespace queen::http
