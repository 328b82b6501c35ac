#pragma once
// /api/v1/dlq (docs/api-extensions.md): the listing's query and answer, and the selections of the DLQ
// administration (requeue, delete). Pure: every 400 of these routes is produced here (HttpError).
#include <optional>
#include <string>

#include "broker/types.h"
#include "config/config.h"
#include "http/transport/http_types.h"

namespace queen::http {

// Pages larger than this are cut to it: a page is rendered in memory.
inline constexpr int kMaxDlqPageSize = 1000;
inline constexpr int kDefaultDlqPageSize = 100;

// queue, consumerGroup, partition (empty = any), from/to (ISO-8601 or epoch
// ms, bounds on the failure time, inclusive), limit (default 100, clamped to
// 1..kMaxDlqPageSize), offset (default 0, negative = 0). 400 for an
// unreadable from/to, and for a queue, consumerGroup or partition that is not
// a valid name (query_name). consumerGroup=__QUEUE_MODE__ selects queue-mode
// entries.
broker::DlqQuery parse_dlq_query(const Tenant& tenant, const QueryParams& query,
                                 const config::LimitsConfig& limits = config::Config::defaults().limits);

// {"messages": [...], "total", "limit", "offset", "pagination": {limit, offset}};
// timestamps with millisecond precision, `data` = the payload verbatim.
std::string render_dlq_page(const broker::DlqPage& page, const broker::DlqQuery& query);

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

}  // namespace queen::http
