#pragma once
// /api/v1/messages* (docs/api-extensions.md): the message key of the path, the listing's query, the dead-letter
// body, and the bodies the procedures do not render. Pure: every 400 of these routes is produced here (HttpError).
#include <optional>
#include <string>

#include "broker/types.h"
#include "config/config.h"
#include "http/transport/http_types.h"

namespace queen::http {

// A message key from the path (:partitionId, :transactionId). nullopt when
// the partition id is not a UUID or the transactionId not a valid name: no
// such message can exist, the routes answer 404.
struct MessageKey {
  std::string partition_id;  // lowercase canonical UUID
  std::string transaction_id;
};
std::optional<MessageKey> parse_message_key(const Request& request, const config::LimitsConfig& limits);

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

// `object.fields_json` with "<payload_key>": payload spliced in as
// text (payloads are never re-parsed: docs/limits.md).
std::string render_with_payload(const db::ObjectWithPayload& object, const char* payload_key);

}  // namespace queen::http
