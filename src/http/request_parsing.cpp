#include "http/request_parsing.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "http/input_limits.h"
#include "http/json_body.h"
#include "http/query.h"
#include "util/iso8601.h"
#include "util/uuid.h"

namespace queen::http {
namespace {

using nlohmann::json;

std::optional<std::string> optional_string(const json& object, const char* name) {
  const json* f = present_field(object, name);
  if (!f || !f->is_string()) return std::nullopt;
  return f->get<std::string>();
}

// A string field checked as a name (input_limits.h) when present.
std::optional<std::string> optional_name(const json& object, const char* name, const char* label,
                                         const config::LimitsConfig& limits) {
  std::optional<std::string> value = optional_string(object, name);
  if (value) check_name(*value, label, limits);
  return value;
}

std::optional<std::string> non_empty(std::optional<std::string> value) {
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

// A consumer group named __QUEUE_MODE__ is queue mode, like an absent one.
std::optional<std::string> normalize_group(std::optional<std::string> group) {
  group = non_empty(std::move(group));
  if (group && *group == broker::kQueueModeGroup) return std::nullopt;
  return group;
}

// deliverAt: epoch milliseconds (a non-negative JSON integer or a string of
// digits) or an ISO-8601 string; normalized to epoch ms.
std::int64_t parse_deliver_at(const json& value) {
  std::optional<std::int64_t> epoch_ms;
  if (value.is_number_unsigned() || value.is_number_integer()) {
    const std::int64_t number = value.get<std::int64_t>();
    if (number >= 0 && number <= util::kMaxEpochMillis) epoch_ms = number;
  } else if (value.is_string()) {
    epoch_ms = util::parse_epoch_or_iso8601_millis(value.get_ref<const std::string&>());
  }
  if (!epoch_ms) throw HttpError(400, "deliverAt must be an ISO-8601 timestamp or epoch milliseconds");
  return *epoch_ms;
}

}  // namespace

broker::PushItem parse_push_item(const json& item, const config::LimitsConfig& limits) {
  if (!item.is_object()) throw HttpError(400, "Queue must be a string");
  broker::PushItem out;
  const json* queue = present_field(item, "queue");
  if (!queue || !queue->is_string()) throw HttpError(400, "Queue must be a string");
  out.queue = queue->get<std::string>();
  if (out.queue.empty()) throw HttpError(400, "Queue must be a non-empty string");
  check_name(out.queue, "Queue", limits);

  if (const json* partition = present_field(item, "partition")) {
    if (!partition->is_string()) throw HttpError(400, "Partition must be a string");
    check_name(partition->get_ref<const std::string&>(), "Partition", limits);
    if (!partition->get_ref<const std::string&>().empty()) out.partition = partition->get<std::string>();
  }
  if (const json* txid = present_field(item, "transactionId")) {
    if (!txid->is_string()) throw HttpError(400, "TransactionId must be a string");
    out.transaction_id = txid->get<std::string>();
    check_name(out.transaction_id, "TransactionId", limits);
  }
  if (const json* trace = present_field(item, "traceId")) {
    if (!trace->is_string()) throw HttpError(400, "TraceId must be a string");
    const auto& text = trace->get_ref<const std::string&>();
    if (!text.empty()) {
      if (!util::is_uuid(text)) throw HttpError(400, "TraceId must be a valid UUID");
      out.trace_id = text;
    }
  }
  // Absent payload is {}; an explicit null payload is stored as null.
  auto payload = item.find("payload");
  if (payload != item.end()) out.payload_json = dump(*payload);
  out.namespace_name = optional_name(item, "namespace", "Namespace", limits);
  out.task = optional_name(item, "task", "Task", limits);
  if (const json* deliver_at = present_field(item, "deliverAt")) out.deliver_at_ms = parse_deliver_at(*deliver_at);
  return out;
}

std::vector<broker::PushItem> parse_push_items(const json& items, const config::LimitsConfig& limits) {
  std::vector<broker::PushItem> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    try {
      out.push_back(parse_push_item(item, limits));
    } catch (const HttpError& e) {
      throw HttpError(e.status(), "push item " + std::to_string(out.size()) + ": " + e.what());
    }
  }
  return out;
}

namespace {

broker::AckItem parse_ack_fields(const json& object, const char* missing_txid, const char* missing_partition,
                                 const char* bad_partition, const config::LimitsConfig& limits) {
  broker::AckItem item;
  const json* txid = present_field(object, "transactionId");
  if (!txid || !txid->is_string() || txid->get_ref<const std::string&>().empty()) throw HttpError(400, missing_txid);
  item.transaction_id = txid->get<std::string>();
  check_name(item.transaction_id, "transactionId", limits);
  const json* partition = present_field(object, "partitionId");
  if (!partition || !partition->is_string() || partition->get_ref<const std::string&>().empty()) {
    throw HttpError(400, missing_partition);
  }
  item.partition_id = partition->get<std::string>();
  if (!util::is_uuid(item.partition_id)) throw HttpError(400, bad_partition);
  item.lease_id = non_empty(optional_name(object, "leaseId", "leaseId", limits));
  if (const json* status = present_field(object, "status")) {
    if (!status->is_string()) throw HttpError(400, "status must be a string");
    item.status = non_empty(status->get<std::string>());
  }
  if (const json* error = present_field(object, "error")) {
    item.error = error->is_string() ? error->get<std::string>() : dump(*error);
  }
  return item;
}

}  // namespace

std::vector<broker::PushItem> parse_push_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  const json* items = doc.is_object() ? present_field(doc, "items") : nullptr;
  if (!items || !items->is_array()) throw HttpError(400, "items array is required");
  check_push_item_count(items->size(), limits);
  return parse_push_items(*items, limits);
}

