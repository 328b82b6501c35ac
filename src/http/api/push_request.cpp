#include "http/api/push_request.h"

#include <nlohmann/json.hpp>

#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"
#include "util/iso8601.h"
#include "util/json_text.h"
#include "util/uuid.h"

namespace queen::http {
namespace {

using nlohmann::json;
using util::append_json_string;
using util::append_json_string_or_null;

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
  if (payload != item.end()) out.payload_json = dump_json(*payload);
  out.namespace_name = lenient_name_field(item, "namespace", "Namespace", limits);
  out.task = lenient_name_field(item, "task", "Task", limits);
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

}  // namespace queen::http
