#pragma once
// GET /api/v1/dlq (docs/api-extensions.md): query parsing and the response body. Pure.
#include <string>

#include "broker/types.h"
#include "config/config.h"
#include "http/http_types.h"

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

}  // namespace queen::http
