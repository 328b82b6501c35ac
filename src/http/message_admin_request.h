#pragma once
// Message administration (docs/api-extensions.md): parsing of the traces,
// messages and DLQ-admin requests into broker commands, and the small
// response bodies the procedures do not render. Pure: every 400 of these
// routes is produced here (HttpError), so they are unit-tested without a server.
#include <optional>
#include <string>

#include "broker/types.h"
#include "config/config.h"
#include "http/http_types.h"

namespace queen::http {

// Paging of the admin listings: limit clamped to 1..kMaxAdminPageSize
// (bad or absent = the route's default), offset >= 0 (bad or absent = 0).
inline constexpr int kMaxAdminPageSize = 1000;
struct Page {
  int limit = 0;
  int offset = 0;
};
// offset: query_offset (400 past QUEEN_LIST_MAX_OFFSET).
Page parse_page(const QueryParams& query, int default_limit,
                const config::LimitsConfig& limits = config::Config::defaults().limits);

// A message key from the path (:partitionId, :transactionId). nullopt when
// the partition id is not a UUID or the transactionId not a valid name: no
// such message can exist, the routes answer 404.
struct MessageKey {
  std::string partition_id;  // lowercase canonical UUID
  std::string transaction_id;
};
std::optional<MessageKey> parse_message_key(const Request& request, const config::LimitsConfig& limits);

// POST /api/v1/traces body, for the caller's `tenant`. nullopt when the
// partitionId is not a UUID (no such message: 404). 400 "transactionId and
// partitionId are required", "data is required", and for ill-typed fields.
// traceNames: an array of names, one name, or null.
std::optional<broker::TraceRecord> parse_trace_body(const Tenant& tenant, const std::string& body,
                                                    const config::LimitsConfig& limits = config::Config::defaults().limits);

// GET /api/v1/messages of the caller's `tenant`: queue, partition, ns, task,
// status, from, to (ISO-8601 or epoch ms), limit (200), offset (0). 400 for an
// unknown status or an unreadable bound.
broker::MessageListQuery parse_message_list_query(const Tenant& tenant, const QueryParams& query,
                                                  const config::LimitsConfig& limits = config::Config::defaults().limits);

// POST /api/v1/messages/:p/:t/dlq body (optional): consumerGroup, errorMessage (or error).
struct DeadLetterRequest {
  std::optional<std::string> consumer_group;
  std::optional<std::string> error;
};
DeadLetterRequest parse_dead_letter_body(const std::string& body,
                                         const config::LimitsConfig& limits = config::Config::defaults().limits);

// The DLQ-admin selections of the caller's `tenant`: POST /api/v1/dlq/requeue
// body and DELETE /api/v1/dlq query {queue (required: 400 "queue is
// required"), consumerGroup, partition, from, to}.
broker::DlqSelection parse_dlq_selection_body(const Tenant& tenant, const std::string& body,
                                              const config::LimitsConfig& limits = config::Config::defaults().limits);
broker::DlqSelection parse_dlq_selection_query(const Tenant& tenant, const QueryParams& query,
                                               const config::LimitsConfig& limits = config::Config::defaults().limits);
// One dead message (:messageId; nullopt when not a UUID) with an optional
// consumerGroup from the body (requeue) or the query (delete).
std::optional<broker::DlqSelection> parse_dlq_message_selection(const Tenant& tenant, const std::string& message_id,
                                                                const std::optional<std::string>& consumer_group);
std::optional<std::string> parse_dlq_group_body(const std::string& body,
                                                const config::LimitsConfig& limits = config::Config::defaults().limits);

// Rendering: `object.fields_json` with "<payload_key>": payload spliced in as
// text (payloads are never re-parsed: docs/limits.md).
std::string render_with_payload(const db::ObjectWithPayload& object, const char* payload_key);
// GET /api/v1/traces/by-name body: {"traces": [... with message_payload], "total", "pagination"}.
std::string render_traces_by_name(const db::TracesByName& page);

}  // namespace queen::http
