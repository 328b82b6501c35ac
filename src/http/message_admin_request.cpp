#include "http/message_admin_request.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "http/input_limits.h"
#include "http/json_body.h"
#include "http/query.h"
#include "util/iso8601.h"
#include "util/uuid.h"

namespace queen::http {
namespace {

using nlohmann::json;

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::optional<std::int64_t> bound_from_text(const std::optional<std::string>& text, const char* name) {
  if (!text) return std::nullopt;
  const std::optional<std::int64_t> ms = util::parse_epoch_or_iso8601_millis(*text);
  if (!ms) throw HttpError(400, std::string(name) + " must be an ISO-8601 timestamp or epoch milliseconds");
  return ms;
}

std::optional<std::int64_t> query_bound(const QueryParams& query, const char* name) {
  const auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return std::nullopt;
  return bound_from_text(it->second, name);
}

// A body bound: an ISO-8601 string or epoch milliseconds (an integer or a string of digits).
std::optional<std::int64_t> body_bound(const json& object, const char* name) {
  const json* f = present_field(object, name);
  if (!f) return std::nullopt;
  if (f->is_number_integer() && f->get<std::int64_t>() >= 0) return f->get<std::int64_t>();
  if (f->is_string()) {
    if (f->get_ref<const std::string&>().empty()) return std::nullopt;
    return bound_from_text(f->get<std::string>(), name);
  }
  throw HttpError(400, std::string(name) + " must be an ISO-8601 timestamp or epoch milliseconds");
}

void require_queue(const broker::DlqSelection& selection) {
  if (!selection.queue) throw HttpError(400, "queue is required");
}

}  // namespace

Page parse_page(const QueryParams& query, int default_limit, const config::LimitsConfig& limits) {
  Page page;
  page.limit = static_cast<int>(std::clamp<std::int64_t>(query_int(query, "limit", default_limit), 1, kMaxAdminPageSize));
  page.offset = query_offset(query, limits);
  return page;
}

std::optional<MessageKey> parse_message_key(const Request& request, const config::LimitsConfig& limits) {
  const std::string& partition_id = request.param("partitionId");
  const std::string& transaction_id = request.param("transactionId");
  if (!util::is_uuid(partition_id)) return std::nullopt;
  try {
    check_name(transaction_id, "transactionId", limits);
  } catch (const HttpError&) {
    return std::nullopt;  // no stored message has such a transactionId
  }
  return MessageKey{lowercase(partition_id), transaction_id};
}

std::optional<broker::TraceRecord> parse_trace_body(const Tenant& tenant, const std::string& body,
                                                    const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "transactionId and partitionId are required");
  const json* transaction_id = present_field(doc, "transactionId");
  const json* partition_id = present_field(doc, "partitionId");
  if (!transaction_id || !partition_id || !transaction_id->is_string() || !partition_id->is_string() ||
      transaction_id->get_ref<const std::string&>().empty() || partition_id->get_ref<const std::string&>().empty()) {
    throw HttpError(400, "transactionId and partitionId are required");
  }
  const json* data = present_field(doc, "data");
  if (!data) throw HttpError(400, "data is required");
  broker::TraceRecord trace(tenant);
  trace.transaction_id = transaction_id->get<std::string>();
  check_name(trace.transaction_id, "transactionId", limits);
  trace.data_json = data->dump(-1, ' ', false, json::error_handler_t::replace);
  json names = json::array();
  if (const json* given = present_field(doc, "traceNames")) {
    if (given->is_string()) {
      names.push_back(*given);
    } else if (given->is_array()) {
      for (const json& name : *given) {
        if (!name.is_string()) throw HttpError(400, "traceNames must be an array of strings");
        names.push_back(name);
      }
    } else {
      throw HttpError(400, "traceNames must be an array of strings, a string or null");
    }
  }
  for (const json& name : names) check_name(name.get_ref<const std::string&>(), "traceNames", limits);
  trace.trace_names_json = names.dump();
  if (std::optional<std::string> event_type = name_field(doc, "eventType", limits)) trace.event_type = *event_type;
  if (std::optional<std::string> group = name_field(doc, "consumerGroup", limits)) trace.consumer_group = *group;
  trace.worker_id = name_field(doc, "workerId", limits);
  const std::string& partition = partition_id->get_ref<const std::string&>();
  if (!util::is_uuid(partition)) return std::nullopt;
  trace.partition_id = lowercase(partition);
  return trace;
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
  q.from_ms = query_bound(query, "from");
  q.to_ms = query_bound(query, "to");
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

broker::DlqSelection parse_dlq_selection_body(const Tenant& tenant, const std::string& body,
                                              const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "queue is required");
  broker::DlqSelection s(tenant);
  s.queue = name_field(doc, "queue", limits);
  require_queue(s);
  s.consumer_group = name_field(doc, "consumerGroup", limits);
  s.partition = name_field(doc, "partition", limits);
  s.failed_from_ms = body_bound(doc, "from");
  s.failed_to_ms = body_bound(doc, "to");
  return s;
}

broker::DlqSelection parse_dlq_selection_query(const Tenant& tenant, const QueryParams& query,
                                               const config::LimitsConfig& limits) {
  broker::DlqSelection s(tenant);
  s.queue = query_name(query, "queue", limits);
  require_queue(s);
  s.consumer_group = query_name(query, "consumerGroup", limits);
  s.partition = query_name(query, "partition", limits);
  s.failed_from_ms = query_bound(query, "from");
  s.failed_to_ms = query_bound(query, "to");
  return s;
}

std::optional<broker::DlqSelection> parse_dlq_message_selection(const Tenant& tenant, const std::string& message_id,
                                                                const std::optional<std::string>& consumer_group) {
  if (!util::is_uuid(message_id)) return std::nullopt;
  broker::DlqSelection s(tenant);
  s.message_id = lowercase(message_id);
  s.consumer_group = consumer_group;
  return s;
}

std::optional<std::string> parse_dlq_group_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Optional, limits);
  if (!doc.is_object()) throw HttpError(400, "Request body must be a JSON object");
  return name_field(doc, "consumerGroup", limits);
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

std::string render_traces_by_name(const db::TracesByName& page) {
  std::string out = "{\"traces\":[";
  for (std::size_t i = 0; i < page.traces.size(); ++i) {
    if (i) out += ',';
    out += render_with_payload(page.traces[i], "message_payload");
  }
  out += ']';
  // envelope_json: {"total": N, "pagination": {...}}
  if (page.envelope_json.size() > 2) {
    out += ',';
    out.append(page.envelope_json, 1, std::string::npos);
  } else {
    out += '}';
  }
  return out;
}

}  // namespace queen::http
