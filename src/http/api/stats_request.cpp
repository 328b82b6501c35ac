#include "http/api/stats_request.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "http/transport/input_limits.h"
#include "http/transport/query.h"

namespace queen::http {
namespace {

// from/to: the procedure reads fromMs/toMs.
void add_time_bound(nlohmann::json& out, const QueryParams& query, const std::string& name) {
  if (const std::optional<std::int64_t> ms = query_time_bound(query, name.c_str())) out[name + "Ms"] = *ms;
}

}  // namespace

std::string stats_params_json(const Request& request, const StatsParams& params, const config::LimitsConfig& limits) {
  nlohmann::json out = nlohmann::json::object();
  const QueryParams& query = request.query;
  for (const std::string& name : params.accepted) {
    if (name == "from" || name == "to") {
      add_time_bound(out, query, name);
    } else if (const std::optional<std::string> value = query_name(query, name, limits)) {
      out[name] = *value;
    }
  }
  if (params.default_limit > 0) {
    out["limit"] = std::clamp<std::int64_t>(query_int(query, "limit", params.default_limit), 1, kMaxStatsPageSize);
    out["offset"] =
        std::clamp<std::int64_t>(query_int(query, "offset", 0), 0, std::numeric_limits<std::int32_t>::max());
  }
  if (params.queue_in_path) {
    const std::string& queue = request.param("queue");
    check_name(queue, "queue", limits);
    out["queue"] = queue;
  }
  return out.dump();
}

StatsParams stats_params_of(const db::View& view) {
  StatsParams params;
  params.accepted = view.parameters;
  params.default_limit = view.page_size;
  params.queue_in_path = view.queue_in_path;
  params.level = view.access == db::ViewAccess::Operator ? auth::AccessLevel::Operator : auth::AccessLevel::ReadOnly;
  return params;
}

}  // namespace queen::http
