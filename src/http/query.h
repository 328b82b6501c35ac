#pragma once
// Query-string parsing and the typed readers of query parameters (integers,
// booleans, timestamps) the routes share.
#include <cstdint>
#include <optional>
#include <string_view>

#include "config/config.h"
#include "http/http_types.h"

namespace queen::http {

// Form-encoded: '+' is a space, %XX decoded; the first occurrence of a
// name wins; a name without '=' has an empty value.
QueryParams parse_query_string(std::string_view query);

// "true" or "1" is true; anything else present is false; absent or empty = fallback.
bool query_bool(const QueryParams& query, const std::string& name, bool fallback);

// Unparsable or absent = fallback.
std::int64_t query_int(const QueryParams& query, const std::string& name, std::int64_t fallback);

// A listing's `offset`: absent or negative = 0; 400 past limits.list_max_offset (QUEEN_LIST_MAX_OFFSET).
int query_offset(const QueryParams& query, const config::LimitsConfig& limits);

// A name-like parameter (queue, partition, consumerGroup, namespace, task ...):
// absent or empty = nullopt; otherwise checked by check_name
// (input_limits.h: valid UTF-8, no NUL, at most NAME_MAX_CHARS characters),
// 400 naming the parameter.
std::optional<std::string> query_name(const QueryParams& query, const std::string& name,
                                      const config::LimitsConfig& limits);

}  // namespace queen::http
