#include "http/api/ack_request.h"

#include <nlohmann/json.hpp>

#include "http/api/consumer_groups_request.h"
#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"
#include "util/json_text.h"
#include "util/uuid.h"

namespace queen::http {
namespace {

using nlohmann::json;
using util::append_json_bool;
using util::append_json_string;
using util::append_json_string_or_null;

std::optional<std::string> non_empty(std::optional<std::string> value) {
  if (value && value->empty()) return std::nullopt;
  return value;
}

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
  item.lease_id = non_empty(lenient_name_field(object, "leaseId", "leaseId", limits));
  if (const json* status = present_field(object, "status")) {
    if (!status->is_string()) throw HttpError(400, "status must be a string");
    item.status = non_empty(status->get<std::string>());
  }
  if (const json* error = present_field(object, "error")) {
    item.error = error->is_string() ? error->get<std::string>() : dump_json(*error);
  }
  return item;
}

}  // namespace

AckRequest parse_ack_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "transactionId is required");
  AckRequest out;
  out.items.push_back(parse_ack_fields(doc, "transactionId is required",
                                       "partitionId is required to ensure message uniqueness",
                                       "partitionId must be a valid UUID", limits));
  out.consumer_group = named_consumer_group(lenient_name_field(doc, "consumerGroup", "consumerGroup", limits));
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
  out.consumer_group = named_consumer_group(lenient_name_field(doc, "consumerGroup", "consumerGroup", limits));
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
    append_json_bool(out, r.success);
    out += ",\"error\":";
    append_json_string_or_null(out, r.error);
    out += ",\"queueName\":";
    append_json_string_or_null(out, r.queue_name);
    out += ",\"partitionName\":";
    append_json_string_or_null(out, r.partition_name);
    out += ",\"leaseReleased\":";
    append_json_bool(out, r.lease_released);
    out += ",\"dlq\":";
    append_json_bool(out, r.dlq);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace queen::http
