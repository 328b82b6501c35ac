#include "http/api/dlq_request.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "http/transport/json_body.h"
#include "http/transport/query.h"
#include "util/json_text.h"
#include "util/time_format.h"
#include "util/uuid.h"

namespace queen::http {
namespace {

using util::append_json_bool;
using util::append_json_string;
using util::append_json_string_or_null;

using nlohmann::json;

// A body bound: an ISO-8601 string or epoch milliseconds (an integer or a string of digits).
std::optional<std::int64_t> body_bound(const json& object, const char* name) {
  const json* f = present_field(object, name);
  if (!f) return std::nullopt;
  if (f->is_number_integer() && f->get<std::int64_t>() >= 0) return f->get<std::int64_t>();
  if (f->is_string()) {
    if (f->get_ref<const std::string&>().empty()) return std::nullopt;
    return parse_time_bound(f->get<std::string>(), name);
  }
  throw HttpError(400, std::string(name) + " must be an ISO-8601 timestamp or epoch milliseconds");
}

// The filter of a listing, a requeue or a delete, read through `name` (a
// queue, group or partition name) and `bound` (a from/to time) from a query
// string or a body. A requeue or delete must name its queue (`queue_required`).
template <typename Name, typename Bound>
void read_dlq_filter(broker::DlqFilter& f, bool queue_required, Name name, Bound bound) {
  f.queue = name("queue");
  if (queue_required && !f.queue) throw HttpError(400, "queue is required");
  f.consumer_group = name("consumerGroup");
  f.partition = name("partition");
  f.failed_from_ms = bound("from");
  f.failed_to_ms = bound("to");
}

// read_dlq_filter from a query string.
void read_dlq_query_filter(broker::DlqFilter& f, bool queue_required, const QueryParams& query,
                           const config::LimitsConfig& limits) {
  read_dlq_filter(
      f, queue_required, [&](const char* field) { return query_name(query, field, limits); },
      [&](const char* field) { return query_time_bound(query, field); });
}

void append_pagination(std::string& out, const broker::DlqQuery& query) {
  out += "\"limit\":";
  out += std::to_string(query.limit);
  out += ",\"offset\":";
  out += std::to_string(query.offset);
}

}  // namespace

broker::DlqQuery parse_dlq_query(const Tenant& tenant, const QueryParams& query, const config::LimitsConfig& limits) {
  broker::DlqQuery q(tenant);
  read_dlq_query_filter(q, /*queue_required=*/false, query, limits);
  q.limit = static_cast<int>(
      std::clamp<std::int64_t>(query_int(query, "limit", kDefaultDlqPageSize), 1, kMaxDlqPageSize));
  q.offset = query_offset(query, limits);
  q.max_payload_bytes = limits.list_max_payload_bytes;
  return q;
}

std::string render_dlq_page(const broker::DlqPage& page, const broker::DlqQuery& query) {
  std::size_t payload_bytes = 0;
  for (const auto& e : page.entries) payload_bytes += e.payload_json.size();
  std::string out;
  out.reserve(payload_bytes + page.entries.size() * 600 + 128);
  out += "{\"messages\":[";
  for (std::size_t i = 0; i < page.entries.size(); ++i) {
    const auto& e = page.entries[i];
    if (i) out += ',';
    out += "{\"id\":";
    append_json_string(out, e.message_id);
    out += ",\"transactionId\":";
    append_json_string(out, e.transaction_id);
    out += ",\"partitionId\":";
    append_json_string(out, e.partition_id);
    out += ",\"queue\":";
    append_json_string(out, e.queue_name);
    out += ",\"partition\":";
    append_json_string(out, e.partition_name);
    out += ",\"consumerGroup\":";
    append_json_string(out, e.consumer_group);
    out += ",\"errorMessage\":";
    append_json_string_or_null(out, e.error_message);
    out += ",\"retryCount\":";
    out += std::to_string(e.retry_count);
    // Decrypted by the broker (docs/encryption.md); an entry it could not
    // open (tampered, unknown key) is listed as stored, the envelope.
    out += ",\"data\":";
    out += e.payload_json;
    if (e.payload_omitted) out += ",\"payloadOmitted\":true";
    out += ",\"isEncrypted\":";
    append_json_bool(out, e.is_encrypted);
    out += ",\"traceId\":";
    append_json_string_or_null(out, e.trace_id);
    out += ",\"producerSub\":";
    append_json_string_or_null(out, e.producer_sub);
    out += ",\"createdAt\":";
    append_json_string(out, util::format_iso8601_millis(e.created_at_us));
    out += ",\"failedAt\":";
    append_json_string(out, util::format_iso8601_millis(e.failed_at_us));
    out += '}';
  }
  out += "],\"total\":";
  out += std::to_string(page.total);
  out += ',';
  append_pagination(out, query);
  out += ",\"pagination\":{";
  append_pagination(out, query);
  out += "}}";
  return out;
}

broker::DlqSelection parse_dlq_selection_body(const Tenant& tenant, const std::string& body,
                                              const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Required, limits);
  if (!doc.is_object()) throw HttpError(400, "queue is required");
  broker::DlqSelection s(tenant);
  read_dlq_filter(
      s, /*queue_required=*/true, [&](const char* field) { return name_field(doc, field, limits); },
      [&](const char* field) { return body_bound(doc, field); });
  return s;
}

broker::DlqSelection parse_dlq_selection_query(const Tenant& tenant, const QueryParams& query,
                                               const config::LimitsConfig& limits) {
  broker::DlqSelection s(tenant);
  read_dlq_query_filter(s, /*queue_required=*/true, query, limits);
  return s;
}

std::optional<broker::DlqSelection> parse_dlq_message_selection(const Tenant& tenant, const std::string& message_id,
                                                                const std::optional<std::string>& consumer_group) {
  if (!util::is_uuid(message_id)) return std::nullopt;
  broker::DlqSelection s(tenant);
  s.message_id = util::lowercase_uuid(message_id);
  s.consumer_group = consumer_group;
  return s;
}

std::optional<std::string> parse_dlq_group_body(const std::string& body, const config::LimitsConfig& limits) {
  const json doc = parse_json_body(body, BodyRule::Optional, limits);
  if (!doc.is_object()) throw HttpError(400, "Request body must be a JSON object");
  return name_field(doc, "consumerGroup", limits);
}

}  // namespace queen::http
