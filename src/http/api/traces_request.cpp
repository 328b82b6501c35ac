#include "http/api/traces_request.h"

#include <nlohmann/json.hpp>

#include "http/api/messages_request.h"
#include "http/transport/http_types.h"
#include "http/transport/input_limits.h"
#include "http/transport/json_body.h"
#include "util/uuid.h"

namespace queen::http {

using nlohmann::json;

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
  trace.data_json = dump_json(*data);
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
  trace.partition_id = util::lowercase_uuid(partition);
  return trace;
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
