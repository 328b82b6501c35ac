#include "http/transport/query.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "http/transport/input_limits.h"
#include "util/iso8601.h"
#include "util/percent_decode.h"

namespace queen::http {

QueryParams parse_query_string(std::string_view query) {
  QueryParams params;
  std::size_t start = 0;
  while (start < query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view pair = query.substr(start, end - start);
    if (!pair.empty()) {
      const std::size_t eq = pair.find('=');
      const std::string name = util::percent_decode(pair.substr(0, eq), util::PlusMeans::Space);
      const std::string value =
          eq == std::string_view::npos ? std::string() : util::percent_decode(pair.substr(eq + 1), util::PlusMeans::Space);
      params.emplace(name, value);  // emplace keeps the first occurrence
    }
    start = end + 1;
  }
  return params;
}

bool query_bool(const QueryParams& query, const std::string& name, bool fallback) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return fallback;
  return it->second == "true" || it->second == "1";
}

std::int64_t query_int(const QueryParams& query, const std::string& name, std::int64_t fallback) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(it->second.c_str(), &end, 10);
  if (errno == ERANGE || end == it->second.c_str() || *end != '\0') return fallback;
  return value;
}

int query_offset(const QueryParams& query, const config::LimitsConfig& limits) {
  const std::int64_t offset = std::max<std::int64_t>(query_int(query, "offset", 0), 0);
  if (offset > limits.list_max_offset) {
    throw HttpError(400, "offset must be at most " + std::to_string(limits.list_max_offset) +
                             " (QUEEN_LIST_MAX_OFFSET); page further with from/to");
  }
  return static_cast<int>(offset);
}

Page parse_page(const QueryParams& query, int default_limit, const config::LimitsConfig& limits) {
  Page page;
  page.limit = static_cast<int>(std::clamp<std::int64_t>(query_int(query, "limit", default_limit), 1, kMaxAdminPageSize));
  page.offset = query_offset(query, limits);
  return page;
}

std::int64_t parse_time_bound(const std::string& text, const char* name) {
  const std::optional<std::int64_t> ms = util::parse_epoch_or_iso8601_millis(text);
  if (!ms) throw HttpError(400, std::string(name) + " must be an ISO-8601 timestamp or epoch milliseconds");
  return *ms;
}

std::optional<std::int64_t> query_time_bound(const QueryParams& query, const char* name) {
  const auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return std::nullopt;
  return parse_time_bound(it->second, name);
}

std::optional<std::string> query_name(const QueryParams& query, const std::string& name,
                                      const config::LimitsConfig& limits) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return std::nullopt;
  check_name(it->second, name, limits);
  return it->second;
}

}  // namespace queen::http
