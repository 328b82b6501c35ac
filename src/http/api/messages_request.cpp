#include "http/api/messages_request.h"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"
#include "http/transport/query.h"
#include "util/uuid.h"

namespace queen::http {

using nlohmann::json;

std::optional<MessageKey> parse_message_key(const Request& request, const config::LimitsConfig& limits) {
  const std::string& partition_id = request.param("partitionId");
  const std::string& transaction_id = request.param("transactionId");
  if (!util::is_uuid(partition_id)) return std::nullopt;
  try {
    check_name(transaction_id, "transactionId", limits);
  } catch (const HttpError&) {
    return std::nullopt;  // no stored message has such a transactionId
  }
  return MessageKey{util::lowercase_uuid(partition_id), transaction_id};
}

broker::MessageListQuery parse_message_list_query(const Tenant& tenant, const QueryParams& query,
                                                  const config::LimitsConfig& limits) {
  broker::MessageListQuery q(tenant);
  q.queue = query_name(query, "queue", limits);
  q.partition = query_name(query, "partition", limits);
  q.namespace_name = query_name(query, "ns", limits);
  q.task = query_name(query, "task", limits);
  const auto status = query.find("status");
  if (status != query.end() && !status->second.empty()) {
    static const char* const kStatuses[] = {"pending", "processing", "completed", "dead_letter"};
    if (std::none_of(std::begin(kStatuses), std::end(kStatuses),
                     [&](const char* known) { return status->second == known; })) {
      throw HttpError(400, "status must be pending, processing, completed or dead_letter");
    }
    q.status = status->second;
  }
  q.from_ms = query_time_bound(query, "from");
  q.to_ms = query_time_bound(query, "to");
  const Page page = parse_page(query, 200, limits);
  q.limit = page.limit;
  q.offset = page.offset;
  return q;
}

DeadLetterRequest parse_dead_letter_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Optional, limits);
  if (!doc.is_object()) throw HttpError(400, "Request body must be a JSON object");
  DeadLetterRequest out;
  out.consumer_group = name_field(doc, "consumerGroup", limits);
  out.error = string_field(doc, "errorMessage");
  if (!out.error) out.error = string_field(doc, "error");
  return out;
}

std::string render_with_payload(const db::ObjectWithPayload& object, const char* payload_key) {
  std::string out;
  out.reserve(object.fields_json.size() + object.payload_json.size() + 32);
  out += "{\"";
  out += payload_key;
  out += "\":";
  out += object.payload_json;
  // fields_json is a non-empty object from PostgreSQL: "{...}"
  if (object.fields_json.size() > 2) out += ',';
  out.append(object.fields_json, 1, std::string::npos);
  return out;
}

}  // namespace queen::http
