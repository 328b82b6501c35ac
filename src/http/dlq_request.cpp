#include "http/dlq_request.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "http/query.h"
#include "util/iso8601.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace queen::http {
namespace {

using util::append_json_string;
using util::append_json_string_or_null;

std::optional<std::string> non_empty_value(const QueryParams& query, const char* name) {
  const auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::optional<std::int64_t> parse_bound(const QueryParams& query, const char* name) {
  const std::optional<std::string> text = non_empty_value(query, name);
  if (!text) return std::nullopt;
  const std::optional<std::int64_t> ms = util::parse_epoch_or_iso8601_millis(*text);
  if (!ms) throw HttpError(400, std::string(name) + " must be an ISO-8601 timestamp or epoch milliseconds");
  return ms;
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
  q.queue = query_name(query, "queue", limits);
  q.consumer_group = query_name(query, "consumerGroup", limits);
  q.partition = query_name(query, "partition", limits);
  q.failed_from_ms = parse_bound(query, "from");
  q.failed_to_ms = parse_bound(query, "to");
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
    out += e.is_encrypted ? "true" : "false";
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

}  // namespace queen::http
