#pragma once
// Query-string parsing and the typed readers of query parameters (integers,
// booleans, timestamps) the routes share.
#include <cstdint>
#include <optional>
#include <string_view>

#include "config/config.h"
#include "http/transport/http_types.h"

namespace queen::http {

// Form-encoded: '+' is a space, %XX decoded; the first occurrence of a
// name wins; a name without '=' has an empty value.
QueryParams parse_query_string(std::string_view query);

// "true" or "1" is true; anything else present is false; absent or empty = fallback.
bool query_bool(const QueryParams& query, const std::string& name, bool fallback);

// Unparsable or absent = fallback.
std::int64_t query_int(const QueryParams& query, const std::string& name, std::int64_t fallback);

// A time bound (from, to ...) as epoch milliseconds: `text` is ISO-8601 or epoch milliseconds; 400 "<name> must be
// an ISO-8601 timestamp or epoch milliseconds" otherwise.
std::int64_t parse_time_bound(const std::string& text, const char* name);
// The parameter `name` read by parse_time_bound; absent or empty = nullopt.
std::optional<std::int64_t> query_time_bound(const QueryParams& query, const char* name);

// A listing's `offset`: absent or negative = 0; 400 past limits.list_max_offset (QUEEN_LIST_MAX_OFFSET).
int query_offset(const QueryParams& query, const config::LimitsConfig& limits);

// Paging of the admin listings: limit clamped to 1..kMaxAdminPageSize
// (bad or absent = the route's default), offset by query_offset.
inline constexpr int kMaxAdminPageSize = 1000;
struct Page {
  int limit = 0;
  int offset = 0;
};
Page parse_page(const QueryParams& query, int default_limit,
                const config::LimitsConfig& limits = config::Config::defaults().limits);

// A name-like parameter (queue, partition, consumerGroup, namespace, task ...):
// absent or empty = nullopt; otherwise checked by check_name
// (input_limits.h: valid UTF-8, no NUL, at most NAME_MAX_CHARS characters),
// 400 naming the parameter.
std::optional<std::string> query_name(const QueryParams& query, const std::string& name,
                                      const config::LimitsConfig& limits);

}  // namespace queen::http