void check_push_item_count(std::size_t items, const config::LimitsConfig& limits) {
  if (items > static_cast<std::size_t>(limits.push_max_items)) {
    throw HttpError(400, "push with more than " + std::to_string(limits.push_max_items) + " items (PUSH_MAX_ITEMS)");
  }
}

AckRequest parse_ack_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "transactionId is required");
  AckRequest out;
  out.items.push_back(parse_ack_fields(doc, "transactionId is required",
                                       "partitionId is required to ensure message uniqueness",
                                       "partitionId must be a valid UUID", limits));
  out.consumer_group = normalize_group(optional_name(doc, "consumerGroup", "consumerGroup", limits));
  return out;
}

AckRequest parse_ack_batch_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  const json* acks = doc.is_object() ? present_field(doc, "acknowledgments") : nullptr;
  if (!acks || !acks->is_array()) throw HttpError(400, "acknowledgments array is required");
  AckRequest out;
  out.items.reserve(acks->size());
  for (const auto& ack : *acks) {
    if (!ack.is_object()) throw HttpError(400, "Each acknowledgment must have a valid transactionId string");
    out.items.push_back(
        parse_ack_fields(ack, "Each acknowledgment must have a valid transactionId string",
                         "Each acknowledgment must have a valid partitionId string to ensure message uniqueness",
                         "Each acknowledgment must have a valid partitionId string to ensure message uniqueness",
                         limits));
  }
  // The group comes from the top level only; per-item values are ignored.
  out.consumer_group = normalize_group(optional_name(doc, "consumerGroup", "consumerGroup", limits));
  return out;
}

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
  q.consumer_group = normalize_group(query_name(request.query, "consumerGroup", limits));
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

int parse_lease_seconds(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Optional, limits);
  if (!doc.is_object()) throw HttpError(400, "Request body must be a JSON object");
  const json* seconds = present_field(doc, "seconds");
  if (!seconds) return 60;
  if (!seconds->is_number_integer() || seconds->get<std::int64_t>() < 1 ||
      seconds->get<std::int64_t>() > 86400 * 365) {
    throw HttpError(400, "seconds must be a positive integer");
  }
  return seconds->get<int>();
}

ConfigureRequest parse_configure_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "queue is required");
  ConfigureRequest out;
  const json* queue = present_field(doc, "queue");
  if (!queue || !queue->is_string() || queue->get_ref<const std::string&>().empty()) {
    throw HttpError(400, "queue is required");
  }
  out.queue = queue->get<std::string>();
  check_name(out.queue, "queue", limits);
  out.namespace_name = optional_name(doc, "namespace", "namespace", limits).value_or("");
  out.task = optional_name(doc, "task", "task", limits).value_or("");
  if (const json* options = present_field(doc, "options")) {
    if (!options->is_object()) throw HttpError(400, "options must be an object");
    out.options_json = dump(*options);
  }
  return out;
}

bool parse_enabled_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  const json* enabled = doc.is_object() ? present_field(doc, "enabled") : nullptr;
  if (!enabled || !enabled->is_boolean()) throw HttpError(400, "enabled (boolean) is required");
  return enabled->get<bool>();
}

}  // namespace queen::http
